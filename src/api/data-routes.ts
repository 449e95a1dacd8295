import type { FastifyInstance } from 'fastify';
import { scheduleCohortRecalculation } from '../domain/cohorts/cohorts.js';
import { startDeletionWorker } from '../domain/data-lifecycle/person-deletions.js';
import { scheduleRetention } from '../domain/data-lifecycle/retention-job.js';
import type { IngestPipeline } from '../domain/ingest/pipeline.js';
import type { Bus } from '../store/shared/bus.js';
import { cohortRoutes } from './cohorts.js';
import type { ApiOptions } from './context.js';
import { dataDeletionRoutes } from './data-deletions.js';
import { definitionRoutes } from './definitions.js';
import { eventRoutes } from './events.js';
import { groupRoutes } from './groups.js';
import { personRoutes } from './persons.js';

const PERSONS_DELETED = 'persons.deleted';

/**
 * The data resources (persons, events, definitions, groups, cohorts). Deleting persons tells every
 * node (through the bus) to drop the deleted distinct ids from its ingestion cache, so the next
 * event with one of them makes a new person instead of reusing the deleted one.
 */
export async function dataRoutes(
  app: FastifyInstance,
  { api, bus, pipeline }: { api: ApiOptions; bus: Bus; pipeline: IngestPipeline },
): Promise<void> {
  await bus.subscribe(PERSONS_DELETED, (raw) => {
    const m = raw as { team?: unknown; ids?: unknown };
    if (typeof m.team === 'number' && Array.isArray(m.ids)) pipeline.forget(m.team, m.ids.map(String));
  });
  const forgetDistinctIds = async (teamId: number, ids: string[]) => {
    pipeline.forget(teamId, ids);
    if (ids.length) await bus.publish(PERSONS_DELETED, { team: teamId, ids });
  };
  // Persons' events and recordings are deleted in the background (docs/persons-and-data.md).
  const deletions = startDeletionWorker(api.deps, {
    pollMs: 5_000,
    onError: (err) => app.log.error({ err }, 'background deletion failed'),
  });
  app.addHook('onClose', deletions.stop);
  await app.register(personRoutes, { ...api, forgetDistinctIds, wakeDeletions: deletions.wake });
  await app.register(dataDeletionRoutes, api);
  await app.register(eventRoutes, api);
  await app.register(definitionRoutes, api);
  await app.register(groupRoutes, api);
  const cohorts = scheduleCohortRecalculation(api.deps, {
    everyMs: 60_000,
    staleMs: 3_600_000,
    onError: (err) => app.log.error({ err }, 'cohort recalculation failed'),
  });
  app.addHook('onClose', cohorts.stop);
  // Retention periods (docs/persons-and-data.md), enforced hourly.
  const retention = scheduleRetention(api.deps, {
    everyMs: 3_600_000,
    onError: (err) => app.log.error({ err }, 'retention pass failed'),
  });
  app.addHook('onClose', retention.stop);
  await app.register(cohortRoutes, { ...api, recalculate: cohorts.request });
}
