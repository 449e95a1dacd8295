/**
 * Reading an answer's rows. The engine counts `max_result_bytes` on its own columns, where a
 * constant (`repeat('x', 100)` in every row) is one value, so its JSON can still be large: the text
 * is measured before anything is parsed, and parsed a slice at a time, so one large answer never
 * holds the event loop for longer than a slice.
 */

/** Text parsed between two turns of the event loop. */
const SLICE_CHARS = 512 * 1024;

/** What the engine's own refusal looks like (code 396), so both are classified alike. */
export function resultTooLarge(limit: number, actual: number): Error {
  const mib = (n: number) => `${(n / 1024 ** 2).toFixed(2)} MiB`;
  return Object.assign(
    new Error(`Limit for result exceeded, max bytes: ${mib(limit)}, current bytes: ${mib(actual)}`),
    { code: '396', type: 'TOO_MANY_ROWS_OR_BYTES' },
  );
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** chDB's answer as bytes: refused by its length before it is decoded, else parsed in slices. */
export async function readBytes<T>(bytes: Uint8Array, limit: number): Promise<T[]> {
  if (limit > 0 && bytes.byteLength > limit) throw resultTooLarge(limit, bytes.byteLength);
  return parseLines<T>(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/** A server's answer through the client; `limit` 0 reads without a bound. */
export async function readRows<T>(result: { text(): Promise<string> }, limit: number): Promise<T[]> {
  const text = await result.text();
  if (limit > 0 && text.length > limit / 4) {
    // Counting bytes costs a pass over the text; below a quarter of the limit it cannot be over.
    const bytes = Buffer.byteLength(text);
    if (bytes > limit) throw resultTooLarge(limit, bytes);
  }
  return parseLines<T>(text);
}

/** One JSON value per line (JSONEachRow and its compact forms). */
async function parseLines<T>(text: string): Promise<T[]> {
  const rows: T[] = [];
  let start = 0;
  let sliceEnd = SLICE_CHARS;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) rows.push(JSON.parse(text.slice(start, end)) as T);
    start = end + 1;
    if (start > sliceEnd) {
      sliceEnd = start + SLICE_CHARS;
      await turn();
    }
  }
  return rows;
}

/**
 * chDB's raw error as the client shapes it (`code` the engine's number, `type` its name), with the
 * whole message: the client's own parsing stops at the first parenthesised upper-case word.
 */
export function engineError(error: unknown): Error {
  const text = error instanceof Error ? error.message : String(error);
  const parsed =
    /Code: (\d+)\. DB::Exception: (.*?)(?: \(([A-Z0-9_]+)\))?(?: \(version [^)]*\))?\.?\s*$/s.exec(text);
  if (!parsed) return error instanceof Error ? error : new Error(text);
  return Object.assign(new Error(parsed[2], { cause: error }), { code: parsed[1], type: parsed[3] ?? '' });
}
