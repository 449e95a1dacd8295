/**
 * The `SET` statements a chDB statement is prefixed with: its settings and its query parameters.
 *
 * chDB's bound calls (`queryBindAsync`, what the connection uses for `query_params`) are serialised
 * by the package through one process-wide chain (a workaround for an engine race), so one
 * project's long bound query held every other project's bound query, on any session
 * (bench/engine-facts.ts). `SET param_<name> = '<text>'` puts the parameter on the session's own
 * context instead: sessions stay independent and nothing is chained. The value travels exactly
 * as ClickHouse's HTTP interface carries `param_<name>` (the text form the engine parses for the
 * placeholder's type), inside a quoted string literal, so binding stays type-checked by the engine
 * and injection-safe. Settings and parameters stick to a chDB session, so every statement sets all
 * of its own (a parameter it does not use keeps another statement's value but is never read:
 * only Burrow's code writes placeholders).
 */

export type SettingValue = string | number | boolean;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A ClickHouse string literal: only `\` and `'` can end it; both are escaped. */
export function stringLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A string in ClickHouse's escaped text form (how the engine reads a parameter's value). */
function escapedText(value: string): string {
  return value.replace(/[\\\t\n\r']/g, (c) =>
    c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\${c}`,
  );
}

/**
 * A parameter value as text, by the rules of @clickhouse/client's HTTP `param_*` encoding: strings
 * bare at the top level and quoted inside arrays, tuples and maps; null as `\N` (NULL inside).
 */
export function paramText(value: unknown, nested = false): string {
  if (value === null || value === undefined) return nested ? 'NULL' : '\\N';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (value === Number.POSITIVE_INFINITY) return '+inf';
    if (value === Number.NEGATIVE_INFINITY) return '-inf';
    return String(value);
  }
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return nested ? (value ? 'TRUE' : 'FALSE') : value ? '1' : '0';
  if (typeof value === 'string') return nested ? `'${escapedText(value)}'` : escapedText(value);
  if (value instanceof Date) {
    const seconds = String(Math.floor(value.getTime() / 1000)).padStart(10, '0');
    const ms = value.getUTCMilliseconds();
    return ms === 0 ? seconds : `${seconds}.${String(ms).padStart(3, '0')}`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => paramText(v, true)).join(',')}]`;
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
  return `{${entries.map(([k, v]) => `${paramText(k, true)}:${paramText(v, true)}`).join(',')}}`;
}

function settingText(value: SettingValue): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`invalid setting value ${value}`);
    return String(value);
  }
  return stringLiteral(value);
}

/** The parser's own limit for one statement; raised when a statement's parameters need more. */
const MIN_QUERY_SIZE = 1_048_576;

/** `SET ...; ` statements (ending in a separator) that give `settings` and `params` to the next statement. */
export function settingsPrefix(
  settings: Readonly<Record<string, SettingValue>>,
  params: Readonly<Record<string, unknown>> | undefined,
): string {
  const assignments: string[] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (!NAME.test(name)) throw new Error(`invalid setting name ${JSON.stringify(name)}`);
    assignments.push(`${name} = ${settingText(value)}`);
  }
  for (const [name, value] of Object.entries(params ?? {})) {
    if (!NAME.test(name)) throw new Error(`invalid query parameter name ${JSON.stringify(name)}`);
    assignments.push(`param_${name} = ${stringLiteral(paramText(value))}`);
  }
  const set = `SET ${assignments.join(', ')}`;
  // The SET itself is parsed under max_query_size: a large IN list as parameters needs room.
  const size = Math.max(MIN_QUERY_SIZE, Buffer.byteLength(set) * 2 + 1024);
  return `SET max_query_size = ${size}; ${set}; `;
}
