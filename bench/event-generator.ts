/**
 * Seeded, realistic event data for benchmarks: 50 event names with a skewed distribution, 100k
 * distinct ids, sessions, nested properties, and a person per distinct id. Events are encoded by
 * ingestion's own `eventLine`, so they carry the person's id and properties as they were when the
 * event happened (persons on events), as captured events do.
 */
import { chTime, eventLine } from '../src/domain/ingest/rows.js';
import type { DistinctIdRow, PersonRow } from '../test/helpers/events-insert.js';

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
export const personId = (user: number) => `0190b6a4-0000-7000-8000-${hex(user, 12)}`;

/** A number in [0, 1) fixed by (n, salt): person facts must not depend on the event stream's RNG. */
function mix(n: number, salt: number): number {
  let h = Math.imul(n ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}
const PLANS = ['free', 'pro', 'enterprise'];
const PERSON_CREATED = new Date(NOW - 60 * DAY).toISOString();

/**
 * A person's properties at time `ms`. A third of the paying persons upgraded from 'free' at a time
 * of their own within the 35 days, so point-in-time person properties (on the event) and current
 * ones (the persons table) differ for their earlier events, as they do in real projects.
 */
export function personPropertiesAt(user: number, ms: number): { email: string; plan: string } {
  const plan = PLANS[Math.floor(mix(user, 1) * PLANS.length)] as string;
  const upgradedAt = mix(user, 2) < 1 / 3 ? NOW - 35 * DAY + mix(user, 3) * 35 * DAY : 0;
  return { email: `user${user}@example.com`, plan: plan !== 'free' && ms < upgradedAt ? 'free' : plan };
}

/** Event `i` as the `events` JSONEachRow line capture writes; `now` is `chTime` text. */
export function eventLineAt(g: ReturnType<typeof generator>, i: number, teamId: number, now: string): string {
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
  const uuid = `${hex(i / 65536, 8)}-${hex(i, 4)}-7${hex(g.rand() * 4096, 3)}-8${hex(g.rand() * 4096, 3)}-${hex(g.rand() * 2 ** 24, 6)}${hex(g.rand() * 2 ** 24, 6)}`;
  const event = g.skewed(EVENT_NAMES);
  return eventLine(
    teamId,
    { uuid, event, distinctId: `user-${user}`, properties: props, timestamp: new Date(time).toISOString() },
    {
      personId: personId(user),
      personProperties: personPropertiesAt(user, time),
      personCreatedAt: PERSON_CREATED,
      groups: ['', '', '', '', ''],
    },
    now,
  );
}

export { chTime };

/** Every person as it is now (after any upgrade), and its one distinct id. */
export function personRows(teamId: number): { persons: PersonRow[]; pdis: DistinctIdRow[] } {
  const persons: PersonRow[] = [];
  const pdis: DistinctIdRow[] = [];
  for (let u = 0; u < USERS; u++) {
    persons.push({
      id: personId(u),
      team_id: teamId,
      properties: JSON.stringify(personPropertiesAt(u, NOW)),
      is_identified: 1,
      created_at: ts(NOW - 60 * DAY),
      version: 0,
    });
    pdis.push({ team_id: teamId, distinct_id: `user-${u}`, person_id: personId(u), version: 0 });
  }
  return { persons, pdis };
}
