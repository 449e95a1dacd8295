import { type ColumnType, sql } from 'kysely';
import { bool, iso, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { likePattern } from './insights.js';

export interface LlmPromptsTable {
  id: string;
  team_id: number;
  name: string;
  version: number;
  prompt: ColumnType<unknown, string, string>;
  deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
  created_at: ColumnType<Date | string, string, string>;
  created_by: number | null;
}

declare module './tables.js' {
  interface MetaTables {
    llm_prompts: LlmPromptsTable;
  }
}

export interface LlmPromptRecord {
  id: string;
  teamId: number;
  name: string;
  version: number;
  prompt: unknown;
  deleted: boolean;
  createdAt: string;
  createdBy: number | null;
}

type Row = {
  id: string;
  team_id: number;
  name: string;
  version: number;
  prompt: unknown;
  deleted: boolean | number;
  created_at: Date | string;
  created_by: number | null;
};

const toPrompt = (r: Row): LlmPromptRecord => ({
  id: r.id,
  teamId: r.team_id,
  name: r.name,
  version: Number(r.version),
  prompt: JSON.parse(String(r.prompt)),
  deleted: bool(r.deleted),
  createdAt: iso(r.created_at),
  createdBy: r.created_by,
});

export async function insertPromptVersion(
  db: MetaDb,
  p: Omit<LlmPromptRecord, 'deleted'>,
): Promise<LlmPromptRecord> {
  await db
    .insertInto('llm_prompts')
    .values({
      id: p.id,
      team_id: p.teamId,
      name: p.name,
      version: p.version,
      prompt: toJson(p.prompt),
      created_at: p.createdAt,
      created_by: p.createdBy,
    })
    .execute();
  return { ...p, deleted: false };
}

/** Every live version of a name, newest first. */
export async function promptVersions(db: MetaDb, teamId: number, name: string): Promise<LlmPromptRecord[]> {
  const rows = await db
    .selectFrom('llm_prompts')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('name', '=', name)
    .where('deleted', '=', false)
    .orderBy('version', 'desc')
    .execute();
  return rows.map((r) => toPrompt(r as Row));
}

/** The highest version a name ever had, deleted ones included (versions are never reused). */
export async function highestVersion(db: MetaDb, teamId: number, name: string): Promise<number> {
  const row = await db
    .selectFrom('llm_prompts')
    .select((eb) => eb.fn.max('version').as('v'))
    .where('team_id', '=', teamId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(row?.v ?? 0);
}

export async function promptById(
  db: MetaDb,
  teamId: number,
  id: string,
): Promise<LlmPromptRecord | undefined> {
  const row = await db
    .selectFrom('llm_prompts')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return row && toPrompt(row as Row);
}

/** The latest version of each live name, by name; with the count of its versions. */
export async function latestPrompts(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number; search?: string | undefined },
): Promise<{ count: number; results: Array<LlmPromptRecord & { versionCount: number }> }> {
  let names = db
    .selectFrom('llm_prompts')
    .select((eb) => ['name', eb.fn.max('version').as('latest'), eb.fn.countAll().as('n')])
    .where('team_id', '=', teamId)
    .where('deleted', '=', false)
    .groupBy('name');
  if (page.search)
    names = names.where(sql<boolean>`lower(name) like ${likePattern(page.search)} escape '\\'`);
  const all = await names.orderBy('name').execute();
  const slice = all.slice(page.offset, page.offset + page.limit);
  const results: Array<LlmPromptRecord & { versionCount: number }> = [];
  for (const n of slice) {
    const row = await db
      .selectFrom('llm_prompts')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('name', '=', n.name)
      .where('version', '=', Number(n.latest))
      .executeTakeFirst();
    if (row) results.push({ ...toPrompt(row as Row), versionCount: Number(n.n) });
  }
  return { count: all.length, results };
}

/** Deleting a prompt deletes every version of its name (PostHog's archive of the prompt). */
export async function deletePromptName(db: MetaDb, teamId: number, name: string): Promise<void> {
  await db
    .updateTable('llm_prompts')
    .set({ deleted: true })
    .where('team_id', '=', teamId)
    .where('name', '=', name)
    .execute();
}
