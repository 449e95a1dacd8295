/**
 * Event properties that have their own column on `events`, for the HogQL compiler.
 *
 * `mat_<key>` is `Nullable(String) MATERIALIZED` HogQL's own property expression,
 * `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, key), ''), 'null'), '^"|"$', '')`,
 * so the compiler prints `properties.<key>` as the bare column `events.\`mat_<key>\`` and the result
 * is the same by construction (missing key and JSON null are NULL, strings lose their quotes,
 * numbers and booleans are their JSON text). It costs about a tenth of extracting from the JSON
 * (BENCHMARKS.md, "Events store: property storage"). Only single-level access uses the column;
 * deeper chains (`properties.$browser.x`) and every other key read the `properties` String.
 * `person_properties` has no materialized columns yet.
 */
export const MATERIALIZED_EVENT_PROPERTIES = [
  '$browser',
  '$os',
  '$device_type',
  '$current_url',
  '$pathname',
  '$host',
  '$referring_domain',
] as const;

export type MaterializedEventProperty = (typeof MATERIALIZED_EVENT_PROPERTIES)[number];

/** PostHog's naming: characters outside `[0-9a-zA-Z$]` become `_`. */
export function materializedColumnName(key: string): string {
  return `mat_${key.replace(/[^0-9a-zA-Z$]/g, '_')}`;
}

/** The column for `properties.<key>` on events, or undefined when the key must be extracted. */
export function materializedEventColumn(key: string): string | undefined {
  return (MATERIALIZED_EVENT_PROPERTIES as readonly string[]).includes(key)
    ? materializedColumnName(key)
    : undefined;
}

/** HogQL's property access on a JSON String column: the expression each column stores. */
export function propertyExpression(source: string, key: string): string {
  const quoted = `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${source}, ${quoted}), ''), 'null'), '^"|"$', '')`;
}
