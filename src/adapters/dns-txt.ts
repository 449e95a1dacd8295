import { Resolver } from 'node:dns/promises';
import type { TxtLookup } from '../domain/organizations/org-domain-verify.js';

/**
 * TXT lookups through node's resolver (c-ares): the system's servers, or `servers` (DNS_SERVERS)
 * for private DNS and tests. One retry, so a dead server costs about three timeouts at most.
 */
export function txtLookup(servers: string[] | undefined, timeoutMs: number): TxtLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers(servers);
  return (name) => resolver.resolveTxt(name);
}
