import type { Catalog } from './catalog.js';
import { type Draft, eventIs } from './draft.js';
import type { Analysis } from './prompt.js';
import type { Resolved } from './resolve.js';
import { slug } from './text.js';
import { bucket, defaultWindow, type Window, windowCondition } from './window.js';

/** Query shapes over `events`: counts, series, breakdowns and raw rows. */
export interface TemplateInput {
  a: Analysis;
  r: Resolved;
  catalog: Catalog;
}

export function metric(a: Analysis, r: Resolved): [expr: string, alias: string] {
  if (r.aggregate) return [r.aggregate.expr, r.aggregate.alias];
  if (a.metric === 'users') return ['count(DISTINCT person_id)', a.active ? 'active_users' : 'users'];
  if (a.metric === 'sessions') return ['count(DISTINCT $session_id)', 'session_count'];
  const [only] = r.events;
  return ['count()', only && r.events.length === 1 ? `${slug(only, 'event')}_count` : 'event_count'];
}

export function when(window: Window | undefined, fallback: Window, column = 'timestamp'): string[] {
  const c = windowCondition(window ?? fallback, column);
  return c ? [c] : [];
}

const as = (c: { field: string; alias: string }) =>
  c.field === c.alias ? c.field : `${c.field} AS ${c.alias}`;

export const MONTH: Window = { kind: 'last', n: 30, unit: 'day' };

/** Event and property conditions, with "but not X" as a NOT IN. */
export function filters(r: Resolved): string[] {
  const out = r.events.length ? [eventIs(r.events)] : [];
  if (r.excluded.length) out.push(`NOT (${eventIs(r.excluded)})`);
  return [...out, ...r.conditions];
}

export function timeSeries({ a, r }: TemplateInput): Draft {
  const g = a.granularity ?? 'day';
  const [m, alias] = metric(a, r);
  const by = r.breakdown;
  return {
    select: [`${bucket(g, 'timestamp')} AS ${g}`, ...(by ? [as(by)] : []), `${m} AS ${alias}`],
    from: 'events',
    where: [...filters(r), ...when(a.window, defaultWindow(g))],
    groupBy: [g, ...(by ? [by.alias] : [])],
    orderBy: [g, ...(by ? [by.alias] : [])],
  };
}

export function breakdown({ a, r }: TemplateInput, by: { field: string; alias: string }): Draft {
  const [m, alias] = metric(a, { ...r, events: by.field === 'event' ? [] : r.events });
  return {
    select: [as(by), `${m} AS ${alias}`],
    from: 'events',
    where: [...filters(r), ...when(a.window, MONTH)],
    groupBy: [by.alias],
    orderBy: [`${alias} DESC`],
    limit: a.limit ?? (/\btop\b/.test(a.raw) ? 10 : 100),
  };
}

export function recent({ a, r }: TemplateInput): Draft {
  return {
    select: ['timestamp', 'event', 'distinct_id', 'properties'],
    from: 'events',
    where: [...filters(r), ...when(a.window, MONTH)],
    orderBy: ['timestamp DESC'],
    limit: a.limit ?? 100,
  };
}

export function count({ a, r }: TemplateInput): Draft {
  const [m, alias] = metric(a, r);
  const several = r.events.length > 1;
  return {
    select: several ? ['event', `${m} AS ${alias}`] : [`${m} AS ${alias}`],
    from: 'events',
    where: [...filters(r), ...when(a.window, MONTH)],
    ...(several ? { groupBy: ['event'], orderBy: [`${alias} DESC`] } : {}),
  };
}
