import type { PropertyValueType } from '../../hogql/property-types.js';

/** Property definition parents, PostHog's numbering. */
export const PROPERTY_PARENT = { event: 1, person: 2, group: 3, session: 4 } as const;

/** Properties with a special meaning: no event property definitions for them. */
export const SKIP_PROPERTIES = new Set([
  '$set',
  '$set_once',
  '$unset',
  '$group_0',
  '$group_1',
  '$group_2',
  '$group_3',
  '$group_4',
  '$groups',
]);

/** PostHog keeps names up to 200 characters; longer ones get no definition. */
export const MAX_NAME_LENGTH = 200;

const DATETIME_KEYWORDS = ['time', 'date', '_at', '-at', 'createdat', 'updatedat'];
const DATE_PREFIX =
  /^(([0-9]{4}[/-][0-2][0-9][/-][0-3][0-9])|([0-2][0-9][/-][0-3][0-9][/-][0-9]{4}))([ T][0-2][0-9]:[0-6][0-9]:[0-6][0-9].*)?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const RFC2822 =
  /^(?:(Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s+)?\d{1,2}\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{4}\s+\d{2}:\d{2}(:\d{2})?\s+([+-]\d{4}|GMT|UT|[A-Z]{3})$/;
const SIX_MONTHS_S = 15_768_000;

const likelyDate = (s: string) => RFC3339.test(s) || RFC2822.test(s) || DATE_PREFIX.test(s);

/**
 * A property's type from its name and first value, by PostHog's rules: `utm_`, `$initial_utm_`,
 * `$feature/`, `$feature_flag_response` and `$survey_response*` are always String; a name hinting
 * at time with a date-like string or a recent unix timestamp is DateTime; else by the value:
 * "true"/"false" strings and booleans are Boolean, date-like strings DateTime, numbers Numeric,
 * other strings String, and null, lists and objects no type at all.
 */
export function detectPropertyType(name: string, value: unknown, nowMs: number): PropertyValueType | null {
  const key = name.toLowerCase();
  if (
    key.startsWith('utm_') ||
    key.startsWith('$initial_utm_') ||
    key.startsWith('$feature/') ||
    key === '$feature_flag_response' ||
    key.startsWith('$survey_response')
  )
    return 'String';
  const timeKey = DATETIME_KEYWORDS.some((k) => key.includes(k));
  if (typeof value === 'string') {
    const s = value.trim();
    if (timeKey && likelyDate(s)) return 'DateTime';
    if (s === 'true' || s === 'false' || s === 'TRUE' || s === 'FALSE') return 'Boolean';
    return likelyDate(s) ? 'DateTime' : 'String';
  }
  if (typeof value === 'number') {
    if (timeKey && Number.isInteger(value) && value >= 0 && value >= Math.floor(nowMs / 1000) - SIX_MONTHS_S)
      return 'DateTime';
    return 'Numeric';
  }
  if (typeof value === 'boolean') return 'Boolean';
  return null;
}
