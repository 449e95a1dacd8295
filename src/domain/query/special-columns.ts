import { call, type Expr, field } from '../../hogql/ast.js';
import { parseExpr } from '../../hogql/parse.js';
import { chainToElements } from './elements-chain.js';
import { isoDateTime, parseJsonObject } from './values.js';

/**
 * The select items of the list kinds that are not plain HogQL: `*` (the row as one object), and
 * for events `person` (a person object looked up after the query) and `person_display_name`.
 * A trailing `-- label` comment is allowed on the special names.
 */
export const EVENT_STAR_FIELDS = [
  'uuid',
  'event',
  'properties',
  'timestamp',
  'team_id',
  'distinct_id',
  'elements_chain',
  'created_at',
] as const;

export const SESSION_STAR_FIELDS = [
  'session_id',
  'distinct_id',
  '$start_timestamp',
  '$end_timestamp',
  '$session_duration',
  '$entry_current_url',
  '$end_current_url',
  '$pageview_count',
  '$autocapture_count',
  '$screen_count',
  '$is_bounce',
] as const;

/** Person properties tried in order for a display name (PostHog's defaults). */
export const DISPLAY_NAME_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName'];

export const specialName = (text: string) => text.split('--')[0]?.trim() ?? '';

export const starTuple = (fields: readonly string[]): Expr => ({
  node: 'Tuple',
  exprs: fields.map((f) => field(f)),
});

/** `(coalesce(toString(<props>.email), …, <fallback>), toString(<id>))`. */
export function displayNameExpr(propsChain: string[], idChain: string[], fallback: Expr): Expr {
  const props = DISPLAY_NAME_PROPERTIES.map((key) => call('toString', [field(...propsChain, key)]));
  return {
    node: 'Tuple',
    exprs: [call('coalesce', [...props, fallback]), call('toString', [field(...idChain)])],
  };
}

export type ColumnKind = 'star' | 'person' | 'display_name' | 'plain';

export interface ExpandedColumns {
  /** The strings the default order looks at (`*` as its tuple, `person` as `distinct_id`). */
  input: string[];
  select: Expr[];
  kinds: ColumnKind[];
}

/** Expands the special names of an events list; everything else is parsed as HogQL. */
export function expandEventColumns(raw: string[]): ExpandedColumns {
  const out: ExpandedColumns = { input: [], select: [], kinds: [] };
  for (const text of raw) {
    const name = specialName(text);
    if (text === '*') {
      out.input.push(`tuple(${EVENT_STAR_FIELDS.join(', ')})`);
      out.select.push(starTuple(EVENT_STAR_FIELDS));
      out.kinds.push('star');
    } else if (name === 'person') {
      out.input.push('distinct_id');
      out.select.push(field('distinct_id'));
      out.kinds.push('person');
    } else if (name === 'person_display_name') {
      out.input.push(text);
      out.select.push(displayNameExpr(['person', 'properties'], ['person', 'id'], field('distinct_id')));
      out.kinds.push('display_name');
    } else {
      out.input.push(text);
      out.select.push(parseExpr(text));
      out.kinds.push('plain');
    }
  }
  return out;
}

/** `*` of an event as PostHog returns it: an object with parsed properties and the elements. */
export function eventStarObject(value: unknown, zone: string): Record<string, unknown> {
  const tuple = Array.isArray(value) ? value : [];
  const out: Record<string, unknown> = {};
  EVENT_STAR_FIELDS.forEach((name, i) => {
    out[name] = tuple[i];
  });
  out.properties = parseJsonObject(out.properties);
  out.timestamp = isoDateTime(out.timestamp, zone);
  out.created_at = isoDateTime(out.created_at, zone);
  if (typeof out.elements_chain === 'string' && out.elements_chain) {
    out.elements = chainToElements(out.elements_chain);
  }
  return out;
}

export function sessionStarObject(value: unknown, zone: string): Record<string, unknown> {
  const tuple = Array.isArray(value) ? value : [];
  const out: Record<string, unknown> = {};
  SESSION_STAR_FIELDS.forEach((name, i) => {
    out[name] = tuple[i];
  });
  out.$start_timestamp = isoDateTime(out.$start_timestamp, zone);
  out.$end_timestamp = isoDateTime(out.$end_timestamp, zone);
  return out;
}

/** `person_display_name` arrives as a (name, id) tuple. */
export function displayNameObject(value: unknown): { display_name: unknown; id: string } {
  const tuple = Array.isArray(value) ? value : [];
  return { display_name: tuple[0] ?? null, id: String(tuple[1] ?? '') };
}
