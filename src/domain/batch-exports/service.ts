import { notFound, validationError } from '../../errors.js';
import { latestRuns, type RunRecord } from '../../store/meta/batch-export-runs.js';
import {
  type BatchExportRecord,
  type ExportScope,
  findBatchExport,
  insertBatchExport,
  listBatchExports,
  updateBatchExport,
} from '../../store/meta/batch-exports.js';
import { isUuid, newUuid } from '../ids.js';
import type { ExportDeps } from './deps.js';
import { checkConfig, splitSecrets } from './destinations/config.js';
import { resolveOffset } from './offsets.js';
import { exportWindowStart } from './schedule.js';
import type { DestinationType, Interval } from './types.js';
import { checkFields, destinationType, type ExportInput } from './validate.js';

export type { ExportScope };

/** An export and its 10 most recent runs, as the API shows it. */
export interface ExportView {
  record: BatchExportRecord;
  latestRuns: RunRecord[];
}

export async function getExport(
  deps: ExportDeps,
  scope: ExportScope,
  id: string,
): Promise<BatchExportRecord> {
  const record = isUuid(id) ? await findBatchExport(deps.meta, id.toLowerCase(), scope) : undefined;
  if (!record) throw notFound();
  return record;
}

export async function viewExport(deps: ExportDeps, record: BatchExportRecord): Promise<ExportView> {
  const runs = await latestRuns(deps.meta, [record.id], 10);
  return { record, latestRuns: runs.get(record.id) ?? [] };
}

export async function listExports(
  deps: ExportDeps,
  scope: ExportScope,
  page: { limit: number; offset: number },
) {
  const { count, results } = await listBatchExports(deps.meta, scope, page);
  const runs = await latestRuns(
    deps.meta,
    results.map((r) => r.id),
    10,
  );
  return { count, results: results.map((record) => ({ record, latestRuns: runs.get(record.id) ?? [] })) };
}

/** Type-specific rules on the complete config (after merging with what is stored). */
async function checkDestination(
  deps: ExportDeps,
  type: DestinationType,
  config: Record<string, unknown>,
  model: string,
) {
  const complete = checkConfig(config, deps.destinations[type].fields, true);
  return (await deps.destinations[type].validate?.(complete, model)) ?? complete;
}

export async function createExport(
  deps: ExportDeps,
  team: { id: number },
  input: ExportInput,
): Promise<ExportView> {
  const f = checkFields(input, true);
  const type = destinationType(input.destination?.type);
  const model = f.model ?? 'events';
  const config = await checkDestination(deps, type, input.destination?.config ?? {}, model);
  const id = newUuid();
  const now = deps.now();
  const { open, secret } = splitSecrets(config, deps.destinations[type].fields);
  const interval = f.interval as Interval;
  const tz = f.timezone ?? 'UTC';
  const offset = resolveOffset(interval, { day: f.offsetDay, hour: f.offsetHour }, null);
  const from = f.startAt && f.startAt > now.toISOString() ? new Date(f.startAt) : now;
  const record: BatchExportRecord = {
    id,
    teamId: team.id,
    name: f.name as string,
    model,
    interval,
    timezone: tz,
    paused: input.paused ?? false,
    pausedReason: null,
    deleted: false,
    destinationType: type,
    destinationConfig: open,
    destinationSecrets: deps.secrets.seal(id, secret),
    hogqlQuery: f.hogql?.hogqlQuery ?? null,
    schema: f.hogql?.schema ?? null,
    filters: f.filters ?? null,
    startAt: f.startAt ?? null,
    endAt: f.endAt ?? null,
    createdAt: now.toISOString(),
    lastUpdatedAt: now.toISOString(),
    lastPausedAt: f.lastPausedAt ?? null,
    nextWindowStart: exportWindowStart(from, interval, tz, offset).toISOString(),
    consecutiveFailures: 0,
    intervalOffset: offset,
  };
  await insertBatchExport(deps.meta, record);
  return { record, latestRuns: [] };
}

