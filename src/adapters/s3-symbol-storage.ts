import { createHmac } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ObjectStorage } from '../config.js';
import {
  MAX_SYMBOL_SET_BYTES,
  missing,
  type SymbolStorage,
  type UploadTarget,
} from '../domain/error-tracking/symbol-storage.js';
import { s3sdk } from './destinations/s3-client.js';

/** How long a presigned POST is valid: a CLI uploads a release's sets one after another. */
const POST_EXPIRY_SECONDS = 15 * 60;

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * An S3 presigned POST (Signature Version 4 over a POST policy): the bucket, exactly this key, at
 * most 100 MB, valid 15 minutes. Anyone holding the fields can upload that one object, nothing else.
 */
export function presignedPost(s3: ObjectStorage, key: string, now: Date): UploadTarget {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const credential = `${s3.accessKeyId}/${day}/${s3.region}/s3/aws4_request`;
  const policy = Buffer.from(
    JSON.stringify({
      expiration: new Date(now.getTime() + POST_EXPIRY_SECONDS * 1000).toISOString(),
      conditions: [
        { bucket: s3.bucket },
        { key },
        ['content-length-range', 0, MAX_SYMBOL_SET_BYTES],
        { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
        { 'x-amz-credential': credential },
        { 'x-amz-date': amzDate },
      ],
    }),
  ).toString('base64');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${s3.secretAccessKey}`, day), s3.region), 's3'),
    'aws4_request',
  );
  const url = s3.endpoint
    ? `${s3.endpoint}/${encodeURIComponent(s3.bucket)}`
    : `https://${s3.bucket}.s3.${s3.region}.amazonaws.com`;
  return {
    url,
    fields: {
      key,
      'x-amz-algorithm': 'AWS4-HMAC-SHA256',
      'x-amz-credential': credential,
      'x-amz-date': amzDate,
      policy,
      'x-amz-signature': createHmac('sha256', signingKey).update(policy).digest('hex'),
    },
  };
}

export function s3SymbolStorage(s3: ObjectStorage, now: () => Date): SymbolStorage {
  const keyOf = (teamId: number, id: string) => `${s3.symbolSetsFolder}/${teamId}/${id}`;
  let client: Promise<S3Client> | undefined;
  // The SDK is loaded on first use, as for batch exports.
  const sdk = () => {
    client ??= s3sdk().then(
      ({ S3Client }) =>
        new S3Client({
          region: s3.region,
          ...(s3.endpoint && { endpoint: s3.endpoint, forcePathStyle: true }),
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
          maxAttempts: 3,
        }),
    );
    return client;
  };
  return {
    kind: 's3',
    target: (teamId, id) => presignedPost(s3, keyOf(teamId, id), now()),
    async write(teamId, id, data) {
      const { PutObjectCommand } = await s3sdk();
      await (await sdk()).send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: keyOf(teamId, id), Body: data }),
      );
    },
    async read(teamId, id) {
      const { GetObjectCommand } = await s3sdk();
      try {
        const out = await (await sdk()).send(
          new GetObjectCommand({ Bucket: s3.bucket, Key: keyOf(teamId, id) }),
        );
        if (!out.Body) return undefined;
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async remove(teamId, id) {
      const { DeleteObjectCommand } = await s3sdk();
      await (await sdk()).send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: keyOf(teamId, id) }));
    },
  };
}
