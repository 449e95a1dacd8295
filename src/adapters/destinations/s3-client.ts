import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import type { S3Client } from '@aws-sdk/client-s3';
import { assertHostAllowed, type NetworkPolicy, pinnedLookup, pinsConnections } from '../network.js';

/** The AWS SDK is loaded on first use: most installations never export to S3. */
export const s3sdk = () => import('@aws-sdk/client-s3');

export interface S3Options {
  /**
   * BATCH_EXPORTS_S3_AMBIENT_CREDENTIALS: a destination without keys signs with this node's own
   * AWS credentials (the SDK's default chain: environment, profile, instance role). Off, every
   * destination must bring its keys: the node's credentials are the operator's, and a tenant
   * naming a bucket would otherwise act as the operator on it.
   */
  ambientCredentials: boolean;
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** The destination's keys: both or neither (neither only when ambient credentials are allowed). */
export function s3Keys(
  config: Record<string, unknown>,
  options: S3Options,
): { accessKeyId: string; secretAccessKey: string } | undefined {
  const accessKeyId = text(config.aws_access_key_id);
  const secretAccessKey = text(config.aws_secret_access_key);
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  if (!accessKeyId && !secretAccessKey && options.ambientCredentials) return undefined;
  throw new MissingKeysError(
    accessKeyId || secretAccessKey || !options.ambientCredentials
      ? 'aws_access_key_id and aws_secret_access_key are required: this server does not sign S3 requests with its own credentials.'
      : 'aws_access_key_id and aws_secret_access_key go together.',
  );
}

export class MissingKeysError extends Error {}

/**
 * A client for the configured bucket: AWS by region, or an S3-compatible store at `endpoint_url`
 * (path-style addressing unless `use_virtual_style_addressing`). Without keys in the config the
 * SDK's usual credential chain applies, only where the operator allowed it (`S3Options`).
 */
export async function s3Client(
  config: Record<string, unknown>,
  policy: NetworkPolicy,
  options: S3Options,
): Promise<S3Client> {
  // Before anything else: an export stored without keys (or before this rule) never falls back.
  const credentials = s3Keys(config, options);
  const { S3Client } = await s3sdk();
  const endpoint =
    typeof config.endpoint_url === 'string' && config.endpoint_url ? config.endpoint_url : undefined;
  if (endpoint) await assertHostAllowed(policy, new URL(endpoint).hostname);
  // Every socket the SDK opens resolves through the policy and connects to what it checked.
  const lookup = pinnedLookup(policy);
  const pinned = pinsConnections(policy) && {
    requestHandler: {
      httpAgent: new HttpAgent({ keepAlive: true, lookup } as HttpAgentOptions),
      httpsAgent: new HttpsAgent({ keepAlive: true, lookup } as HttpsAgentOptions),
    },
  };
  return new S3Client({
    region: String(config.region),
    ...(endpoint && { endpoint, forcePathStyle: !config.use_virtual_style_addressing }),
    ...(credentials && { credentials }),
    maxAttempts: 3,
    ...pinned,
  });
}

/** `prefix/` + name, without doubled slashes. */
export function objectKey(prefix: string, name: string): string {
  const clean = prefix.replace(/^\/+|\/+$/g, '');
  return clean ? `${clean}/${name}` : name;
}
