import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { query } from '../helpers/query-lists.js';

/** DatabaseSchemaQuery through POST /query: the tables and fields the SQL page's browser lists. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('DatabaseSchemaQuery', () => {
  it('lists the HogQL tables with their fields and types, as PostHog shapes them', async () => {
    const res = await query(h, h.boot.project_id, { kind: 'DatabaseSchemaQuery' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as {
      tables: Record<string, { type: string; name: string; fields: Record<string, Record<string, unknown>> }>;
      joins: unknown[];
    };
    expect(body.joins).toEqual([]);
    expect(Object.keys(body.tables)).toEqual(
      expect.arrayContaining(['events', 'persons', 'sessions', 'groups']),
    );
    expect(body.tables.numbers).toBeUndefined();
    const events = body.tables.events as (typeof body.tables)[string];
    expect(events).toMatchObject({ type: 'posthog', name: 'events' });
    expect(events.fields.event).toEqual({
      name: 'event',
      hogql_value: 'event',
      type: 'string',
      schema_valid: true,
    });
    expect(events.fields.timestamp?.type).toBe('datetime');
    expect(events.fields.properties?.type).toBe('json');
    expect(events.fields.person).toMatchObject({ schema_valid: true });
    expect(['lazy_table', 'field_traverser']).toContain(events.fields.person?.type);
  });
});
