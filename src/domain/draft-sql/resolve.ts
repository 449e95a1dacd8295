import { findTable } from '../../hogql/schema/database.js';
import type { Catalog } from './catalog.js';
import { condition, propertyField } from './draft.js';
import { type Match, matchEvent, matchProperty } from './match.js';
import type { Analysis } from './prompt.js';
import { compact, slug } from './text.js';

/** The prompt's phrases tied to the project's real names, or the phrases that tie to nothing. */
export interface Resolved {
  events: string[];
  excluded: string[];
  breakdown?: { field: string; alias: string };
  /** The asked-for aggregate of a property, as a HogQL expression and its column name. */
  aggregate?: { expr: string; alias: string };
  conditions: string[];
  /** Phrases that matched no event or property. */
  unknownEvents: string[];
  unknownProperties: string[];
}

/** Columns of `events` one may name in plain words. */
const COLUMNS = new Map(
  [
    ['event', 'event'],
    ['event name', 'event'],
    ['distinct id', 'distinct_id'],
    ['person', 'person_id'],
    ['person id', 'person_id'],
    ['session', '$session_id'],
    ['session id', '$session_id'],
  ].map(([k, v]) => [compact(k as string), v as string]),
);

/** The best event named by some n-gram of a run of words; quoted names are taken as written. */
function eventOf(run: string[], catalog: Catalog): Match | undefined {
  const only = run[0];
  if (run.length === 1 && only?.startsWith('§')) {
    const name = only.slice(1);
    const m = matchEvent(name, catalog);
    return m && m.score >= 80 ? m : { name, score: 100 };
  }
  let top: (Match & { n: number }) | undefined;
  for (let n = Math.min(4, run.length); n >= 1; n--) {
    for (let i = 0; i + n <= run.length; i++) {
      const m = matchEvent(run.slice(i, i + n).join(' '), catalog);
      if (m && (!top || m.score > top.score)) top = { ...m, n };
    }
  }
  return top;
}

function eventsOf(runs: string[][], catalog: Catalog, unknown: string[]): string[] {
  const found: string[] = [];
  for (const run of runs) {
    const m = eventOf(run, catalog);
    if (m) {
      if (!found.includes(m.name)) found.push(m.name);
    } else unknown.push(run.join(' '));
  }
  return found;
}

export function fieldFor(phrase: string, catalog: Catalog): { field: string; alias: string } | undefined {
  const column = COLUMNS.get(compact(phrase));
  if (column) return { field: column, alias: column === '$session_id' ? 'session_id' : column };
  const p = matchProperty(phrase, catalog);
  if (!p) return undefined;
  // An alias may not shadow a table ("sessions"), which HogQL refuses.
  const alias = slug(p.key);
  return { field: propertyField(p), alias: findTable(alias) ? `${alias}_value` : alias };
}

export function resolve(a: Analysis, catalog: Catalog): Resolved {
  const unknownEvents: string[] = [];
  const unknownProperties: string[] = [];
  let aggregate: Resolved['aggregate'];
  let runs = a.runs;
  if (a.aggregate) {
    const p = matchProperty(a.aggregate.phrase, catalog);
    if (p) {
      const field = propertyField(p);
      const name = a.aggregate.fn.startsWith('quantile(0.')
        ? `p${a.aggregate.fn.slice(11, 13)}`
        : a.aggregate.fn;
      aggregate = { expr: `${a.aggregate.fn}(toFloat(${field}))`, alias: `${name}_${slug(p.key)}` };
    } else if (a.aggregate.soft) {
      // "total signups" counts an event: the word goes back to the event words.
      runs = [[a.aggregate.phrase], ...runs];
    } else unknownProperties.push(a.aggregate.phrase);
  }
  const events = eventsOf(runs, catalog, unknownEvents);
  const excluded = eventsOf(a.negated, catalog, unknownEvents);
  let breakdown: Resolved['breakdown'];
  if (a.breakdown) {
    const [first = a.breakdown] = a.breakdown.split(' ');
    breakdown = fieldFor(a.breakdown, catalog) ?? fieldFor(first, catalog);
    if (!breakdown) unknownProperties.push(a.breakdown);
  }
  const conditions: string[] = [];
  for (const f of a.filters) {
    const target = fieldFor(f.phrase, catalog);
    if (target) conditions.push(condition(target.field, f));
    else unknownProperties.push(f.phrase);
  }
  return {
    events,
    excluded,
    breakdown,
    ...(aggregate ? { aggregate } : {}),
    conditions,
    unknownEvents,
    unknownProperties,
  };
}
