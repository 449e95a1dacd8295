/**
 * Seeded, realistic event data for benchmarks: 50 event names with a skewed distribution, 100k
 * distinct ids, sessions, nested properties, and a person per distinct id.
 */
import type { DistinctIdRow, EventRow, PersonRow } from '../test/helpers/events-insert.js';

export function generator(seed = 42) {
  let s = seed;
  const rand = () => {
    s = (s + 0x6d2b79f5) | 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T;
  const skewed = <T>(a: readonly T[]): T => a[Math.floor(a.length * rand() ** 3)] as T;
  return { rand, pick, skewed };
}

export const EVENT_NAMES = [
  '$pageview',
  '$autocapture',
  '$pageleave',
  'signup',
  'purchase',
  '$identify',
].concat(Array.from({ length: 44 }, (_, i) => `custom_event_${i}`));
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Microsoft Edge', 'Opera', 'Samsung Internet'];
const OSES = ['Windows', 'Mac OS X', 'iOS', 'Android', 'Linux'];
const PATHS = ['/', '/pricing', '/signup', '/login', '/docs', '/blog'].concat(
  Array.from({ length: 200 }, (_, i) => `/app/project/${i}/dashboard`),
);
export const USERS = 100_000;
export const NOW = Date.UTC(2025, 5, 30);
const DAY = 86_400_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
export const ts = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000`;
};
const hex = (n: number, w: number) => Math.floor(n).toString(16).padStart(w, '0').slice(-w);
const SESSIONS_PER_USER = 10;
/** A fixed, well-spread start for session k of a user, within the 35 days before NOW. */
function sessionStart(user: number, k: number): number {
  const h = Math.imul(user * SESSIONS_PER_USER + k + 1, 2654435761) >>> 0;
  return NOW - 35 * DAY + Math.floor((h / 4294967296) * (35 * DAY - 30 * 60_000));
}
const personId = (user: number) => `0190b6a4-0000-7000-8000-${hex(user, 12)}`;

export function eventRow(g: ReturnType<typeof generator>, i: number, teamId: number): EventRow {
  const user = Math.floor(g.rand() * USERS);
  // Ten sessions per user over the 35 days, each at a fixed time of its own and 30 minutes long,
  // so a session holds about ten events (a uniformly random time per event made every event a
  // session of its own).
  const k = Math.floor(g.rand() * SESSIONS_PER_USER);
  const time = sessionStart(user, k) + Math.floor(g.rand() * 30 * 60_000);
  const session = `0190${hex(user, 4)}-${hex(k, 4)}-7000-8000-${hex(user * 7919, 12)}`;
  const path = g.skewed(PATHS);
  const props = {
    $browser: g.skewed(BROWSERS),
    $os: g.skewed(OSES),
    $current_url: `https://app.example.com${path}`,
    $pathname: path,
    $session_id: session,
    $lib: 'web',
    plan: { tier: g.pick(['free', 'pro', 'enterprise']), seats: Math.floor(g.rand() * 50) },
    amount: Math.round(g.rand() * 10_000) / 100,
  };
  return {
    uuid: `${hex(i / 65536, 8)}-${hex(i, 4)}-7${hex(g.rand() * 4096, 3)}-8${hex(g.rand() * 4096, 3)}-${hex(g.rand() * 2 ** 24, 6)}${hex(g.rand() * 2 ** 24, 6)}`,
    event: g.skewed(EVENT_NAMES),
    properties: JSON.stringify(props),
    timestamp: ts(time),
    team_id: teamId,
    distinct_id: `user-${user}`,
    person_id: personId(user),
  };
}

export function personRows(
  g: ReturnType<typeof generator>,
  teamId: number,
): { persons: PersonRow[]; pdis: DistinctIdRow[] } {
  const persons: PersonRow[] = [];
  const pdis: DistinctIdRow[] = [];
  for (let u = 0; u < USERS; u++) {
    persons.push({
      id: personId(u),
      team_id: teamId,
      properties: JSON.stringify({
        email: `user${u}@example.com`,
        plan: g.pick(['free', 'pro', 'enterprise']),
      }),
      is_identified: 1,
      created_at: ts(NOW - 60 * DAY),
      version: 0,
    });
    pdis.push({ team_id: teamId, distinct_id: `user-${u}`, person_id: personId(u), version: 0 });
  }
  return { persons, pdis };
}
