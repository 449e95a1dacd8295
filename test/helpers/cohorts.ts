import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** Cohort filters: persons whose property `key` equals `value` (PostHog's nested group shape). */
export const personIs = (key: string, value: unknown, operator = 'exact') => ({
  properties: {
    type: 'OR',
    values: [{ type: 'AND', values: [{ key, value, type: 'person', operator }] }],
  },
});

/** Creates a cohort and waits until its members are calculated; returns its id. */
export async function calculatedCohort(
  h: Harness,
  projectId: number,
  name: string,
  filters: unknown,
  key = h.key,
): Promise<number> {
  const res = await h.request('POST', `/api/projects/${projectId}/cohorts/`, {
    key,
    body: { name, filters },
  });
  expect(res.statusCode).toBe(201);
  const id = (res.json() as { id: number }).id;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const c = (await h.request('GET', `/api/projects/${projectId}/cohorts/${id}/`, { key })).json() as {
      last_calculation: string | null;
      is_calculating: boolean;
    };
    if (c.last_calculation && !c.is_calculating) return id;
    if (Date.now() > deadline) throw new Error(`cohort ${id} not calculated`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
