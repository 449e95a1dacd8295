import type { ExportRow, RowSchema } from '../../domain/batch-exports/destinations/types.js';

const str = (v: unknown) => JSON.stringify(v ?? null);
const props = (v: unknown) => (typeof v === 'string' && v.startsWith('{') ? v : '{}');

/** A capture `/batch/` body, events spliced from their stored JSON rather than re-parsed. */
export function batchBody(token: string, rows: ExportRow[], schema?: RowSchema): string {
  const events = rows.map((r) =>
    schema?.custom
      ? queryEvent(r, schema)
      : `{"uuid":${str(r.uuid)},"event":${str(r.event)},"distinct_id":${str(r.distinct_id)},"timestamp":${str(r.timestamp)},"properties":${props(r.properties)}}`,
  );
  return `{"api_key":${str(token)},"historical_migration":true,"batch":[${events.join(',')}]}`;
}

const EVENT_FIELDS = new Set(['uuid', 'event', 'distinct_id', 'timestamp', 'properties']);

/**
 * A row of a `hogql_query` export as an event: the columns named like event fields are those
 * fields, `properties` (if selected) is the base of the properties and every other column is
 * one property more.
 */
function queryEvent(r: ExportRow, schema: RowSchema): string {
  const properties: Record<string, unknown> =
    typeof r.properties === 'string' && r.properties.startsWith('{') ? JSON.parse(r.properties) : {};
  for (const c of schema.columns) {
    if (EVENT_FIELDS.has(c.name)) continue;
    const v = r[c.name];
    properties[c.name] = c.kind === 'json' && typeof v === 'string' ? JSON.parse(v) : v;
  }
  const event: Record<string, unknown> = { event: r.event, distinct_id: r.distinct_id, properties };
  if (r.uuid != null) event.uuid = r.uuid;
  if (r.timestamp != null) event.timestamp = r.timestamp;
  return JSON.stringify(event);
}
