import type { ActionStep } from '../../store/meta/actions.js';
import { matchProperty } from '../flags/properties.js';
import type { PropertyFilter } from '../flags/types.js';
import { regexMatches } from '../regex/re2.js';
import { type FieldsNeeded, topLevelMember } from './line-fields.js';

/** An event as delivery sees it: the `events` row capture wrote, decoded. */
export interface DeliveredEvent {
  uuid: string;
  event: string;
  teamId: number;
  distinctId: string;
  properties: Record<string, unknown>;
  /** ISO 8601. */
  timestamp: string;
  elementsChain: string;
  personId: string;
  personProperties: Record<string, unknown>;
}

/**
 * The team id of an encoded `events` line without parsing it (most teams have no destination):
 * the top-level `team_id` member, found by walking the line's members (`topLevelMember`), never a
 * `"team_id":` inside the properties: an event sent with a `team_id` property must not be
 * matched against another project's destinations. -1 when there is none.
 */
export function lineTeam(line: string): number {
  const at = topLevelMember(line, 'team_id');
  if (at < 0) return -1;
  // Digits read in place: a slice and parseInt per line showed in the matcher's profile.
  let team = 0;
  let i = at;
  for (let c = line.charCodeAt(i); c >= 48 && c <= 57; c = line.charCodeAt(++i)) team = team * 10 + (c - 48);
  return i === at ? -1 : team;
}

/**
 * The event name of an encoded `events` line without parsing it: `eventLine` writes the uuid
 * (36 characters) then the name first. Undefined when the name has escapes (or the line another
 * shape): the caller decodes the line then.
 */
export function lineEvent(line: string): string | undefined {
  if (!line.startsWith('{"uuid":"') || !line.startsWith('","event":"', 45)) return undefined;
  const end = line.indexOf('"', 56);
  if (end < 0) return undefined;
  const name = line.slice(56, end);
  return name.includes('\\') ? undefined : name;
}

/**
 * The event names any of these destinations or Slack actions can match, or null when one can
 * match any event (no event or action filter, an event filter without a name, an action step
 * without an event).
 */
export function eventNamesMatched(
  fns: Array<{ filters: Record<string, unknown> }>,
  slackActions: Array<{ steps: ActionStep[] }>,
  actions: Map<number, ActionStep[]>,
): Set<string> | null {
  const names = new Set<string>();
  const addSteps = (steps: ActionStep[] | undefined): boolean => {
    for (const step of steps ?? []) {
      if (!step.event) return false;
      names.add(step.event);
    }
    return true;
  };
  for (const f of fns) {
    const events = Array.isArray(f.filters.events)
      ? (f.filters.events as Array<Record<string, unknown>>)
      : [];
    const acts = Array.isArray(f.filters.actions)
      ? (f.filters.actions as Array<Record<string, unknown>>)
      : [];
    if (events.length + acts.length === 0) return null;
    for (const e of events) {
      if (typeof e.id !== 'string') return null;
      names.add(e.id);
    }
    for (const a of acts) if (!addSteps(actions.get(Number(a.id)))) return null;
  }
  for (const a of slackActions) if (!addSteps(a.steps)) return null;
  return names;
}

/**
 * The fields these destinations, Slack actions and (for `filter_test_accounts`) test account
 * filters read of an event, named as `propertiesMatch` and `stepMatches` read them: every
 * property filter's key (a person's when its type is person, else the event's), `$current_url`
 * for a step with a URL, the elements chain for a step with text, href or tag.
 */
export function fieldsNeeded(
  fns: Array<{ filters: Record<string, unknown> }>,
  slackActions: Array<{ steps: ActionStep[] }>,
  actions: Map<number, ActionStep[]>,
  testAccountFilters: unknown[],
): FieldsNeeded {
  const eventProperties = new Set<string>();
  const personProperties = new Set<string>();
  let elementsChain = false;
  const addFilters = (filters: unknown) => {
    if (!Array.isArray(filters)) return;
    for (const raw of filters) {
      const f = raw as PropertyFilter;
      if (!f || typeof f.key !== 'string') continue;
      (f.type === 'person' ? personProperties : eventProperties).add(f.key);
    }
  };
  const addSteps = (steps: ActionStep[] | undefined) => {
    for (const step of steps ?? []) {
      addFilters(step.properties);
      if (step.url) eventProperties.add('$current_url');
      if (step.text || step.href || step.tag_name) elementsChain = true;
    }
  };
  for (const f of fns) {
    const events = Array.isArray(f.filters.events)
      ? (f.filters.events as Array<Record<string, unknown>>)
      : [];
    const acts = Array.isArray(f.filters.actions)
      ? (f.filters.actions as Array<Record<string, unknown>>)
      : [];
    for (const e of events) addFilters(e.properties);
    for (const a of acts) {
      addFilters(a.properties);
      addSteps(actions.get(Number(a.id)));
    }
    addFilters(f.filters.properties);
    if (f.filters.filter_test_accounts === true) addFilters(testAccountFilters);
  }
  for (const a of slackActions) addSteps(a.steps);
  return { eventProperties, personProperties, elementsChain };
}

