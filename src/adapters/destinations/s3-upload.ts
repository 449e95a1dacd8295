import type { S3Client } from '@aws-sdk/client-s3';
import { s3sdk } from './s3-client.js';

/** S3's smallest part (except the last) is 5 MiB; parts of 8 MiB keep memory low and requests few. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * One object written as it is produced: bytes are buffered up to a part, parts go up as a multipart
 * upload; an object smaller than one part is a single PutObject. `abort` leaves no partial object.
 */
export function objectSink(client: S3Client, bucket: string, key: string, extra: Record<string, unknown>) {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let uploadId: string | undefined;
  const parts: Array<{ ETag: string | undefined; PartNumber: number }> = [];
  let total = 0;

  const flushPart = async () => {
    const sdk = await s3sdk();
    const body = Buffer.concat(chunks);
    chunks = [];
    buffered = 0;
    if (!uploadId) {
      const created = await client.send(
        new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ...extra }),
      );
      uploadId = created.UploadId;
    }
    const PartNumber = parts.length + 1;
    const part = await client.send(
      new sdk.UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: body }),
    );
    parts.push({ ETag: part.ETag, PartNumber });
  };

  return {
    get bytes() {
      return total;
    },
    async push(chunk: Buffer) {
      if (chunk.length === 0) return;
      chunks.push(chunk);
      buffered += chunk.length;
      total += chunk.length;
      if (buffered >= PART_BYTES) await flushPart();
    },
    async finish() {
      const sdk = await s3sdk();
      if (!uploadId) {
        const body = Buffer.concat(chunks);
        await client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ...extra }));
        return;
      }
      if (buffered > 0) await flushPart();
      await client.send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    },
    async abort() {
      if (!uploadId) return;
      const sdk = await s3sdk();
      await client
        .send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
        .catch(() => {});
    },
  };
}

export type ObjectSink = ReturnType<typeof objectSink>;
