import { NUMBER, parseNumber } from './text.js';

/** Time phrases of a prompt and the HogQL conditions they become. */
export type Unit = 'hour' | 'day' | 'week' | 'month' | 'year';
export type Granularity = Exclude<Unit, 'year'>;

export type Window =
  | { kind: 'last'; n: number; unit: Unit }
  | { kind: 'today' }
  | { kind: 'yesterday' }
  | { kind: 'this'; unit: 'week' | 'month' | 'year' }
  | { kind: 'since'; date: string }
  | { kind: 'all' };

interface Rule<T> {
  re: RegExp;
  read(m: RegExpExecArray): T;
}

const WINDOW_RULES: Array<Rule<Window>> = [
  {
    re: new RegExp(
      `\\b(?:(?:in|over|during|for|from|within)\\s+)?(?:the\\s+)?(?:last|past|previous|recent|trailing)\\s+(?:${NUMBER}\\s+)?(hour|day|week|month|quarter|year)s?\\b`,
    ),
    read: (m) => {
      const n = parseNumber(m[1]) ?? 1;
      return m[2] === 'quarter'
        ? { kind: 'last', n: n * 3, unit: 'month' }
        : { kind: 'last', n, unit: m[2] as Unit };
    },
  },
  { re: /\b(?:so far\s+)?today(?:\s+so far)?\b/, read: () => ({ kind: 'today' }) },
  { re: /\byesterday\b/, read: () => ({ kind: 'yesterday' }) },
  {
    re: /\b(?:this|current)\s+(week|month|year)\b/,
    read: (m) => ({ kind: 'this', unit: m[1] as 'week' | 'month' | 'year' }),
  },
  { re: /\bsince\s+(\d{4}-\d{2}-\d{2})\b/, read: (m) => ({ kind: 'since', date: m[1] as string }) },
  { re: /\b(?:of\s+)?all[\s-]time\b|\bever\b/, read: () => ({ kind: 'all' }) },
];

const GRANULARITY_RULES: Array<Rule<{ granularity: Granularity; active?: boolean }>> = [
  {
    re: /\b(hourly|daily|weekly|monthly)\b/,
    read: (m) => ({
      granularity: ({ hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' } as const)[
        m[1] as 'daily'
      ],
    }),
  },
  {
    re: /\b(dau|wau|mau)s?\b/,
    read: (m) => ({
      granularity: ({ dau: 'day', wau: 'week', mau: 'month' } as const)[m[1] as 'dau'],
      active: true,
    }),
  },
  {
    re: /\b(?:per|by|each|every|a|over|grouped by)\s+(hour|day|week|month)\b/,
    read: (m) => ({ granularity: m[1] as Granularity }),
  },
  { re: /\b(?:over time|trends?|time[\s-]?series)\b/, read: () => ({ granularity: 'day' }) },
];

/** Finds the first phrase a rule knows and blanks it out of `text.value`. */
function take<T>(text: { value: string }, rules: Array<Rule<T>>): T | undefined {
  for (const rule of rules) {
    const m = rule.re.exec(text.value);
    if (m) {
      text.value = `${text.value.slice(0, m.index)} ${text.value.slice(m.index + m[0].length)}`;
      return rule.read(m);
    }
  }
  return undefined;
}

export const takeWindow = (text: { value: string }) => take(text, WINDOW_RULES);
export const takeGranularity = (text: { value: string }) => take(text, GRANULARITY_RULES);

/** A window sized to the buckets when the prompt names none: a month of days, a quarter of weeks. */
export function defaultWindow(granularity: Granularity | undefined): Window {
  switch (granularity) {
    case 'hour':
      return { kind: 'last', n: 24, unit: 'hour' };
    case 'week':
      return { kind: 'last', n: 12, unit: 'week' };
    case 'month':
      return { kind: 'last', n: 12, unit: 'month' };
    default:
      return { kind: 'last', n: 30, unit: 'day' };
  }
}

/** The condition on `column` (a timestamp), or undefined for all time. */
export function windowCondition(window: Window, column: string): string | undefined {
  switch (window.kind) {
    case 'last':
      return `${column} >= now() - INTERVAL ${window.n} ${window.unit.toUpperCase()}`;
    case 'today':
      return `toDate(${column}) = today()`;
    case 'yesterday':
      return `toDate(${column}) = yesterday()`;
    case 'this':
      return `${column} >= toStartOf${window.unit[0]?.toUpperCase()}${window.unit.slice(1)}(now())`;
    case 'since':
      return `${column} >= toDateTime('${window.date} 00:00:00')`;
    case 'all':
      return undefined;
  }
}

export function bucket(granularity: Granularity, column: string): string {
  const fn = { hour: 'toStartOfHour', day: 'toStartOfDay', week: 'toStartOfWeek', month: 'toStartOfMonth' };
  return `${fn[granularity]}(${column})`;
}
