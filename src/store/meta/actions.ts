import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { countDestinationWrite } from './local-writes.js';

/** One step of an action, as PostHog's ActionStepJSON (every field optional). */
export interface ActionStep {
  event?: string | null;
  properties?: unknown[] | null;
  selector?: string | null;
  tag_name?: string | null;
  text?: string | null;
  text_matching?: 'contains' | 'regex' | 'exact' | null;
  href?: string | null;
  href_matching?: 'contains' | 'regex' | 'exact' | null;
  url?: string | null;
  url_matching?: 'contains' | 'regex' | 'exact' | null;
}

export interface ActionRecord {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  tags: string[];
  postToSlack: boolean;
  slackMessageFormat: string;
  steps: ActionStep[];
  deleted: boolean;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
  lastCalculatedAt: string;
  pinnedAt: string | null;
}

export type NewAction = Omit<ActionRecord, 'id'>;
export type ActionPatch = Partial<Omit<ActionRecord, 'id' | 'teamId' | 'createdAt' | 'createdBy'>>;

type Row = {
  id: number;
  team_id: number;
  name: string | null;
  description: string;
  tags: unknown;
  post_to_slack: boolean | number;
  slack_message_format: string;
  steps: unknown;
  deleted: boolean | number;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
  last_calculated_at: Date | string;
  pinned_at: Date | string | null;
};

export function toAction(row: Row): ActionRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    description: row.description,
    tags: json<string[]>(row.tags) ?? [],
    postToSlack: bool(row.post_to_slack),
    slackMessageFormat: row.slack_message_format,
    steps: json<ActionStep[]>(row.steps) ?? [],
    deleted: bool(row.deleted),
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    updatedAt: iso(row.updated_at),
    lastCalculatedAt: iso(row.last_calculated_at),
    pinnedAt: isoOrNull(row.pinned_at),
  };
}

export async function insertAction(db: MetaDb, a: NewAction): Promise<ActionRecord> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    const row = await db
      .insertInto('actions')
      .values({
        team_id: a.teamId,
        name: a.name,
        description: a.description,
        tags: toJson(a.tags),
        post_to_slack: a.postToSlack,
        slack_message_format: a.slackMessageFormat,
        steps: toJson(a.steps),
        deleted: a.deleted,
        created_at: a.createdAt,
        created_by: a.createdBy,
        updated_at: a.updatedAt,
        last_calculated_at: a.lastCalculatedAt,
        pinned_at: a.pinnedAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAction(row);
  } finally {
    countDestinationWrite();
  }
}

export async function updateAction(
  db: MetaDb,
  teamId: number,
  id: number,
  patch: ActionPatch,
): Promise<ActionRecord | undefined> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    const set: Record<string, unknown> = {};
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.tags !== undefined) set.tags = toJson(patch.tags);
    if (patch.postToSlack !== undefined) set.post_to_slack = patch.postToSlack;
    if (patch.slackMessageFormat !== undefined) set.slack_message_format = patch.slackMessageFormat;
    if (patch.steps !== undefined) set.steps = toJson(patch.steps);
    if (patch.deleted !== undefined) set.deleted = patch.deleted;
    if (patch.pinnedAt !== undefined) set.pinned_at = patch.pinnedAt;
    if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
    const row = await db
      .updateTable('actions')
      .set(set)
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toAction(row);
  } finally {
    countDestinationWrite();
  }
}
