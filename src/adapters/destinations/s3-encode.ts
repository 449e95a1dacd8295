import type { ExportRow, RowSchema } from '../../domain/batch-exports/destinations/types.js';
import { jsonLinesEncoder } from './s3-jsonl.js';
import { parquetEncoder } from './s3-parquet.js';

/** Turns pages of rows into one file's bytes, handed to `out` as they are produced. */
export interface Encoder {
  write(rows: ExportRow[]): Promise<void>;
  end(): Promise<void>;
  abort(): void;
}

export const FILE_FORMATS = ['Parquet', 'JSONLines'];
export const COMPRESSIONS: Record<string, string[]> = {
  JSONLines: ['gzip', 'brotli'],
  Parquet: ['zstd', 'lz4', 'snappy', 'gzip', 'brotli'],
};

export function fileExtension(format: string, compression: string | null): string {
  if (format === 'Parquet')
    return compression ? `.parquet.${compression === 'zstd' ? 'zst' : compression}` : '.parquet';
  return `.jsonl${compression === 'gzip' ? '.gz' : compression === 'brotli' ? '.br' : ''}`;
}

export function encoder(
  format: string,
  compression: string | null,
  schema: RowSchema,
  rowGroupRows: number,
  out: (b: Buffer) => Promise<void>,
): Promise<Encoder> | Encoder {
  return format === 'Parquet'
    ? parquetEncoder(schema, compression, rowGroupRows, out)
    : jsonLinesEncoder(schema, compression, out);
}
