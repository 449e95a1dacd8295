import type pg from 'pg';
import { StepFailure, type TestStep } from '../../domain/batch-exports/destinations/types.js';
import { BlockedHostError, type NetworkPolicy } from '../network.js';
import { connectPostgres } from './postgres-connect.js';
import { ident } from './postgres-sql.js';

const CONNECTION = ['host', 'user', 'password', 'database'];

async function withClient<T>(
  config: Record<string, unknown>,
  policy: NetworkPolicy,
  fn: (c: pg.Client) => Promise<T>,
) {
  let client: pg.Client;
  try {
    client = await connectPostgres(config, policy);
  } catch (error) {
    if (error instanceof BlockedHostError) throw new StepFailure(error.message);
    throw new StepFailure(`Could not connect to PostgreSQL at '${config.host}': ${(error as Error).message}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Connect, check the schema, then the table: its privileges if it exists, else create and drop a test one. */
export function postgresSteps(policy: NetworkPolicy): TestStep[] {
  return [
    {
      name: 'Establish connection to PostgreSQL',
      description: 'Connect to the PostgreSQL server with the credentials provided.',
      needs: CONNECTION,
      run: (config) => withClient(config, policy, async (c) => void (await c.query('SELECT 1'))),
    },
    {
      name: 'Verify PostgreSQL schema',
      description: 'Check that the schema exists and can be used.',
      needs: [...CONNECTION, 'schema'],
      run: (config) =>
        withClient(config, policy, async (c) => {
          const schema = String(config.schema);
          const { rows } = await c.query<{ usable: boolean | null }>(
            'SELECT has_schema_privilege(oid, $2) AS usable FROM pg_namespace WHERE nspname = $1',
            [schema, 'USAGE'],
          );
          if (rows.length === 0) throw new StepFailure(`Schema '${schema}' does not exist`);
          if (!rows[0]!.usable) throw new StepFailure(`Missing USAGE permission on schema '${schema}'`);
        }),
    },
    {
      name: 'Verify PostgreSQL table',
      description: 'Check that the table can be written to, or that a table can be created in the schema.',
      needs: [...CONNECTION, 'schema', 'table_name'],
      run: (config) =>
        withClient(config, policy, async (c) => {
          const schema = String(config.schema);
          const table = String(config.table_name);
          const { rows } = await c.query<{ ins: boolean; upd: boolean }>(
            `SELECT has_table_privilege(c.oid, 'INSERT') AS ins, has_table_privilege(c.oid, 'UPDATE') AS upd
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
            [schema, table],
          );
          if (rows.length > 0) {
            if (!rows[0]!.ins || !rows[0]!.upd) {
              throw new StepFailure(`Missing INSERT or UPDATE permission on table '${schema}.${table}'`);
            }
            return;
          }
          const probe = `${ident(schema)}.${ident(`${table}_burrow_test_${Date.now().toString(36)}`)}`;
          try {
            await c.query(`CREATE TABLE ${probe} (id integer PRIMARY KEY)`);
            await c.query(`INSERT INTO ${probe} VALUES (1)`);
          } catch (error) {
            throw new StepFailure(
              `Could not create a table in schema '${schema}': ${(error as Error).message}`,
            );
          } finally {
            await c.query(`DROP TABLE IF EXISTS ${probe}`).catch(() => {});
          }
        }),
    },
  ];
}
