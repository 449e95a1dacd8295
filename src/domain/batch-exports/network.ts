import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { validationError } from '../errors.js';

/**
 * SSRF protection for destinations: unless private networks are allowed, a destination host must
 * resolve only to public addresses. Checked when an export is saved and again before every
 * connection (a name can be repointed in between).
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

function isPrivate(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  return blocked.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

export interface NetworkPolicy {
  allowPrivate: boolean;
}

export class BlockedHostError extends Error {}

/** Throws BlockedHostError when `host` resolves to an address the policy forbids. */
export async function assertHostAllowed(policy: NetworkPolicy, host: string): Promise<void> {
  if (policy.allowPrivate) return;
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    throw new BlockedHostError(`Destination host '${host}' could not be resolved`);
  }
  if (addresses.some(isPrivate)) {
    throw new BlockedHostError(
      `Destination host '${host}' is on a private network; set BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS=true to allow it`,
    );
  }
}

/** The same check at save time, as a validation error on `destination`. */
export async function validateHost(policy: NetworkPolicy, host: string): Promise<void> {
  try {
    await assertHostAllowed(policy, host);
  } catch (error) {
    if (error instanceof BlockedHostError) throw validationError(error.message, 'destination');
    throw error;
  }
}
