import { type Draft, eventIs } from './draft.js';
import { MONTH, type TemplateInput, when } from './shapes-events.js';
import { bucket, defaultWindow } from './window.js';

/** Query shapes with a purpose of their own: session lengths, top pages, users who did X. */
const TIMES = /\b(at least|more than|over|fewer than|less than|at most)\s+(\d{1,6})\s+times?\b/;

export function sessionDuration({ a, r }: TemplateInput): Draft {
  const p = /\bp(\d{2})\b|\b(\d{2})(?:th)?\s+percentile\b/.exec(a.raw);
  const [agg, alias] = p
    ? [`quantile(0.${p[1] ?? p[2]})($session_duration)`, `p${p[1] ?? p[2]}_session_duration_seconds`]
    : /\bmedian\b/.test(a.raw)
      ? ['median($session_duration)', 'median_session_duration_seconds']
      : /\b(?:max|maximum|longest)\b/.test(a.raw)
        ? ['max($session_duration)', 'max_session_duration_seconds']
        : ['avg($session_duration)', 'avg_session_duration_seconds'];
  const where = when(a.window, defaultWindow(a.granularity), '$start_timestamp');
  // Sessions carry no event properties: "for Chrome users" narrows to sessions with such events.
  if (r.conditions.length) {
    const inner = [...r.conditions, ...when(a.window, defaultWindow(a.granularity))].join(' AND ');
    where.push(`session_id IN (SELECT $session_id FROM events WHERE ${inner})`);
  }
  const g = a.granularity;
  return {
    select: g ? [`${bucket(g, '$start_timestamp')} AS ${g}`, `${agg} AS ${alias}`] : [`${agg} AS ${alias}`],
    from: 'sessions',
    where,
    ...(g ? { groupBy: [g], orderBy: [g] } : {}),
  };
}

export function topPages({ a, r, catalog }: TemplateInput): Draft {
  const screens = /\bscreens\b/.test(a.raw);
  const has = (key: string) => catalog.properties.some((p) => p.key === key);
  const key = screens
    ? '$screen_name'
    : has('$pathname') || !has('$current_url')
      ? '$pathname'
      : '$current_url';
  const [m, alias] = a.metric === 'users' ? ['count(DISTINCT person_id)', 'visitors'] : ['count()', 'views'];
  const field = `properties.${key}`;
  return {
    select: [`${field} AS ${screens ? 'screen' : 'page'}`, `${m} AS ${alias}`],
    from: 'events',
    where: [
      eventIs([screens ? '$screen' : '$pageview']),
      `${field} IS NOT NULL`,
      ...when(a.window, MONTH),
      ...r.conditions,
    ],
    groupBy: [screens ? 'screen' : 'page'],
    orderBy: [`${alias} DESC`],
    limit: a.limit ?? 10,
  };
}

export function usersWho({ a, r }: TemplateInput): Draft {
  const did = r.events.length ? eventIs(r.events) : undefined;
  const having: string[] = [];
  if (r.excluded.length) having.push(`countIf(${eventIs(r.excluded)}) = 0`);
  const times = TIMES.exec(a.raw);
  const op = times
    ? { 'at least': '>=', 'more than': '>', over: '>', 'fewer than': '<', 'less than': '<', 'at most': '<=' }[
        times[1] as 'over'
      ]
    : undefined;
  if (did && (r.excluded.length || times)) having.unshift(`times ${op ?? '>'} ${times ? times[2] : 0}`);
  const where = [
    ...(did && r.excluded.length ? [eventIs([...r.events, ...r.excluded])] : did ? [did] : []),
    ...when(a.window, MONTH),
    ...r.conditions,
  ];
  return {
    select: [
      'person_id',
      'any(distinct_id) AS distinct_id',
      ...(did ? [`${r.excluded.length ? `countIf(${did})` : 'count()'} AS times`] : []),
      'min(timestamp) AS first_seen',
      'max(timestamp) AS last_seen',
    ],
    from: 'events',
    where,
    groupBy: ['person_id'],
    ...(having.length ? { having } : {}),
    orderBy: ['last_seen DESC'],
    limit: a.limit ?? 100,
  };
}
