import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { ok } from './query-lists.js';

/** A person as `GET /persons/` lists it. */
export interface ListedPerson {
  id: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/** Every person of the project (one page is enough for these tests). */
export async function listPersons(h: Harness, projectId: number): Promise<ListedPerson[]> {
  const res = await h.request('GET', `/api/projects/${projectId}/persons/?limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { results: ListedPerson[] }).results;
}

/** The events of a person as its page shows them: an EventsQuery with `personId`. */
export async function eventsOfPerson(h: Harness, projectId: number, personId: string): Promise<string[]> {
  const out = await ok(h, projectId, {
    kind: 'EventsQuery',
    select: ['event', 'distinct_id'],
    personId,
    after: 'all',
    orderBy: ['timestamp ASC'],
  });
  return out.results.map((r) => `${r[0]}@${r[1]}`);
}

/** Unique users of `event` over all time (a trends total with `math: 'dau'`). */
export async function uniqueUsers(h: Harness, projectId: number, event: string): Promise<number> {
  const out = await ok(h, projectId, {
    kind: 'TrendsQuery',
    dateRange: { date_from: '-7d' },
    interval: 'day',
    trendsFilter: { display: 'BoldNumber' },
    series: [{ kind: 'EventsNode', event, math: 'dau' }],
  });
  return (out.results[0] as unknown as { aggregated_value: number }).aggregated_value;
}

/** `person_id` by event as HogQL resolves it (the distinct id's person now, else the row's id). */
export async function personIdsByEvent(h: Harness, projectId: number, where: string) {
  const out = await ok(h, projectId, {
    kind: 'HogQLQuery',
    query: `SELECT event, distinct_id, toString(person_id) FROM events WHERE ${where} ORDER BY timestamp`,
  });
  return out.results.map((r) => ({
    event: r[0] as string,
    distinctId: r[1] as string,
    personId: r[2] as string,
  }));
}
