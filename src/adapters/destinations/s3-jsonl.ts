import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import type { ExportRow, RowSchema } from '../../domain/batch-exports/destinations/types.js';
import type { Encoder } from './s3-encode.js';

/**
 * JSON Lines, one object per row with the schema's columns in order. `json` columns hold JSON text
 * written by Burrow itself, so it is spliced in as is rather than parsed and printed again.
 */
export function jsonLine(schema: RowSchema): (row: ExportRow) => string {
  const parts = schema.columns.map((c, i) => ({
    name: c.name,
    json: c.kind === 'json',
    key: `${i ? ',' : '{'}${JSON.stringify(c.name)}:`,
  }));
  return (row) => {
    let out = '';
    for (const p of parts) {
      const v = row[p.name];
      out += p.key;
      if (v === null || v === undefined) out += 'null';
      else if (p.json && typeof v === 'string' && (v[0] === '{' || v[0] === '[')) out += v;
      else out += JSON.stringify(v);
    }
    return `${out}}\n`;
  };
}

/** Brotli's default quality (11) is far too slow for streaming exports; 5 is close in size at a fraction of the time. */
const compressor = (compression: string | null) =>
  compression === 'gzip'
    ? createGzip()
    : compression === 'brotli'
      ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
      : null;

export function jsonLinesEncoder(
  schema: RowSchema,
  compression: string | null,
  out: (b: Buffer) => Promise<void>,
): Encoder {
  const line = jsonLine(schema);
  const z = compressor(compression);
  const pending: Buffer[] = [];
  z?.on('data', (chunk: Buffer) => pending.push(chunk));
  const drain = async () => {
    while (pending.length > 0) await out(pending.shift()!);
  };
  return {
    async write(rows) {
      let text = '';
      for (const row of rows) text += line(row);
      if (!z) return out(Buffer.from(text));
      await new Promise<void>((resolve, reject) => z.write(text, (err) => (err ? reject(err) : resolve())));
      await drain();
    },
    async end() {
      if (!z) return;
      await new Promise<void>((resolve, reject) => {
        z.once('end', resolve);
        z.once('error', reject);
        z.end();
      });
      await drain();
    },
    abort() {
      z?.destroy();
    },
  };
}
