import { col, type TableDef } from './fields.js';

/**
 * OpenTelemetry log records (events migration 0007), with PostHog's HogQL `logs` fields.
 * `attributes` and `resource_attributes` are JSON text, read like `events.properties`
 * (`attributes.order_id`, `resource_attributes['service.name']`).
 */
export const logs: TableDef = {
  name: 'logs',
  physical: 'logs',
  final: true,
  fields: {
    uuid: col('uuid', 'string'),
    team_id: col('team_id', 'integer', { hidden: true }),
    trace_id: col('trace_id', 'string'),
    span_id: col('span_id', 'string'),
    trace_flags: col('trace_flags', 'integer'),
    body: col('body', 'string'),
    attributes: col('attributes', 'json'),
    timestamp: col('timestamp', 'datetime'),
    observed_timestamp: col('observed_timestamp', 'datetime'),
    severity_text: col('severity_text', 'string'),
    severity_number: col('severity_number', 'integer'),
    level: col('level', 'string'),
    resource_attributes: col('resource_attributes', 'json'),
    instrumentation_scope: col('instrumentation_scope', 'string'),
    event_name: col('event_name', 'string'),
    service_name: col('service_name', 'string'),
    inserted_at: col('inserted_at', 'datetime', { hidden: true }),
  },
};
