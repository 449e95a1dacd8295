import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { FieldSpecs } from '../../domain/batch-exports/destinations/config.js';
import type { Destination, Writer } from '../../domain/batch-exports/destinations/types.js';
import { type NetworkPolicy, validateHost } from '../network.js';
import { connectPostgres } from './postgres-connect.js';
import {
  copyInto,
  copyText,
  createStage,
  createTable,
  ident,
  latestPerKey,
  mergeStage,
} from './postgres-sql.js';
import { postgresSteps } from './postgres-steps.js';

export const POSTGRES_FIELDS: FieldSpecs = {
  user: { type: 'str', required: true, secret: true },
  password: { type: 'str', required: true, secret: true },
  host: { type: 'str', required: true },
  database: { type: 'str', required: true },
  schema: { type: 'str', default: 'public' },
  table_name: { type: 'str', default: 'events' },
  port: { type: 'int', default: 5432 },
  has_self_signed_cert: { type: 'bool', default: false },
};

async function copy(client: pg.Client, statement: string, text: string): Promise<void> {
  const stream = client.query(copyFrom(statement));
  await new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
    stream.end(text);
  });
}

export function postgresDestination(policy: NetworkPolicy): Destination {
  return {
    fields: POSTGRES_FIELDS,
    async validate(config) {
      if (typeof config.host === 'string') await validateHost(policy, config.host);
      return undefined;
    },
    steps: postgresSteps(policy),
    async open(config, ctx): Promise<Writer> {
      const client = await connectPostgres(config, policy);
      const target = `${ident(String(config.schema))}.${ident(String(config.table_name))}`;
      const stage = ident(`burrow_stage_${ctx.runId.replace(/-/g, '')}`);
      const abort = () => client.end().catch(() => {});
      ctx.signal.addEventListener('abort', abort, { once: true });
      try {
        await client.query(createTable(target, ctx.schema));
        await client.query(createStage(stage, ctx.schema));
      } catch (error) {
        await abort();
        throw error;
      }
      return {
        async write(rows) {
          const text = copyText(latestPerKey(rows, ctx.schema), ctx.schema);
          await client.query('BEGIN');
          try {
            await client.query(`TRUNCATE ${stage}`);
            await copy(client, copyInto(stage, ctx.schema), text);
            await client.query(mergeStage(stage, target, ctx.schema));
            await client.query('COMMIT');
          } catch (error) {
            await client.query('ROLLBACK').catch(() => {});
            throw error;
          }
          return Buffer.byteLength(text);
        },
        async close() {
          ctx.signal.removeEventListener('abort', abort);
          await client.end();
          return 0;
        },
        abort,
      };
    },
  };
}
