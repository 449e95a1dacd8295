import { NUMBER, parseNumber } from './text.js';
import {
  BY_RE,
  FILTER_RE,
  HINT_RE,
  NEGATION,
  OPS,
  type Op,
  STOPWORDS,
  SYMBOL_FILTER_RE,
  VALUE_HINTS,
} from './vocabulary.js';

import { type Granularity, takeGranularity, takeWindow, type Window } from './window.js';

export type { Op } from './vocabulary.js';

/**
 * A prompt taken apart: time window, buckets, limit, metric, "by X", "where X is Y" and the words
 * left over, which name the event. Each recognised phrase is cut out of the text as it is read,
 * so that "last 2 weeks" is never mistaken for an event called "weeks".
 */
export interface Filter {
  /** The property as written ("browser"), or a known key for value-only hints ("in Chrome"). */
  phrase: string;
  op: Op;
  value: string;
}

/** An aggregate of a property: "average amount", "total revenue", "max duration". */
export interface Aggregate {
  /** A HogQL aggregate function: `avg`, `sum`, `min`, `max`, `median` or `quantile(0.95)`. */
  fn: string;
  /** The property as written. */
  phrase: string;
  /** From "total", which may also mean a count ("total purchases"): kept only if a property matches. */
  soft: boolean;
}

export interface Analysis {
  /** Lowercased prompt, quoted parts as §N. */
  raw: string;
  aggregate?: Aggregate;
  /** Something asked for that the templates cannot compute ("percentile", "conversion rate"). */
  unsupported?: string;
  quoted: string[];
  window?: Window;
  granularity?: Granularity;
  limit?: number;
  recent: boolean;
  metric: 'count' | 'users' | 'sessions';
  active: boolean;
  breakdown?: string;
  filters: Filter[];
  /** Runs of content words naming the event; `negated` ones come after "but not", "without". */
  runs: string[][];
  negated: string[][];
}