/** The stored config with its secrets, as a run or a merge needs it. */
export function fullConfig(deps: ExportDeps, record: BatchExportRecord): Record<string, unknown> {
  return { ...record.destinationConfig, ...deps.secrets.open(record.id, record.destinationSecrets) };
}

/** PATCH (and PUT): destination config is merged into what is stored, so secrets may be left out. */
export async function updateExport(deps: ExportDeps, scope: ExportScope, id: string, input: ExportInput) {
  const existing = await getExport(deps, scope, id);
  const f = checkFields(input, false);
  const now = deps.now().toISOString();
  const patch: Partial<BatchExportRecord> = { lastUpdatedAt: now };
  if (f.name !== undefined) patch.name = f.name;
  if (f.model !== undefined) patch.model = f.model;
  if (f.startAt !== undefined) patch.startAt = f.startAt;
  if (f.endAt !== undefined) patch.endAt = f.endAt;
  if (f.lastPausedAt !== undefined) patch.lastPausedAt = f.lastPausedAt;
  if (f.filters !== undefined) patch.filters = f.filters;
  if (f.hogql !== undefined) {
    patch.hogqlQuery = f.hogql?.hogqlQuery ?? null;
    patch.schema = f.hogql?.schema ?? null;
  }
  const interval = (f.interval ?? existing.interval) as Interval;
  const tz = f.timezone ?? existing.timezone;
  const offsetGiven = f.offsetDay !== undefined || f.offsetHour !== undefined;
  const offset = resolveOffset(interval, { day: f.offsetDay, hour: f.offsetHour }, existing.intervalOffset);
  if (f.interval !== undefined || f.timezone !== undefined || offsetGiven) {
    patch.interval = interval;
    patch.timezone = tz;
    patch.intervalOffset = offset;
    // Realigned on the new windows; the part of a window already exported is sent again.
    patch.nextWindowStart = exportWindowStart(
      new Date(existing.nextWindowStart),
      interval,
      tz,
      offset,
    ).toISOString();
  }
  const type = existing.destinationType as DestinationType;
  if (input.destination !== undefined || f.model !== undefined) {
    const wanted = input.destination?.type === undefined ? type : destinationType(input.destination.type);
    if (wanted !== type) {
      throw validationError(
        `Cannot change destination type from '${type}' to '${wanted}'. Delete this batch export and create a new one with the new destination type.`,
        'destination',
      );
    }
    const fields = deps.destinations[type].fields;
    const incoming = checkConfig(input.destination?.config ?? {}, fields, false);
    const merged = { ...fullConfig(deps, existing), ...incoming };
    const config = await checkDestination(deps, type, merged, patch.model ?? existing.model);
    const { open, secret } = splitSecrets(config, fields);
    patch.destinationConfig = open;
    patch.destinationSecrets = deps.secrets.seal(existing.id, secret);
  }
  if (input.paused !== undefined && input.paused !== existing.paused) {
    Object.assign(patch, input.paused ? pausePatch(now) : unpausePatch(existing, deps.now(), interval, tz));
  }
  await updateBatchExport(deps.meta, existing.id, patch);
  return viewExport(deps, { ...existing, ...patch });
}

export function pausePatch(now: string): Partial<BatchExportRecord> {
  return { paused: true, lastPausedAt: now, lastUpdatedAt: now, pausedReason: null };
}

/** Windows missed while paused are skipped: the schedule resumes at the window holding now. */
export function unpausePatch(existing: BatchExportRecord, now: Date, interval: Interval, tz: string) {
  const resume = exportWindowStart(now, interval, tz, existing.intervalOffset).toISOString();
  return {
    paused: false,
    pausedReason: null,
    consecutiveFailures: 0,
    lastUpdatedAt: now.toISOString(),
    nextWindowStart: resume > existing.nextWindowStart ? resume : existing.nextWindowStart,
  } satisfies Partial<BatchExportRecord>;
}
