import type { Redis } from 'ioredis';
import { type QueryStatus, runningKey, STATUS_TTL_MS, type StatusStore, statusKey } from './status.js';

/**
 * Statuses shared by every node. Redis expires keys on its own clock (20 minutes after the last
 * write); reads also honour `expiration_time` against the service clock, so both backends agree
 * when a test moves time.
 */
export function redisStatusStore(
  redis: Redis,
  prefix: string,
  now: () => Date = () => new Date(),
): StatusStore {
  const alive = (status: QueryStatus) =>
    !status.expiration_time || Date.parse(status.expiration_time) > now().getTime();
  return {
    kind: 'redis',
    async get(teamId, id) {
      const raw = await redis.get(prefix + statusKey(teamId, id));
      if (raw === null) return null;
      const status = JSON.parse(raw) as QueryStatus;
      return alive(status) ? status : null;
    },
    async set(status) {
      await redis.set(
        prefix + statusKey(status.team_id, status.id),
        JSON.stringify(status),
        'PX',
        STATUS_TTL_MS,
      );
    },
    async delete(teamId, id) {
      await redis.del(prefix + statusKey(teamId, id));
    },
    async markRunning(teamId, id, untilMs) {
      const ttl = Math.max(1, Math.min(STATUS_TTL_MS, untilMs - now().getTime()));
      await redis.set(prefix + runningKey(teamId, id), String(untilMs), 'PX', ttl);
    },
    async clearRunning(teamId, id) {
      await redis.del(prefix + runningKey(teamId, id));
    },
    async isRunning(teamId, id) {
      const raw = await redis.get(prefix + runningKey(teamId, id));
      return raw !== null && Number(raw) > now().getTime();
    },
    async close() {},
  };
}
