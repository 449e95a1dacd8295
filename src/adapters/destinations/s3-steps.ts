import { randomUUID } from 'node:crypto';
import { StepFailure, type TestStep } from '../../domain/batch-exports/destinations/types.js';
import { BlockedHostError, type NetworkPolicy } from '../network.js';
import { MissingKeysError, objectKey, type S3Options, s3Client, s3sdk } from './s3-client.js';

const statusOf = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

async function client(config: Record<string, unknown>, policy: NetworkPolicy, options: S3Options) {
  try {
    return await s3Client(config, policy, options);
  } catch (error) {
    if (error instanceof BlockedHostError || error instanceof MissingKeysError)
      throw new StepFailure(error.message);
    throw error;
  }
}

/** PostHog's bucket check, then a test object written under the prefix and removed again. */
export function s3Steps(policy: NetworkPolicy, options: S3Options): TestStep[] {
  return [
    {
      name: 'Check S3 bucket exists',
      description:
        'Ensure the configured S3 bucket exists and that we have the required permissions to access it.',
      needs: ['bucket_name', 'region'],
      async run(config, signal) {
        const bucket = String(config.bucket_name);
        const s3 = await client(config, policy, options);
        try {
          await s3.send(new (await s3sdk()).HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
        } catch (error) {
          const status = statusOf(error);
          if (status === 404)
            throw new StepFailure(`Bucket '${bucket}' does not exist or we don't have permissions to use it`);
          if (status === 403) {
            throw new StepFailure(
              `We couldn't access bucket '${bucket}'. Check the provided credentials, endpoint, and whether the necessary permissions to access the bucket have been granted`,
            );
          }
          throw new StepFailure(
            `An unknown error occurred when trying to access bucket '${bucket}': ${(error as Error).message}`,
          );
        } finally {
          s3.destroy();
        }
      },
    },
    {
      name: 'Write a test object to S3',
      description: 'Write a small object under the configured prefix, then delete it.',
      needs: ['bucket_name', 'region', 'prefix'],
      async run(config, signal) {
        const sdk = await s3sdk();
        const s3 = await client(config, policy, options);
        const Bucket = String(config.bucket_name);
        const Key = objectKey(String(config.prefix), `burrow-test-${randomUUID()}.txt`);
        try {
          await s3.send(new sdk.PutObjectCommand({ Bucket, Key, Body: 'burrow batch export test' }), {
            abortSignal: signal,
          });
          await s3.send(new sdk.DeleteObjectCommand({ Bucket, Key }), { abortSignal: signal });
        } catch (error) {
          throw new StepFailure(
            `Could not write a test object to bucket '${Bucket}': ${(error as Error).message}`,
          );
        } finally {
          s3.destroy();
        }
      },
    },
  ];
}
