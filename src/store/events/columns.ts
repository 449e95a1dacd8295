/**
 * Event properties that have their own column on `events`, for the HogQL compiler.
 *
 * `mat_<key>` is `Nullable(String) MATERIALIZED` HogQL's own property expression,
 * `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, key), ''), 'null'), '^"|"$', '')`,
 * so the compiler prints `properties.<key>` as the bare column `events.\`mat_<key>\`` and the result
 * is the same by construction (missing key and JSON null are NULL, strings lose their quotes,
 * numbers and booleans are their JSON text). It costs about a tenth of extracting from the JSON
 * (docs/benchmarks-history.md, "Events store: property storage"). Only single-level access uses the column;
 * deeper chains (`properties.$browser.x`) and every other key read the `properties` String.
 * Person properties on events get `pmat_<key>` columns the same way, chosen by the operator
 * (`personColumnName` below; store/events/person-columns.ts).
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

/** A ClickHouse string literal for our own DDL (keys are checked before they get here). */
export function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** HogQL's property access on a JSON String column: the expression each column stores. */
export function propertyExpression(source: string, key: string): string {
  return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${source}, ${sqlString(key)}), ''), 'null'), '^"|"$', '')`;
}

/** The longest person property key that may get a column. */
export const MAX_PERSON_KEY_LENGTH = 200;

/**
 * `pmat_<key>`: PostHog's name for a person property's column on events (characters outside
 * `[0-9a-zA-Z$]` become `_`, so `a.b` and `a-b` would share one name; see `checkPersonKeys`).
 */
export function personColumnName(key: string): string {
  return `pmat_${key.replace(/[^0-9a-zA-Z$]/g, '_')}`;
}

/**
 * Why `key` cannot have a column, or undefined. The key is written into DDL (the column's
 * expression and comment), escaped; quotes, backslashes, backticks and control characters are
 * refused anyway so that no key needs it, and commas because the setting is a comma list.
 */
export function personKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'a person property key cannot be empty';
  if (key.length > MAX_PERSON_KEY_LENGTH)
    return `person property key is longer than ${MAX_PERSON_KEY_LENGTH} characters: "${key.slice(0, 40)}…"`;
  if (/[\p{C}'"`\\,]/u.test(key))
    return `person property key "${key}" has a character that is not allowed (quotes, backslash, backtick, comma or a control character)`;
  if (key.trim() !== key) return `person property key "${key}" starts or ends with white space`;
  return undefined;
}

/**
 * Keys checked one by one and against each other: two keys whose columns would have the same name
 * are refused (one column cannot hold both). Returns the keys without duplicates.
 */
export function checkPersonKeys(keys: readonly string[]): string[] {
  const byColumn = new Map<string, string>();
  for (const key of keys) {
    const problem = personKeyProblem(key);
    if (problem) throw new Error(problem);
    const column = personColumnName(key);
    const other = byColumn.get(column);
    if (other !== undefined && other !== key)
      throw new Error(
        `person properties "${other}" and "${key}" would both use the column ${column}; materialize only one of them`,
      );
    byColumn.set(column, key);
  }
  return [...byColumn.values()];
}
