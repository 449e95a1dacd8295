import type { DeliveredEvent } from './matching.js';

/**
 * What a project's destination filters read of an event (`fieldsNeeded` in matching.ts): the
 * event and person property keys they name, and whether an action step looks at the elements.
 */
export interface FieldsNeeded {
  eventProperties: ReadonlySet<string>;
  personProperties: ReadonlySet<string>;
  elementsChain: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

/** Just past the closing quote of the JSON string whose opening quote is at `i`; -1 if none. */
function stringEnd(line: string, i: number, plain: boolean): number {
  // A line without a backslash has no escaped quote: the next quote closes the string.
  if (plain) {
    const q = line.indexOf('"', i + 1);
    return q < 0 ? -1 : q + 1;
  }
  let from = i + 1;
  for (;;) {
    const q = line.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    while (line.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Just past the JSON value starting at `i` (no whitespace: `eventLine` writes none); -1 if malformed. */
function valueEnd(line: string, i: number, plain: boolean): number {
  const c = line.charCodeAt(i);
  if (c === QUOTE) return stringEnd(line, i, plain);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    for (let j = i; j < line.length; j++) {
      const d = line.charCodeAt(j);
      if (d === QUOTE) {
        const end = stringEnd(line, j, plain);
        if (end < 0) return -1;
        j = end - 1;
      } else if (d === LBRACE || d === LBRACKET) depth++;
      else if (d === RBRACE || d === RBRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the member's end.
  let j = i;
  while (j < line.length) {
    const d = line.charCodeAt(j);
    if (d === COMMA || d === RBRACE || d === RBRACKET) break;
    j++;
  }
  return j > i ? j : -1;
}

/** The JSON string spanning [start, end) (quotes included), decoded. */
function stringAt(line: string, start: number, end: number, plain: boolean): string {
  return plain ? line.slice(start + 1, end - 1) : (JSON.parse(line.slice(start, end)) as string);
}

/** Whether the key spanning [start, end) (quotes included) is `name`, written without escapes. */
const isKey = (line: string, start: number, end: number, name: string) =>
  end - start - 2 === name.length && line.startsWith(name, start + 1);

const MALFORMED = -1;

/**
 * Reads the members of the object at `i` named in `keys` into `into`, parsed (the last of equal
 * keys wins, as in `JSON.parse`); answers just past the object or `MALFORMED`. In a line without
 * escapes a key is compared in place (length, then text); otherwise each key is decoded.
 */
function pickMembers(
  line: string,
  i: number,
  keys: readonly string[],
  into: Record<string, unknown>,
  plain: boolean,
): number {
  if (line.charCodeAt(i) !== LBRACE) return MALFORMED;
  let j = i + 1;
  if (line.charCodeAt(j) === RBRACE) return j + 1;
  for (;;) {
    if (line.charCodeAt(j) !== QUOTE) return MALFORMED;
    const keyEnd = stringEnd(line, j, plain);
    if (keyEnd < 0 || line.charCodeAt(keyEnd) !== COLON) return MALFORMED;
    const end = valueEnd(line, keyEnd + 1, plain);
    if (end < 0) return MALFORMED;
    if (plain) {
      for (const key of keys)
        if (isKey(line, j, keyEnd, key)) {
          into[key] = JSON.parse(line.slice(keyEnd + 1, end));
          break;
        }
    } else {
      const key = stringAt(line, j, keyEnd, false);
      if (keys.includes(key)) into[key] = JSON.parse(line.slice(keyEnd + 1, end));
    }
    const c = line.charCodeAt(end);
    if (c === RBRACE) return end + 1;
    if (c !== COMMA) return MALFORMED;
    j = end + 1;
  }
}

/**
 * Where the value of the line's top-level member `name` starts, or -1: members are walked one by
 * one (nested objects skipped whole), so a key of that name inside `properties` is never taken.
 */
export function topLevelMember(line: string, name: string): number {
  if (line.charCodeAt(0) !== LBRACE) return -1;
  const plain = line.indexOf('\\') < 0;
  let j = 1;
  for (;;) {
    if (line.charCodeAt(j) !== QUOTE) return -1;
    const keyEnd = stringEnd(line, j, plain);
    if (keyEnd < 0 || line.charCodeAt(keyEnd) !== COLON) return -1;
    if (isKey(line, j, keyEnd, name)) return keyEnd + 1;
    const end = valueEnd(line, keyEnd + 1, plain);
    if (end < 0 || line.charCodeAt(end) !== COMMA) return -1;
    j = end + 1;
  }
}

/** Shared by lines whose filters name no such property: only read, never written. */
export const NO_PROPERTIES: Record<string, unknown> = Object.freeze(Object.create(null));

/**
 * Reads of an encoded `events` line (`eventLine`) only what the filters need: the event's name,
 * the named event and person properties, the elements chain if asked. Matching a line this way
 * costs a scan of its text instead of a `JSON.parse` building every property (the matcher's
 * largest cost when most events of a project are filtered out). The rest of the answer is empty:
 * an event that passes a filter is decoded whole (`decodeLine`) before anything renders it.
 * Undefined when the line is not as `eventLine` writes it: the caller decodes it whole then.
 */
export function createLineReader(
  needs: FieldsNeeded,
): (line: string, teamId: number) => DeliveredEvent | undefined {
  const eventKeys = [...needs.eventProperties];
  const personKeys = [...needs.personProperties];
  // Nothing after the properties matters unless person properties or the elements do.
  const past = personKeys.length > 0 || needs.elementsChain;
  // Plain objects are cheaper to make; without a prototype only when `__proto__` is a key read
  // (then it must be an own property, as JSON.parse makes it).
  const eventObject = eventKeys.includes('__proto__') ? () => Object.create(null) : () => ({});
  const personObject = personKeys.includes('__proto__') ? () => Object.create(null) : () => ({});
  return (line, teamId) => {
    const plain = line.indexOf('\\') < 0;
    let event: string | undefined;
    let properties: Record<string, unknown> | undefined;
    let personProperties = NO_PROPERTIES;
    let elementsChain = '';
    if (line.charCodeAt(0) !== LBRACE) return undefined;
    let j = 1;
    for (;;) {
      if (line.charCodeAt(j) !== QUOTE) return undefined;
      const ks = j;
      const ke = stringEnd(line, ks, plain);
      if (ke < 0 || line.charCodeAt(ke) !== COLON) return undefined;
      const vs = ke + 1;
      let ve: number;
      if (isKey(line, ks, ke, 'properties')) {
        if (eventKeys.length === 0) {
          properties = NO_PROPERTIES;
          ve = past ? valueEnd(line, vs, plain) : line.length;
        } else {
          properties = eventObject() as Record<string, unknown>;
          ve = pickMembers(line, vs, eventKeys, properties, plain);
        }
        if (ve >= 0 && !past) break;
      } else if (personKeys.length > 0 && isKey(line, ks, ke, 'person_properties')) {
        personProperties = personObject() as Record<string, unknown>;
        ve = pickMembers(line, vs, personKeys, personProperties, plain);
      } else {
        ve = valueEnd(line, vs, plain);
        const isEvent = isKey(line, ks, ke, 'event');
        if (ve >= 0 && (isEvent || (needs.elementsChain && isKey(line, ks, ke, 'elements_chain')))) {
          if (line.charCodeAt(vs) !== QUOTE) return undefined;
          if (isEvent) event = stringAt(line, vs, ve, plain);
          else elementsChain = stringAt(line, vs, ve, plain);
        }
      }
      if (ve < 0) return undefined;
      const c = line.charCodeAt(ve);
      if (c === RBRACE) break;
      if (c !== COMMA) return undefined;
      j = ve + 1;
    }
    if (event === undefined || properties === undefined) return undefined;
    return {
      uuid: '',
      event,
      teamId,
      distinctId: '',
      properties,
      timestamp: '',
      elementsChain,
      personId: '',
      personProperties,
    };
  };
}
