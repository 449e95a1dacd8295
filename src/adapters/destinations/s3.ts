import type { FieldSpecs } from '../../domain/batch-exports/destinations/config.js';
import {
  type Destination,
  PermanentError,
  type Writer,
} from '../../domain/batch-exports/destinations/types.js';
import { validationError } from '../../errors.js';
import { type NetworkPolicy, validateHost } from '../network.js';
import { MissingKeysError, objectKey, type S3Options, s3Client, s3Keys } from './s3-client.js';
import { COMPRESSIONS, type Encoder, encoder, FILE_FORMATS, fileExtension } from './s3-encode.js';
import { s3Steps } from './s3-steps.js';
import { type ObjectSink, objectSink } from './s3-upload.js';

export const S3_FIELDS: FieldSpecs = {
  bucket_name: { type: 'str', required: true },
  region: { type: 'str', required: true },
  prefix: { type: 'str', required: true },
  aws_access_key_id: { type: 'str', secret: true, nullable: true },
  aws_secret_access_key: { type: 'str', secret: true, nullable: true },
  compression: { type: 'str', nullable: true },
  encryption: { type: 'str', nullable: true },
  kms_key_id: { type: 'str', nullable: true },
  endpoint_url: { type: 'str', nullable: true },
  file_format: { type: 'str', default: 'JSONLines' },
  max_file_size_mb: { type: 'int', nullable: true },
  use_virtual_style_addressing: { type: 'bool', default: false },
};

function validate(config: Record<string, unknown>) {
  const format = (config.file_format as string | undefined) ?? 'JSONLines';
  if (!FILE_FORMATS.includes(format)) {
    throw validationError(
      `File format ${format} is not supported. Supported file formats are ['Parquet', 'JSONLines']`,
      'destination',
    );
  }
  const compression = config.compression as string | null | undefined;
  const allowed = COMPRESSIONS[format]!;
  if (compression && !allowed.includes(compression)) {
    throw validationError(
      `Compression ${compression} is not supported for file format ${format}. Supported compressions are [${allowed.map((c) => `'${c}'`).join(', ')}]`,
      'destination',
    );
  }
  const empty = ['bucket_name', 'region'].filter((k) => config[k] === '');
  if (empty.length > 0) {
    throw validationError(
      `The following inputs are empty: [${empty.map((k) => `'${k}'`).join(', ')}]`,
      'destination',
    );
  }
  return config.endpoint_url === '' ? { ...config, endpoint_url: null } : config;
}

/**
 * The host of `endpoint_url`, or a 400: `new URL` throws on text that is no URL (`http://::1:9000`,
 * an IPv6 address without brackets), which reached the client as a 500.
 */
function endpointHost(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw validationError(
      `Invalid endpoint_url "${endpoint.slice(0, 200)}": not a URL (IPv6 addresses go in brackets: http://[::1]:9000).`,
      'destination',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw validationError(
      `Invalid endpoint_url: the scheme must be http or https, not ${url.protocol.replace(':', '')}.`,
      'destination',
    );
  }
  return url.hostname;
}

/**
 * Objects are named `{prefix}/{start}-{end}{ext}` (`-{n}` from the second file on when
 * `max_file_size_mb` splits a run), so a retried run overwrites what the failed attempt wrote.
 */
export function s3Destination(policy: NetworkPolicy, rowGroupRows: number, options: S3Options): Destination {
  return {
    fields: S3_FIELDS,
    async validate(config) {
      const checked = validate(config);
      try {
        s3Keys(checked, options);
      } catch (error) {
        if (error instanceof MissingKeysError) throw validationError(error.message, 'destination');
        throw error;
      }
      if (typeof checked.endpoint_url === 'string')
        await validateHost(policy, endpointHost(checked.endpoint_url));
      return checked;
    },
    steps: s3Steps(policy, options),
    async open(config, ctx): Promise<Writer> {
      const client = await s3Client(config, policy, options).catch((error) => {
        // No retry mends it: the export must be given keys (or the operator allow its own).
        throw error instanceof MissingKeysError ? new PermanentError(error.message) : error;
      });
      const format = String(config.file_format);
      const compression = (config.compression as string | null) ?? null;
      const limit = config.max_file_size_mb ? Number(config.max_file_size_mb) * 1024 * 1024 : Infinity;
      const extra: Record<string, unknown> = {};
      if (config.encryption) extra.ServerSideEncryption = config.encryption;
      if (config.kms_key_id) extra.SSEKMSKeyId = config.kms_key_id;
      const stem = `${ctx.dataIntervalStart ?? 'START'}-${ctx.dataIntervalEnd}`;
      let files = 0;
      let pushed = 0;
      let file: { sink: ObjectSink; enc: Encoder } | undefined;
      const next = async () => {
        const key = objectKey(
          String(config.prefix),
          `${stem}${files ? `-${files}` : ''}${fileExtension(format, compression)}`,
        );
        files++;
        const sink = objectSink(client, String(config.bucket_name), key, extra);
        const out = (b: Buffer) => {
          pushed += b.length;
          return sink.push(b);
        };
        return { sink, enc: await encoder(format, compression, ctx.schema, rowGroupRows, out) };
      };
      const seal = async () => {
        if (!file) return;
        await file.enc.end();
        await file.sink.finish();
        file = undefined;
      };
      return {
        async write(rows) {
          file ??= await next();
          const before = pushed;
          await file.enc.write(rows);
          if (file.sink.bytes >= limit) await seal();
          return pushed - before;
        },
        async close() {
          // An empty window still gets its (empty) file, so every run leaves a trace.
          if (!file && files === 0) file = await next();
          const before = pushed;
          await seal();
          client.destroy();
          return pushed - before;
        },
        async abort() {
          file?.enc.abort();
          await file?.sink.abort();
          client.destroy();
        },
      };
    },
  };
}
