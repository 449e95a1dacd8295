import { notFound, validationError } from '../../errors.js';
import { and, compare, constant, type Expr, field } from '../../hogql/ast.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../ids.js';
import { parsePropertiesParam, runResourceQuery } from '../persons/hogql.js';
import { chainToElements } from '../query/elements-chain.js';
import { isoDateTime, parseJsonObject } from '../query/values.js';

export interface EventListFilter {
  event?: string | undefined;
  person_id?: string | undefined;
  distinct_id?: string | undefined;
  properties?: string | undefined;
  before?: string | undefined;
  after?: string | undefined;
  limit?: number | undefined;
}

export const DEFAULT_EVENTS = 100;
export const MAX_EVENTS = 1000;

/** An event as PostHog's events endpoint shows it. */
export interface EventOut {
  id: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  event: string;
  timestamp: string;
  person: null;
  elements: unknown[];
  elements_chain: string;
}

const COLUMNS = 'uuid, event, distinct_id, properties, timestamp, elements_chain';

const toEvent = (r: unknown[]): EventOut => {
  const chain = typeof r[5] === 'string' ? r[5] : '';
  return {
    id: String(r[0]),
    event: String(r[1]),
    distinct_id: String(r[2]),
    properties: parseJsonObject(r[3]),
    timestamp: String(isoDateTime(r[4], 'UTC')),
    person: null,
    elements: chain ? chainToElements(chain) : [],
    elements_chain: chain,
  };
};

function time(value: string | undefined, attr: string): Expr | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (value.length > 64 || Number.isNaN(ms))
    throw validationError(`Enter a valid date/time (ISO 8601): ${attr}.`, attr);
  return {
    node: 'Call',
    name: 'toDateTime64',
    args: [constant(new Date(ms).toISOString().replace('Z', '')), constant(6), constant('UTC')],
  } as Expr;
}

const text = (value: string | undefined, attr: string) => {
  if (value === undefined || value === '') return undefined;
  if (value.length > 1000) throw validationError('Ensure this field has no more than 1000 characters.', attr);
  return value;
};

/**
 * Events of the project, newest first, through HogQL (team-guarded like /query). Pages follow
 * PostHog: `next` repeats the query with `before` set to the last event's timestamp.
 */
export async function listEvents(
  deps: Deps,
  access: ProjectAccess,
  f: EventListFilter,
): Promise<{ results: EventOut[]; hasMore: boolean; limit: number }> {
  const limit = Math.min(f.limit ?? DEFAULT_EVENTS, MAX_EVENTS);
  const exprs: Expr[] = [];
  const event = text(f.event, 'event');
  if (event !== undefined) exprs.push(compare('==', field('event'), constant(event)));
  const distinctId = text(f.distinct_id, 'distinct_id');
  if (distinctId !== undefined) exprs.push(compare('==', field('distinct_id'), constant(distinctId)));
  if (f.person_id !== undefined && f.person_id !== '') {
    if (!isUuid(f.person_id)) throw validationError('person_id must be a person uuid.', 'person_id');
    exprs.push(
      compare(
        '==',
        { node: 'Call', name: 'toString', args: [field('person_id')] } as Expr,
        constant(f.person_id.toLowerCase()),
      ),
    );
  }
  const before = time(f.before, 'before');
  if (before) exprs.push(compare('<', field('timestamp'), before));
  const after = time(f.after, 'after');
  if (after) exprs.push(compare('>', field('timestamp'), after));
  const props = parsePropertiesParam(f.properties, 'events');
  if (props) exprs.push(props);
  const rows = await runResourceQuery(
    deps,
    access.team,
    `SELECT ${COLUMNS} FROM events WHERE {where} ORDER BY timestamp DESC, uuid DESC LIMIT {limit}`,
    { values: { limit: limit + 1 }, exprs: { where: exprs.length ? and(...exprs) : constant(true) } },
  );
  return { results: rows.slice(0, limit).map(toEvent), hasMore: rows.length > limit, limit };
}

export async function getEvent(deps: Deps, access: ProjectAccess, id: string): Promise<EventOut> {
  if (!isUuid(id)) throw notFound();
  const rows = await runResourceQuery(
    deps,
    access.team,
    `SELECT ${COLUMNS} FROM events WHERE toString(uuid) = {id} LIMIT 1`,
    { values: { id: id.toLowerCase() } },
  );
  const row = rows[0];
  if (!row) throw notFound();
  return toEvent(row);
}

/** Values of an event property (optionally for one event name), most frequent first. */
export async function eventPropertyValues(
  deps: Deps,
  access: ProjectAccess,
  q: { key: string; value?: string | undefined; event_name?: string[] | undefined },
): Promise<Array<{ name: unknown }>> {
  const exprs: Expr[] = [compare('!=', field('properties', q.key), constant(null))];
  if (q.value) {
    const like = `%${q.value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    exprs.push(compare('ilike', field('properties', q.key), constant(like)));
  }
  if (q.event_name?.length) {
    exprs.push(
      compare('in', field('event'), { node: 'Array', exprs: q.event_name.map((e) => constant(e)) } as Expr),
    );
  }
  // PostHog looks at recent events only, so the answer stays cheap on large projects.
  exprs.push(
    compare('>', field('timestamp'), {
      node: 'Call',
      name: 'minus',
      args: [
        { node: 'Call', name: 'now', args: [] },
        { node: 'Call', name: 'toIntervalDay', args: [constant(7)] },
      ],
    } as Expr),
  );
  const rows = await runResourceQuery(
    deps,
    access.team,
    'SELECT {prop} AS v, count() AS c FROM events WHERE {where} GROUP BY v ORDER BY c DESC LIMIT 100',
    {
      exprs: {
        where: and(...exprs),
        prop: { node: 'Call', name: 'toString', args: [field('properties', q.key)] } as Expr,
      },
    },
  );
  return rows.map((r) => ({ name: r[0] }));
}
