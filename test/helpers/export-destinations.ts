import pg from 'pg';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
let counter = 0;

export interface DestinationDb {
  name: string;
  /** A Postgres destination config reaching it (trust auth: the password is not checked). */
  config: Record<string, unknown>;
  query<T extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<T[]>;
  drop(): Promise<void>;
}

/** A fresh database on the machine's PostgreSQL to export into; dropped by `drop()`. */
export async function createDestinationDb(): Promise<DestinationDb> {
  const name = `burrow_export_test_${process.pid}_${counter++}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${name}` });
  await client.connect();
  return {
    name,
    config: { host: '127.0.0.1', port: 5432, user: 'postgres', password: 'unused', database: name },
    async query(text, values) {
      return (await client.query(text, values)).rows;
    },
    async drop() {
      await client.end();
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
