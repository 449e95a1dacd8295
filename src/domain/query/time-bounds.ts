import { DateTime } from 'luxon';
import { call, compare, constant, type Expr, field } from '../../hogql/ast.js';
import { parseDate } from '../time/relative-date.js';
import type { RunnerContext } from './context.js';

/** How far past "now" a list shows by default, so events with a slightly fast clock still appear. */
const FUTURE_SLACK_MS = 5_000;

/** An instant as a HogQL DateTime64 in UTC, to the millisecond. */
export function instantExpr(at: DateTime | Date): Expr {
  const dt = at instanceof Date ? DateTime.fromJSDate(at) : at;
  const text = `${dt.toUTC().toFormat('yyyy-LL-dd HH:mm:ss.SSS')}000`;
  return call('toDateTime64', [constant(text), constant(6), constant('UTC')]);
}

/**
 * PostHog's `before`/`after` of the list kinds, both exclusive: `before` defaults to now + 5 s,
 * `after` to `-24h`, and `after: "all"` drops the lower bound. Relative dates (`-7d`, `-1mStart`)
 * and ISO dates without an offset are read in the project timezone.
 */
export function timeBounds(
  column: string,
  range: { before?: string | undefined; after?: string | undefined },
  ctx: Pick<RunnerContext, 'timezone' | 'now'>,
): Expr[] {
  const parse = (text: string, attr: string) =>
    parseDate(text, { timezone: ctx.timezone, now: ctx.now, attr }).at;
  const before = range.before
    ? parse(range.before, 'before')
    : DateTime.fromMillis(ctx.now.getTime() + FUTURE_SLACK_MS);
  const out: Expr[] = [compare('<', field(column), instantExpr(before))];
  const after = range.after || '-24h';
  if (after !== 'all') out.push(compare('>', field(column), instantExpr(parse(after, 'after'))));
  return out;
}

/** Refuses a `before`/`after` that is no date (400 naming the field), before anything runs. */
export function checkBounds(range: { before?: string | undefined; after?: string | undefined }): void {
  const probe = { timezone: 'UTC', now: new Date() };
  if (range.before) parseDate(range.before, { ...probe, attr: 'before' });
  if (range.after && range.after !== 'all') parseDate(range.after, { ...probe, attr: 'after' });
}

/**
 * Staleness of a list: `minute` like any query without a date range, except that a list ending
 * in the past (an explicit `before`) never goes stale.
 */
export function listStaleness(node: { [key: string]: unknown }, team: { timezone: string; now: Date }) {
  const before = typeof node.before === 'string' && node.before ? node.before : null;
  return {
    interval: 'minute' as const,
    dateTo: before ? parseDate(before, { timezone: team.timezone, now: team.now }).at.toJSDate() : null,
  };
}
