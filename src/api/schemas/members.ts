import { Type } from 'typebox';
import type { MemberRecord } from '../../store/meta/members.js';
import { DateTime, NullableDateTime, toUserBasic, UserBasic, Uuid } from './common.js';

export const Member = Type.Object({
  id: Uuid,
  user: UserBasic,
  level: Type.Integer({ description: '1 member, 8 admin, 15 owner' }),
  joined_at: DateTime,
  updated_at: DateTime,
  last_login: NullableDateTime,
  is_2fa_enabled: Type.Boolean(),
  has_social_auth: Type.Boolean(),
});

export function toMember(m: MemberRecord) {
  return {
    id: m.id,
    user: toUserBasic(m.user),
    level: m.level,
    joined_at: m.joinedAt,
    updated_at: m.updatedAt,
    last_login: m.user.lastLogin,
    is_2fa_enabled: false,
    has_social_auth: false,
  };
}
