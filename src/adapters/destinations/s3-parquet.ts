import type { ExportColumn, ExportRow, RowSchema } from '../../domain/batch-exports/destinations/types.js';
import type { Encoder } from './s3-encode.js';

/** Arrow and the Parquet writer (WebAssembly) load on first use. */
const libs = async () => ({ arrow: await import('apache-arrow'), pq: await import('parquet-wasm') });
type Libs = Awaited<ReturnType<typeof libs>>;

function arrowType(arrow: Libs['arrow'], c: ExportColumn) {
  switch (c.kind) {
    case 'integer':
    case 'bigint':
      return new arrow.Int64();
    case 'float':
      return new arrow.Float64();
    case 'bool':
      return new arrow.Bool();
    case 'timestamp':
      return new arrow.TimestampMicrosecond('UTC');
    default:
      return new arrow.Utf8();
  }
}

function column(arrow: Libs['arrow'], c: ExportColumn, rows: ExportRow[]) {
  const values = rows.map((r) => {
    const v = r[c.name];
    if (v === null || v === undefined) return null;
    if (c.kind === 'integer' || c.kind === 'bigint') return BigInt(v as number);
    if (c.kind === 'timestamp') return new Date(v as string);
    if (c.kind === 'float') return Number(v);
    return v;
  });
  return arrow.vectorFromArray(values, arrowType(arrow, c) as never);
}

/**
 * One Parquet file streamed out row group by row group (one per page), so a window of any size is
 * never held whole. Timestamps are written to the millisecond.
 */
export async function parquetEncoder(
  schema: RowSchema,
  compression: string | null,
  rowGroupRows: number,
  out: (b: Buffer) => Promise<void>,
): Promise<Encoder> {
  const { arrow, pq } = await libs();
  const codec = {
    zstd: pq.Compression.ZSTD,
    lz4: pq.Compression.LZ4_RAW,
    snappy: pq.Compression.SNAPPY,
    gzip: pq.Compression.GZIP,
    brotli: pq.Compression.BROTLI,
  }[compression ?? ''];
  let props = new pq.WriterPropertiesBuilder().setMaxRowGroupSize(rowGroupRows);
  if (codec !== undefined) props = props.setCompression(codec);
  const queue: unknown[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const input = new ReadableStream({
    async pull(controller) {
      while (queue.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
      if (queue.length > 0) controller.enqueue(queue.shift());
      else controller.close();
    },
  });
  const output = pq.transformParquetStream(input, props.build());
  const pump = (async () => {
    for await (const chunk of (await output) as unknown as AsyncIterable<Uint8Array>)
      await out(Buffer.from(chunk));
  })();
  pump.catch(() => {});
  return {
    async write(rows) {
      const table = new arrow.Table(
        Object.fromEntries(schema.columns.map((c) => [c.name, column(arrow, c, rows)])),
      );
      queue.push(...pq.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')).recordBatches());
      wake?.();
      // Back-pressure: the next page waits until the writer has taken this one.
      while (queue.length > 0 && !ended) await new Promise((r) => setImmediate(r));
    },
    async end() {
      ended = true;
      wake?.();
      await pump;
    },
    abort() {
      ended = true;
      queue.length = 0;
      wake?.();
    },
  };
}
