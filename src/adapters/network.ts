import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validationError } from '../errors.js';
import { isForbiddenAddress } from './network-ranges.js';

/**
 * SSRF protection for destinations: unless private networks are allowed, a destination host must
 * resolve only to public addresses. Checked when an export is saved, and by every connection
 * itself, which goes to the address it checked (a name can be repointed at any moment).
 */
export interface NetworkPolicy {
  allowPrivate: boolean;
  /** DNS_SERVERS: resolve destination hosts with these servers instead of the system's resolver. */
  dnsServers?: string[] | undefined;
}

export class BlockedHostError extends Error {}

export interface Address {
  address: string;
  family: 4 | 6;
}

const resolvers = new Map<string, Resolver>();
function resolverFor(servers: string[]): Resolver {
  const key = servers.join(',');
  let r = resolvers.get(key);
  if (!r) {
    r = new Resolver({ timeout: 5000, tries: 2 });
    r.setServers(servers);
    resolvers.set(key, r);
  }
  return r;
}

async function resolve(policy: NetworkPolicy, host: string): Promise<Address[]> {
  if (isIP(host)) return [{ address: host, family: isIP(host) as 4 | 6 }];
  if (policy.dnsServers?.length) {
    const r = resolverFor(policy.dnsServers);
    const [v4, v6] = await Promise.all([r.resolve4(host).catch(() => []), r.resolve6(host).catch(() => [])]);
    const found = [
      ...v4.map((address) => ({ address, family: 4 as const })),
      ...v6.map((address) => ({ address, family: 6 as const })),
    ];
    if (found.length > 0) return found;
    // Names the servers do not know (`localhost`, /etc/hosts entries) go to the system resolver.
  }
  return (await lookup(host, { all: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
}

/**
 * The addresses `host` resolves to now, every one allowed by the policy, or BlockedHostError.
 * A connection must go to one of these very addresses (see pinnedLookup): resolving the name a
 * second time could answer differently (DNS rebinding).
 */
export async function checkedAddresses(policy: NetworkPolicy, host: string): Promise<Address[]> {
  assertNotSocket(policy, host);
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: Address[];
  try {
    addresses = await resolve(policy, bare);
  } catch {
    throw new BlockedHostError(`Destination host '${host}' could not be resolved`);
  }
  if (!policy.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new BlockedHostError(
      `Destination host '${host}' is on a private network; set BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS=true to allow it`,
    );
  }
  return addresses;
}

/** Whether `host` names a Unix socket directory (PostgreSQL's `/var/run/postgresql`) rather than a host. */
export const isSocketPath = (host: string) => host.startsWith('/');

/**
 * A Unix socket reaches this machine's own services (PostgreSQL as its local superuser, say):
 * only when private networks are allowed.
 */
function assertNotSocket(policy: NetworkPolicy, host: string): void {
  if (isSocketPath(host) && !policy.allowPrivate) {
    throw new BlockedHostError(
      `Destination host '${host}' is a Unix socket on this machine; set BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS=true to allow it`,
    );
  }
}

/** Throws BlockedHostError when `host` resolves to an address the policy forbids (or is a socket path it forbids). */
export async function assertHostAllowed(policy: NetworkPolicy, host: string): Promise<void> {
  assertNotSocket(policy, host);
  if (isSocketPath(host)) return;
  if (policy.allowPrivate && !policy.dnsServers?.length) return;
  await checkedAddresses(policy, host);
}

/** Whether connections must resolve through checkedAddresses (else the system's resolver is fine). */
export const pinsConnections = (policy: NetworkPolicy) => !policy.allowPrivate || !!policy.dnsServers?.length;

type LookupCallback = (err: Error | null, address: string | Address[], family?: number) => void;

/**
 * A `lookup` for sockets (net, http, https agents): each connection resolves once, checks what
 * it got and connects to exactly that, so no answer reaches a socket unchecked.
 */
export function pinnedLookup(policy: NetworkPolicy) {
  return (host: string, options: { all?: boolean } | number, callback: LookupCallback) => {
    checkedAddresses(policy, host).then(
      (addresses) => {
        if (typeof options === 'object' && options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: Error) => callback(error, ''),
    );
  };
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
