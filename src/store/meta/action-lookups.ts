import { type ActionRecord, toAction } from './actions.js';
import type { MetaDb } from './db.js';

/** Reads of the `actions` table: one, several, by name, a page. */
/** Deleted actions are found too: insights may still name them and PATCH can restore them. */
export async function findAction(db: MetaDb, teamId: number, id: number): Promise<ActionRecord | undefined> {
  const row = await db
    .selectFrom('actions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toAction(row);
}

/** Several actions of one team at once (insights resolve every action they name in one read). */
export async function findActions(db: MetaDb, teamId: number, ids: number[]): Promise<ActionRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('actions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', 'in', ids)
    .execute();
  return rows.map(toAction);
}

/** A live action of the team with this name, other than `exceptId`. */
export async function actionNamed(
  db: MetaDb,
  teamId: number,
  name: string,
  exceptId: number | null,
): Promise<number | undefined> {
  let q = db
    .selectFrom('actions')
    .select('id')
    .where('team_id', '=', teamId)
    .where('name', '=', name)
    .where('deleted', '=', false);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return (await q.orderBy('id').executeTakeFirst())?.id;
}

/** Live actions, most recently calculated (i.e. created) first, then by name, as PostHog orders. */
export async function listActions(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: ActionRecord[] }> {
  const base = db.selectFrom('actions').where('team_id', '=', teamId).where('deleted', '=', false);
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('last_calculated_at', 'desc')
      .orderBy('name')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(counted.n), results: rows.map(toAction) };
}

/** Every live action of the team (web analytics' goals pick from them). */
export async function liveActions(db: MetaDb, teamId: number): Promise<ActionRecord[]> {
  const rows = await db
    .selectFrom('actions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('deleted', '=', false)
    .execute();
  return rows.map(toAction);
}

/** Live actions with `post_to_slack` on, of every project (what delivery matches events against). */
export async function slackActions(db: MetaDb): Promise<ActionRecord[]> {
  const rows = await db
    .selectFrom('actions')
    .selectAll()
    .where('post_to_slack', '=', true)
    .where('deleted', '=', false)
    .execute();
  return rows.map(toAction);
}
