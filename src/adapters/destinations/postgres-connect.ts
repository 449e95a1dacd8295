import { isIP } from 'node:net';
import type pg from 'pg';
import {
  assertHostAllowed,
  checkedAddresses,
  isSocketPath,
  type NetworkPolicy,
  pinsConnections,
} from '../network.js';

/**
 * A client for the destination. The host is resolved and checked once, and the client connects
 * to that checked address (so the name cannot be repointed in between); TLS is still verified
 * against the host name.
 */
export async function connectPostgres(
  config: Record<string, unknown>,
  policy: NetworkPolicy,
): Promise<pg.Client> {
  const host = String(config.host);
  let address = host;
  // A socket directory (`/var/run/postgresql`) has nothing to resolve: allowed or refused whole.
  if (isSocketPath(host)) await assertHostAllowed(policy, host);
  else if (pinsConnections(policy)) {
    const [first] = await checkedAddresses(policy, host);
    address = first!.address;
  }
  const servername = isIP(host.replace(/^\[|\]$/g, '')) ? undefined : host;
  const { default: pgClient } = await import('pg');
  const client = new pgClient.Client({
    host: address,
    port: Number(config.port ?? 5432),
    user: String(config.user),
    password: String(config.password),
    database: String(config.database),
    ...(config.has_self_signed_cert ? { ssl: { rejectUnauthorized: false, servername } } : {}),
    connectionTimeoutMillis: 10_000,
    application_name: 'burrow-batch-export',
  });
  // A dropped connection must fail the run, not crash the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}
