import { validationError } from '../../errors.js';
import { listLogs, readMetrics } from '../../store/meta/hog-function-logs.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { getHogFunction } from './service.js';

const LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARN', 'ERROR'];

/** `-7d`, `-24h`, `-2w`, `-1m` or an ISO time; 400 otherwise. */
function timeOf(text: string | undefined, fallback: Date, now: Date, attr: string): Date {
  if (text === undefined || text === '') return fallback;
  const rel = /^-(\d{1,5})([hdwmy])$/.exec(text);
  if (rel) {
    const n = Number(rel[1]);
    const hours = { h: 1, d: 24, w: 24 * 7, m: 24 * 30, y: 24 * 365 }[rel[2] as 'h'] * n;
    return new Date(now.getTime() - hours * 3_600_000);
  }
  const at = new Date(text);
  if (Number.isNaN(at.getTime()))
    throw validationError(`'${text}' is not a date (use an ISO time or -7d)`, attr);
  return at;
}

/** `logs/`: the newest lines first, as PostHog's log entries. */
export async function functionLogs(
  deps: Deps,
  access: ProjectAccess,
  id: string,
  q: {
    limit?: number;
    level?: string;
    before?: string;
    after?: string;
    search?: string;
    instance_id?: string;
  },
) {
  const f = await getHogFunction(deps, access, id);
  const levels = q.level
    ? q.level
        .split(',')
        .map((l) => l.trim().toUpperCase())
        .filter(Boolean)
    : [];
  for (const l of levels)
    if (!LEVELS.includes(l)) throw validationError(`'${l}' is not a level (${LEVELS.join(', ')})`, 'level');
  const now = deps.now();
  const rows = await listLogs(deps.meta, f.id, {
    limit: q.limit ?? 50,
    levels,
    ...(q.before && { before: timeOf(q.before, now, now, 'before').toISOString() }),
    ...(q.after && { after: timeOf(q.after, now, now, 'after').toISOString() }),
    ...(q.search && { search: q.search }),
    ...(q.instance_id && { instanceId: q.instance_id }),
  });
  return {
    results: rows.map((r) => ({
      log_source_id: f.id,
      instance_id: r.instanceId,
      timestamp: r.timestamp,
      level: r.level,
      message: r.message,
    })),
  };
}

export interface MetricsQuery {
  after?: string;
  before?: string;
  interval?: 'hour' | 'day' | 'week';
  breakdown_by?: 'name' | 'kind';
  name?: string;
  kind?: string;
}

function bucketOf(hour: Date, interval: 'hour' | 'day' | 'week'): string {
  if (interval === 'hour') return `${hour.toISOString().slice(0, 13)}:00:00Z`;
  if (interval === 'day') return hour.toISOString().slice(0, 10);
  const d = new Date(Date.UTC(hour.getUTCFullYear(), hour.getUTCMonth(), hour.getUTCDate()));
  // Weeks start on Sunday, as ClickHouse's toStartOfWeek.
  d.setUTCDate(d.getUTCDate() - d.getUTCDay());
  return d.toISOString().slice(0, 10);
}

async function metricRows(deps: Deps, access: ProjectAccess, id: string, q: MetricsQuery) {
  const f = await getHogFunction(deps, access, id);
  const now = deps.now();
  const after = timeOf(q.after ?? '-7d', now, now, 'after');
  const before = timeOf(q.before, now, now, 'before');
  if (before.getTime() - after.getTime() > 400 * 86_400_000)
    throw validationError('The range may span 400 days at most', 'after');
  const names = q.name ? q.name.split(',') : null;
  const kinds = q.kind ? q.kind.split(',') : null;
  const hourStart = new Date(Math.floor(after.getTime() / 3_600_000) * 3_600_000);
  const rows = (await readMetrics(deps.meta, f.id, hourStart.toISOString(), before.toISOString())).filter(
    (r) => (!names || names.includes(r.name)) && (!kinds || kinds.includes(r.kind)),
  );
  return { rows, after, before };
}

/** `metrics/`: counts per interval, one series per metric name or kind (PostHog's app metrics). */
export async function functionMetrics(deps: Deps, access: ProjectAccess, id: string, q: MetricsQuery) {
  const interval = q.interval ?? 'day';
  const by = q.breakdown_by ?? 'kind';
  const { rows, after, before } = await metricRows(deps, access, id, q);
  const labels: string[] = [];
  const step = 3_600_000;
  for (let t = Math.floor(after.getTime() / step) * step; t < before.getTime(); t += step) {
    const label = bucketOf(new Date(t), interval);
    if (labels.at(-1) !== label) labels.push(label);
  }
  const index = new Map(labels.map((l, i) => [l, i]));
  const series = new Map<string, number[]>();
  for (const r of rows) {
    const key = by === 'name' ? r.name : r.kind;
    const values = series.get(key) ?? labels.map(() => 0);
    const i = index.get(bucketOf(new Date(r.hour), interval));
    if (i !== undefined) values[i] = (values[i] ?? 0) + r.count;
    series.set(key, values);
  }
  return { labels, series: [...series].map(([name, values]) => ({ name, values })) };
}

/** `metrics/totals/`: the same counts summed over the range. */
export async function functionMetricTotals(deps: Deps, access: ProjectAccess, id: string, q: MetricsQuery) {
  const by = q.breakdown_by ?? 'kind';
  const { rows } = await metricRows(deps, access, id, q);
  const totals: Record<string, number> = {};
  for (const r of rows) {
    const key = by === 'name' ? r.name : r.kind;
    totals[key] = (totals[key] ?? 0) + r.count;
  }
  return { totals };
}
