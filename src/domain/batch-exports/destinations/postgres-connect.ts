import pg from 'pg';
import { assertHostAllowed, type NetworkPolicy } from '../network.js';

/** A client for the destination, after the host passed the network policy. */
export async function connectPostgres(
  config: Record<string, unknown>,
  policy: NetworkPolicy,
): Promise<pg.Client> {
  await assertHostAllowed(policy, String(config.host));
  const client = new pg.Client({
    host: String(config.host),
    port: Number(config.port ?? 5432),
    user: String(config.user),
    password: String(config.password),
    database: String(config.database),
    ...(config.has_self_signed_cert ? { ssl: { rejectUnauthorized: false } } : {}),
    connectionTimeoutMillis: 10_000,
    application_name: 'burrow-batch-export',
  });
  // A dropped connection must fail the run, not crash the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}