/** One encoded `events` line (`eventLine`) back into an event. */
export function decodeLine(line: string): DeliveredEvent {
  const r = JSON.parse(line) as Record<string, unknown>;
  const t = String(r.timestamp ?? '');
  return {
    uuid: String(r.uuid),
    event: String(r.event),
    teamId: Number(r.team_id),
    distinctId: String(r.distinct_id ?? ''),
    properties: (r.properties ?? {}) as Record<string, unknown>,
    timestamp: t.length >= 23 ? `${t.slice(0, 10)}T${t.slice(11, 23)}Z` : t,
    elementsChain: String(r.elements_chain ?? ''),
    personId: String(r.person_id ?? ''),
    personProperties: (r.person_properties ?? {}) as Record<string, unknown>,
  };
}

function propertiesMatch(filters: unknown, e: DeliveredEvent, now: Date): boolean {
  if (!Array.isArray(filters)) return true;
  for (const raw of filters) {
    const f = raw as PropertyFilter;
    if (!f || typeof f.key !== 'string') continue;
    const props = f.type === 'person' ? e.personProperties : e.properties;
    let ok: boolean;
    try {
      ok = matchProperty(f, props, now);
    } catch {
      ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

function textMatches(actual: string, expected: string, how: string | null | undefined): boolean {
  if (how === 'exact') return actual === expected;
  if (how === 'regex') {
    try {
      return regexMatches(expected, actual) === true;
    } catch {
      return false;
    }
  }
  return actual.includes(expected);
}

/**
 * An action step against one event: event name, properties and URL. Element conditions
 * (selector, tag, text, href) are checked on `elements_chain` text only as a substring.
 */
function stepMatches(step: ActionStep, e: DeliveredEvent, now: Date): boolean {
  if (step.event && step.event !== e.event) return false;
  if (step.url && !textMatches(String(e.properties.$current_url ?? ''), step.url, step.url_matching))
    return false;
  if (step.text && !e.elementsChain.includes(step.text)) return false;
  if (step.href && !e.elementsChain.includes(step.href)) return false;
  if (step.tag_name && !e.elementsChain.includes(step.tag_name)) return false;
  return propertiesMatch(step.properties, e, now);
}

/** Whether an event matches an action: any of its steps. */
export const matchesAction = (steps: ActionStep[], e: DeliveredEvent, now: Date) =>
  steps.some((s) => stepMatches(s, e, now));

export interface MatchContext {
  actions: Map<number, ActionStep[]>;
  testAccountFilters: unknown[];
  now: Date;
}

type Filters = Array<Record<string, unknown>>;
const filterList = (v: unknown): Filters => (Array.isArray(v) ? (v as Filters) : []);

/**
 * PostHog's destination filters: the event must be one of `events` (each with its own
 * properties) or match one of `actions` when any are given (none: every event), then match every
 * `properties` filter, and the project's test account filters when `filter_test_accounts`.
 * Compiled once per destination and matcher run: the lists are read out of the filters once, not
 * once per event.
 */
export function compileFilters(
  filters: Record<string, unknown>,
  ctx: MatchContext,
): (e: DeliveredEvent) => boolean {
  const events = filterList(filters.events);
  const actions = filterList(filters.actions).map((f) => ({
    steps: ctx.actions.get(Number(f.id)),
    properties: f.properties,
  }));
  const anyKind = events.length + actions.length > 0;
  const properties = filters.properties;
  const testAccounts = filters.filter_test_accounts === true ? ctx.testAccountFilters : undefined;
  const now = ctx.now;
  return (e) => {
    if (anyKind) {
      let matched = false;
      for (const f of events)
        if (
          (f.id === null || f.id === undefined || f.id === e.event) &&
          propertiesMatch(f.properties, e, now)
        ) {
          matched = true;
          break;
        }
      if (!matched)
        for (const a of actions)
          if (
            a.steps?.some((s) => stepMatches(s, e, now)) === true &&
            propertiesMatch(a.properties, e, now)
          ) {
            matched = true;
            break;
          }
      if (!matched) return false;
    }
    if (!propertiesMatch(properties, e, now)) return false;
    return testAccounts === undefined || propertiesMatch(testAccounts, e, now);
  };
}

/** `compileFilters` for one event. */
export const matchesFilters = (filters: Record<string, unknown>, e: DeliveredEvent, ctx: MatchContext) =>
  compileFilters(filters, ctx)(e);

/** Action ids a destination's filters name. */
export function actionIdsOf(filters: Record<string, unknown>): number[] {
  const actions = Array.isArray(filters.actions) ? (filters.actions as Array<Record<string, unknown>>) : [];
  return actions.map((a) => Number(a.id)).filter((n) => Number.isInteger(n));
}
