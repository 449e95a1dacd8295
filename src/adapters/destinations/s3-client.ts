import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import type { S3Client } from '@aws-sdk/client-s3';
import { assertHostAllowed, type NetworkPolicy, pinnedLookup, pinsConnections } from '../network.js';

/** The AWS SDK is loaded on first use: most installations never export to S3. */
export const s3sdk = () => import('@aws-sdk/client-s3');

/**
 * A client for the configured bucket: AWS by region, or an S3-compatible store at `endpoint_url`
 * (path-style addressing unless `use_virtual_style_addressing`). Without keys in the config the
 * SDK's usual credential chain applies.
 */
export async function s3Client(config: Record<string, unknown>, policy: NetworkPolicy): Promise<S3Client> {
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
  const keyId = config.aws_access_key_id;
  const secret = config.aws_secret_access_key;
  return new S3Client({
    region: String(config.region),
    ...(endpoint && { endpoint, forcePathStyle: !config.use_virtual_style_addressing }),
    ...(typeof keyId === 'string' &&
      typeof secret === 'string' && { credentials: { accessKeyId: keyId, secretAccessKey: secret } }),
    maxAttempts: 3,
    ...pinned,
  });
}

/** `prefix/` + name, without doubled slashes. */
export function objectKey(prefix: string, name: string): string {
  const clean = prefix.replace(/^\/+|\/+$/g, '');
  return clean ? `${clean}/${name}` : name;
}
