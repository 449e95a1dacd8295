import { invalidChoice, validationError } from '../errors.js';

/** DRF CharField rules: trimmed, not blank, bounded. */
export function text(value: string, attr: string, maxLength: number): string {
  const trimmed = value.trim();
  if (trimmed === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (trimmed.length > maxLength) {
    throw validationError(`Ensure this field has no more than ${maxLength} characters.`, attr, 'max_length');
  }
  return trimmed;
}

let zones: Set<string> | undefined;

/** Spelled as IANA spells a zone: each part capitalised (`Asia/Kolkata`, `US/Eastern`), not `asia/kolkata`. */
const ZONE_PART = '(?:[A-Z]{1,3}|GMT(?:[+-]\\d{1,2}|0)|[A-Z][a-z][A-Za-z0-9_+-]*)';
const ZONE_SPELLING = new RegExp(`^${ZONE_PART}(?:/${ZONE_PART})*$`);

/**
 * Node's ICU lists canonical zones only, some under their old names (`Asia/Calcutta`), so a link such
 * as `Asia/Kolkata` or `Europe/Kyiv` (valid in PostHog's pytz list) is accepted when ICU knows it.
 */
function isKnownLink(value: string): boolean {
  if (!ZONE_SPELLING.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function timezone(value: string, attr = 'timezone'): string {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT']);
  if (!zones.has(value) && !isKnownLink(value)) {
    throw validationError(
      `"${value}" is not a valid choice. Use an IANA time zone name, such as UTC, Europe/Paris or America/New_York.`,
      attr,
      'invalid_choice',
    );
  }
  return value;
}

export function choice<T extends string | number>(value: T, allowed: readonly T[], attr: string): T {
  if (!allowed.includes(value)) throw invalidChoice(value, allowed, attr);
  return value;
}

/** A JSON value's type as Django REST framework names it in its messages (Python's type names). */
export function pythonTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  return (
    { string: 'str', number: 'int', boolean: 'bool', object: 'dict' }[typeof value as string] ?? typeof value
  );
}

/** DRF's error for a field that must be a list. */
export const notAList = (value: unknown): string =>
  `Expected a list of items but got type "${pythonTypeName(value)}".`;
