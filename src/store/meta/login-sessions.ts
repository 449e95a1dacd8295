import type { MetaDb } from './db.js';
import { toRecord as toUser, type UserRecord } from './users.js';

export async function insertSession(
  db: MetaDb,
  session: { id: string; userId: number; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('login_sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    })
    .execute();
}

/** The user of a session that has not expired at `now`. */
export async function findSessionUser(db: MetaDb, id: string, now: string): Promise<UserRecord | undefined> {
  const row = await db
    .selectFrom('login_sessions as s')
    .innerJoin('users', 'users.id', 's.user_id')
    .selectAll('users')
    .where('s.id', '=', id)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  return row && toUser(row);
}

export async function deleteSession(db: MetaDb, id: string): Promise<void> {
  await db.deleteFrom('login_sessions').where('id', '=', id).execute();
}

export async function deleteExpiredSessions(db: MetaDb, now: string): Promise<void> {
  await db.deleteFrom('login_sessions').where('expires_at', '<=', now).execute();
}

export async function setLastLogin(db: MetaDb, userId: number, at: string): Promise<void> {
  await db.updateTable('users').set({ last_login: at }).where('id', '=', userId).execute();
}

/** Every session of a user but one (a password change keeps the session that made it). */
export async function deleteUserSessions(db: MetaDb, userId: number, keep?: string): Promise<void> {
  let query = db.deleteFrom('login_sessions').where('user_id', '=', userId);
  if (keep) query = query.where('id', '!=', keep);
  await query.execute();
}
