import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { capture, ok, type RawEvent, uuid } from './query-lists.js';

/**
 * The persons-on-events fixture (test/query/persons-on-events.test.ts and the `pmat_` columns'
 * test): merges by `$identify` and `$create_alias`, a `$set` after earlier events, and a deleted
 * person, sent through /batch/ so the person columns on each event are what ingestion wrote.
 */
export const POE_NOW = new Date('2025-06-15T12:00:00.000Z');

export const MODES = [
  'disabled',
  'person_id_no_override_properties_on_events',
  'person_id_override_properties_on_events',
  'person_id_override_properties_joined',
] as const;
export type Mode = (typeof MODES)[number];

export const ev = (
  event: string,
  distinct_id: string,
  time: string,
  properties: Record<string, unknown> = {},
): RawEvent => ({
  event,
  distinct_id,
  timestamp: `2025-06-15T${time}Z`,
  uuid: uuid(),
  properties,
});

export const hogqlIn = (h: Harness, project: number) => (q: string, mode?: Mode) =>
  ok(h, project, {
    kind: 'HogQLQuery',
    query: q,
    ...(mode ? { modifiers: { personsOnEventsMode: mode } } : {}),
  });

export const PAGEVIEWS =
  "SELECT distinct_id, toString(person_id), person.properties.plan FROM events WHERE event = '$pageview' ORDER BY timestamp";

/** Sends the fixture's events into the bootstrap project; returns person ids as written, by distinct id. */
export async function seedPersonsOnEvents(h: Harness): Promise<Record<string, string>> {
  const project = h.boot.project_id;
  const token = h.boot.project_api_key;
  const send = (batch: RawEvent[]) => capture(h, token, project, batch);
  // Anonymous a1 on the free plan; u1 signs up on pro, then identifies as a1's user (a1's person
  // merges into u1's), then upgrades to enterprise: earlier events keep the plan they had.
  await send([
    ev('$pageview', 'a1', '08:00:00', { $set: { plan: 'free' } }),
    ev('$pageview', 'u1', '08:10:00', { $set: { plan: 'pro' } }),
  ]);
  await send([ev('$identify', 'u1', '08:20:00', { $anon_distinct_id: 'a1' })]);
  await send([ev('$pageview', 'u1', '08:30:00', { $set: { plan: 'enterprise' } })]);
  // c1 and c2 each have a person; c1 aliases c2, so c2's person merges into c1's.
  await send([
    ev('$pageview', 'c2', '09:00:00', { $set: { plan: 'trial' } }),
    ev('$pageview', 'c1', '09:10:00', { $set: { plan: 'team' } }),
  ]);
  await send([ev('$create_alias', 'c1', '09:20:00', { alias: 'c2' })]);
  // x1's person is deleted afterwards; its events stay.
  await send([ev('$pageview', 'x1', '10:00:00', { $set: { plan: 'pro' } })]);

  const ids: Record<string, string> = {};
  const out = await hogqlIn(h, project)(PAGEVIEWS, 'person_id_no_override_properties_on_events');
  for (const [distinctId, personId] of out.results as string[][])
    ids[distinctId as string] = personId as string;
  const res = await h.request('DELETE', `/api/projects/${project}/persons/${ids.x1}/`);
  expect(res.statusCode).toBe(204);
  return ids;
}
