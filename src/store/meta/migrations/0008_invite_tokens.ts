import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * `token_hash`: SHA-256 (hex) of the secret an invite email carries; accepting an invite needs the
 * secret itself. Invites made before this migration have none and cannot be accepted: invite again.
 */
export async function up(db: Kysely<unknown>, _t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('organization_invites').addColumn('token_hash', 'text').execute();
}
