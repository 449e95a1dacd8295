import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

// hogql_query (or dialect_query) is validated by the HogQL compiler under PostHog's export rules.
describe(`batch exports: hogql_query (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ BATCH_EXPORTS_SCHEDULER: 'false' });
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
  });
  afterAll(() => h?.close());

  const create = (query: string, field = 'hogql_query') =>
    h.request('POST', base, {
      body: { name: 'q', destination: { type: 'NoOp', config: {} }, interval: 'hour', [field]: query },
    });

  it.each([
    ['SELEC nope', 'Failed to parse query'],
    ['SELECT 1 UNION ALL SELECT 2', 'UNIONs are not supported'],
    ['SELECT 1', 'Query must SELECT FROM events'],
    ['SELECT id FROM persons', 'Query must only SELECT FROM events'],
    ['SELECT e.event FROM events e JOIN persons p ON e.person_id = p.id', 'JOINs are not supported'],
    ['SELECT * FROM (SELECT event FROM events)', 'Subqueries are not supported'],
    ['WITH x AS (SELECT 1) SELECT event FROM events', 'CTEs are not supported'],
    ['SELECT (SELECT 1) FROM events', 'Subqueries in SELECT expressions are not supported'],
    ['SELECT unknown_field FROM events', 'Invalid HogQL query: Unable to resolve field: unknown_field'],
  ])('%s → %s', async (query, detail) => {
    const res = await create(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', detail, attr: 'hogql_query' });
  });

  it('stores a valid query with its derived schema, under either field name', async () => {
    const res = await create(
      "select event, properties.$browser as browser, count() from events where event != 'x'",
      'dialect_query',
    );
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.schema).toEqual({
      fields: [
        { expression: 'event', alias: 'event' },
        { expression: 'properties.$browser', alias: 'browser' },
        { expression: 'count()', alias: 'count()' },
      ],
      values: {},
      hogql_query: "SELECT event, properties.$browser AS browser, count() FROM events WHERE event != 'x'",
    });
  });
});
