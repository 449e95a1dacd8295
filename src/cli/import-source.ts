import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';

/** One line of the input as an event, or why it was rejected. */
export type Parsed =
  | { ok: true; line: number; event: Record<string, unknown> }
  | { ok: false; line: number; reason: string };

function validate(line: number, value: unknown): Parsed {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, line, reason: 'not an object' };
  const e = value as Record<string, unknown>;
  if (typeof e.event !== 'string' || e.event === '') return { ok: false, line, reason: 'missing event' };
  if (e.distinct_id === undefined || e.distinct_id === null || e.distinct_id === '') {
    return { ok: false, line, reason: 'missing distinct_id' };
  }
  // A timestamp that does not parse would silently become "now" at capture: refuse the line.
  if (e.timestamp !== undefined && e.timestamp !== null && e.timestamp !== '' && !isTimestamp(e.timestamp)) {
    return {
      ok: false,
      line,
      reason: `invalid timestamp ${JSON.stringify(e.timestamp).slice(0, 60)} (use ISO 8601, e.g. 2026-10-01T12:00:00Z)`,
    };
  }
  return { ok: true, line, event: e };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** An ISO 8601 date or date-time that names a real instant. */
function isTimestamp(value: unknown): boolean {
  return typeof value === 'string' && ISO_DATE.test(value.trim()) && !Number.isNaN(Date.parse(value));
}

/** How many rows `readEvents` will yield (non-blank lines; CSV without its header), for progress. */
export async function countRows(path: string): Promise<number> {
  let rows = 0;
  let blank = true;
  for await (const chunk of createReadStream(path)) {
    for (const byte of chunk as Buffer) {
      if (byte === 10) {
        if (!blank) rows += 1;
        blank = true;
      } else if (byte !== 13 && byte !== 32 && byte !== 9) blank = false;
    }
  }
  if (!blank) rows += 1;
  return path.toLowerCase().endsWith('.csv') ? Math.max(0, rows - 1) : rows;
}

/** JSON Lines: one event object per line, blank lines skipped. */
async function* jsonLines(path: string): AsyncGenerator<Parsed> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const text of lines) {
    n += 1;
    if (text.trim() === '') continue;
    try {
      yield validate(n, JSON.parse(text));
    } catch {
      yield { ok: false, line: n, reason: 'invalid JSON' };
    }
  }
}

/**
 * CSV with a header: `event`, `distinct_id`, optional `timestamp` and `uuid`; a `properties` column
 * holds a JSON object, and `properties.<key>` columns set single properties.
 */
async function* csv(path: string): AsyncGenerator<Parsed> {
  const parser = createReadStream(path).pipe(parse({ columns: true, skip_empty_lines: true, bom: true }));
  let n = 1;
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    n += 1;
    const properties: Record<string, unknown> = {};
    const event: Record<string, unknown> = { properties };
    try {
      for (const [column, value] of Object.entries(record)) {
        if (value === '') continue;
        if (column === 'properties') Object.assign(properties, JSON.parse(value));
        else if (column.startsWith('properties.')) properties[column.slice('properties.'.length)] = value;
        else event[column] = value;
      }
      yield validate(n, event);
    } catch {
      yield { ok: false, line: n, reason: 'invalid properties JSON' };
    }
  }
}

export function readEvents(path: string): AsyncGenerator<Parsed> {
  return path.toLowerCase().endsWith('.csv') ? csv(path) : jsonLines(path);
}
