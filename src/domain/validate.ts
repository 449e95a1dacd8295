import { validationError } from './errors.js';

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

export function timezone(value: string, attr = 'timezone'): string {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT']);
  if (!zones.has(value)) throw validationError(`"${value}" is not a valid choice.`, attr, 'invalid_choice');
  return value;
}

export function choice<T extends string | number>(value: T, allowed: readonly T[], attr: string): T {
  if (!allowed.includes(value))
    throw validationError(`"${value}" is not a valid choice.`, attr, 'invalid_choice');
  return value;
}
