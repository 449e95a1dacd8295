import { Type } from 'typebox';
import type { ActionRecord } from '../../store/meta/actions.js';
import type { UserRecord } from '../../store/meta/users.js';
import { DateTime, Nullable, NullableDateTime, ProjectIdParams, toUserBasic, UserBasic } from './common.js';

export const ActionIdParams = Type.Object({
  ...ProjectIdParams.properties,
  id: Type.String({ maxLength: 20 }),
});

const Matching = Nullable(Type.String({ enum: ['contains', 'regex', 'exact'] }));

export const ActionStep = Type.Object({
  event: Nullable(Type.String()),
  properties: Type.Array(Type.Unknown(), { description: 'Property filters, all of which must hold' }),
  selector: Nullable(Type.String({ description: 'CSS selector over the autocaptured elements' })),
  tag_name: Nullable(Type.String()),
  text: Nullable(Type.String()),
  text_matching: Matching,
  href: Nullable(Type.String()),
  href_matching: Matching,
  url: Nullable(Type.String({ description: 'Matched against `$current_url`' })),
  url_matching: Matching,
});

export const Action = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  post_to_slack: Type.Boolean(),
  slack_message_format: Type.String(),
  steps: Type.Array(ActionStep),
  created_at: DateTime,
  created_by: Nullable(UserBasic),
  deleted: Type.Boolean(),
  is_calculating: Type.Boolean(),
  last_calculated_at: DateTime,
  team_id: Type.Integer(),
  is_action: Type.Literal(true),
  bytecode_error: Type.Null(),
  pinned_at: NullableDateTime,
});

const ActionFields = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
  description: Type.Optional(Type.String({ maxLength: 100_000 })),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
  post_to_slack: Type.Optional(Type.Boolean()),
  slack_message_format: Type.Optional(Type.String({ maxLength: 1200 })),
  steps: Type.Optional(
    Type.Unknown({ description: 'A list of steps; an event matches the action when it matches any step' }),
  ),
  deleted: Type.Optional(Type.Boolean()),
  pinned_at: Type.Optional(Nullable(Type.String())),
  _create_in_folder: Type.Optional(Type.String({ maxLength: 400, description: 'Accepted and ignored' })),
};
export const ActionBody = Type.Object(ActionFields, { additionalProperties: false });

export function toAction(a: ActionRecord, createdBy: UserRecord | null) {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    tags: a.tags,
    post_to_slack: a.postToSlack,
    slack_message_format: a.slackMessageFormat,
    steps: a.steps.map((s) => ({
      event: s.event ?? null,
      properties: Array.isArray(s.properties) ? s.properties : [],
      selector: s.selector ?? null,
      tag_name: s.tag_name ?? null,
      text: s.text ?? null,
      text_matching: s.text_matching ?? null,
      href: s.href ?? null,
      href_matching: s.href_matching ?? null,
      url: s.url ?? null,
      url_matching: s.url_matching ?? null,
    })),
    created_at: a.createdAt,
    created_by: createdBy ? toUserBasic(createdBy) : null,
    deleted: a.deleted,
    is_calculating: false,
    last_calculated_at: a.lastCalculatedAt,
    team_id: a.teamId,
    is_action: true as const,
    bytecode_error: null,
    pinned_at: a.pinnedAt,
  };
}
