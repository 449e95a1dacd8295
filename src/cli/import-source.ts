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
  return { ok: true, line, event: e };
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