export function analyse(prompt: string): Analysis {
  const quoted: string[] = [];
  // Quotes first, so that an apostrophe inside a quoted name survives the contractions.
  const value = prompt
    .replace(/"([^"]+)"|“([^”]+)”|`([^`]+)`|(?<=^|[\s(,=:])'([^']+)'(?=$|[\s),.?!;:])/g, (_, a, b, c, d) => {
      quoted.push(a ?? b ?? c ?? d);
      return ` §${quoted.length - 1} `;
    })
    .replace(/\b(\w+)n['’]t\b/gi, '$1 not')
    .replace(/\b(\w+)['’](?:s|re|ve|ll|d)\b/gi, '$1')
    .toLowerCase();
  const raw = value;
  const text = { value };
  const window = takeWindow(text);
  const bucketed = takeGranularity(text);
  const cut = (m: RegExpExecArray) => {
    text.value = `${text.value.slice(0, m.index)} ${text.value.slice(m.index + m[0].length)}`;
  };

  let limit: number | undefined;
  let recent = false;
  const top = new RegExp(`\\btop\\s+${NUMBER}\\b`).exec(text.value);
  if (top) {
    limit = parseNumber(top[1]);
    cut(top);
  }
  const latest = /\b(?:limit(?:ed)?(?:\s+it)?(?:\s+to)?|first|latest|last|recent|newest)\s+(\d{1,6})\b/.exec(
    text.value,
  );
  if (latest) {
    limit = Number(latest[1]);
    recent = !/^(limit|first)/.test(latest[0]);
    cut(latest);
  }
  if (/\b(?:latest|recent|newest)\b/.test(text.value)) recent = true;

  let aggregate: Aggregate | undefined;
  const pct = SESSION_LENGTH.test(text.value) ? null : PERCENTILE_RE.exec(text.value);
  const agg = SESSION_LENGTH.test(text.value) || pct ? null : AGGREGATE_RE.exec(text.value);
  if (pct) {
    const q = /^§(\d+)$/.exec(pct[3] as string);
    const n = (pct[1] ?? pct[2]) as string;
    aggregate = {
      fn: `quantile(0.${n.padStart(2, '0')})`,
      phrase: q ? (quoted[Number(q[1])] ?? '') : (pct[3] as string),
      soft: false,
    };
    cut(pct);
  } else if (agg) {
    const word = agg[1] as string;
    const phrase = agg[2] as string;
    const q = /^§(\d+)$/.exec(phrase);
    if (!(word === 'total' && COUNT_WORDS.test(phrase))) {
      aggregate = {
        fn: AGGREGATES[word] as string,
        phrase: q ? (quoted[Number(q[1])] ?? phrase) : phrase,
        soft: word === 'total',
      };
      cut(agg);
    }
  }

  const unsupported = SESSION_LENGTH.test(text.value) ? undefined : UNSUPPORTED.exec(text.value)?.[0];

  const filters: Filter[] = [];
  const nextFilter = () => FILTER_RE.exec(text.value) ?? SYMBOL_FILTER_RE.exec(text.value);
  for (let m = nextFilter(); m; m = nextFilter()) {
    const op = OPS.find(([w]) => w === m?.[2])?.[1] ?? '=';
    const v = m[3] as string;
    const q = /^§(\d+)$/.exec(v);
    filters.push({
      phrase: m[1] as string,
      op,
      value: q ? (quoted[Number(q[1])] ?? '') : asWritten(prompt, v),
    });
    cut(m);
  }
  for (let m = HINT_RE.exec(text.value); m; m = HINT_RE.exec(text.value)) {
    const [key, val] = VALUE_HINTS[m[2] as string] as [string, string];
    filters.push({ phrase: key, op: m[1] ? '!=' : '=', value: val });
    cut(m);
  }

  let metric: Analysis['metric'] = 'count';
  const active = /\bactive\s+(?:users|people|persons)\b/.test(raw) || bucketed?.active === true;
  if (active || /\b(?:users?|people|persons|visitors|customers)\b/.test(text.value)) metric = 'users';
  else if (/\bsessions\b/.test(text.value)) metric = 'sessions';
  let breakdown: string | undefined;
  const by = BY_RE.exec(text.value);
  if (by) {
    cut(by);
    const [first = '', second] = (by[1] as string).split(/\s+/);
    const phrase = second && !STOPWORDS.has(second) ? `${first} ${second}` : first;
    if (/^(?:users?|people|persons|visitors|unique)$/.test(first)) metric = 'users';
    else if (/^sessions?$/.test(first)) metric = 'sessions';
    else if (/^(?:count|volume|number|frequency|total)$/.test(first)) metric = 'count';
    else if (/^events?$/.test(first)) breakdown = 'event';
    else breakdown = /^§\d+$/.test(first) ? (quoted[Number(first.slice(1))] ?? first) : phrase;
    if (second && phrase === first) text.value += ` ${second}`;
  }

  const [positive = '', negative = ''] = text.value.split(NEGATION);
  return {
    raw,
    ...(aggregate ? { aggregate } : {}),
    ...(unsupported ? { unsupported } : {}),
    quoted,
    window,
    granularity: bucketed?.granularity,
    limit,
    recent,
    metric,
    active,
    breakdown,
    filters,
    runs: runsOf(positive, quoted),
    negated: runsOf(negative, quoted),
  };
}

const AGGREGATES: Record<string, Aggregate['fn']> = {
  average: 'avg',
  avg: 'avg',
  mean: 'avg',
  median: 'median',
  sum: 'sum',
  total: 'sum',
  minimum: 'min',
  min: 'min',
  lowest: 'min',
  smallest: 'min',
  maximum: 'max',
  max: 'max',
  highest: 'max',
  largest: 'max',
};
const AGGREGATE_RE = new RegExp(
  `\\b(${Object.keys(AGGREGATES).join('|')})\\s+(?:of\\s+)?(?:the\\s+)?(§\\d+|[\\w$.-]+)`,
);
const PERCENTILE_RE =
  /\b(?:p(\d{2})|(\d{1,2})(?:st|nd|rd|th)?\s+percentile)\s+(?:of\s+)?(?:the\s+)?(§\d+|[\w$.-]+)/;
/** "total number of ...", "total purchases": counts, not sums. */
const COUNT_WORDS =
  /^(?:number|count|counts|events?|users?|people|persons|visitors|customers|sessions?|pageviews?|views?|visits?|signups?|purchases?|clicks?)$/;
const SESSION_LENGTH = /\bsessions?\s+(?:duration|length|time)s?\b|\btime on site\b|\bhow long\b/;
/** Measures a template cannot compute: better said than answered with a count. */
const UNSUPPORTED =
  /\b(?:percentiles?|quantiles?|conversion(?:\s+rate)?|retention|funnel|churn|ratio|stddev|standard deviation|variance|growth rate|bounce rate)\b/;

/** `lowered` with the casing the user typed ("Pro", not "pro"). */
function asWritten(prompt: string, lowered: string): string {
  const at = prompt.toLowerCase().indexOf(lowered);
  return at < 0 ? lowered : prompt.slice(at, at + lowered.length);
}

/** Consecutive content words; a quoted part is a run of its own, kept verbatim. */
function runsOf(text: string, quoted: string[]): string[][] {
  const runs: string[][] = [];
  let run: string[] = [];
  for (const token of text.match(/§\d+|[\w$.-]+/g) ?? []) {
    const q = /^§(\d+)$/.exec(token);
    if (q || STOPWORDS.has(token) || /^\d+$/.test(token)) {
      if (run.length) runs.push(run);
      run = [];
      if (q) runs.push([`§${quoted[Number(q[1])] ?? ''}`]);
    } else run.push(token);
  }
  if (run.length) runs.push(run);
  return runs;
}
