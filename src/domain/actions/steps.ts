import { invalidChoice, validationError } from '../../errors.js';
import { HogQLError } from '../../hogql/errors.js';
import { type AnyProperties, propertiesToExpr } from '../../hogql/property-filters.js';
import { parseSelector } from '../../hogql/selector.js';
import type { ActionStep } from '../../store/meta/actions.js';
import { checkCohortReferences, cohortIdsIn } from '../cohorts/references.js';
import type { Deps } from '../deps.js';
import { checkFilterRegexes, checkRegex } from '../regex/check.js';
import { notAList } from '../validate.js';

/** Step fields, in PostHog's ActionStepJSON order. */
const TEXT_FIELDS = ['event', 'selector', 'tag_name', 'text', 'href', 'url'] as const;
const MATCHING_FIELDS = ['text_matching', 'href_matching', 'url_matching'] as const;
const MATCHINGS = ['contains', 'regex', 'exact'];
const MAX_STEPS = 100;
const MAX_TEXT = 65_535;

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** One step as stored: known fields only, nulls kept, `url_matching` defaulting to `contains`. */
function checkStep(raw: unknown, i: number): ActionStep {
  const attr = (f: string) => `steps__${i}__${f}`;
  if (!isObject(raw))
    throw validationError(
      `Invalid data. Expected a dictionary, but got ${Array.isArray(raw) ? 'list' : typeof raw}.`,
      `steps__${i}__non_field_errors`,
      'invalid',
    );
  const step: Record<string, unknown> = {};
  for (const f of TEXT_FIELDS) {
    const v = raw[f];
    if (v === undefined || v === null) step[f] = null;
    else if (typeof v !== 'string') throw validationError('Not a valid string.', attr(f), 'invalid');
    else if (v.length > MAX_TEXT)
      throw validationError(
        `Ensure this field has no more than ${MAX_TEXT} characters.`,
        attr(f),
        'max_length',
      );
    else step[f] = v;
  }
  for (const f of MATCHING_FIELDS) {
    const v = raw[f];
    if (v === undefined || v === null) step[f] = f === 'url_matching' ? 'contains' : null;
    else if (typeof v !== 'string' || !MATCHINGS.includes(v)) throw invalidChoice(v, MATCHINGS, attr(f));
    else step[f] = v;
  }
  const props = raw.properties;
  if (props !== undefined && props !== null && !Array.isArray(props))
    throw validationError(notAList(props), attr('properties'), 'not_a_list');
  step.properties = props ?? [];
  try {
    propertiesToExpr(step.properties as AnyProperties);
  } catch (err) {
    if (err instanceof HogQLError) throw validationError(err.message, attr('properties'));
    throw err;
  }
  checkFilterRegexes(step.properties, attr('properties'));
  if (typeof step.selector === 'string' && step.selector.trim()) {
    try {
      parseSelector(step.selector);
    } catch (err) {
      if (err instanceof HogQLError) throw validationError(err.message, attr('selector'));
      throw err;
    }
  }
  for (const f of ['url', 'text', 'href'] as const) {
    const key = `${f}_matching` as const;
    // ClickHouse runs these with RE2: a pattern it cannot compile is refused now, not at query time.
    if (step[key] === 'regex' && typeof step[f] === 'string') checkRegex(step[f] as string, attr(f));
  }
  return step as ActionStep;
}

export function checkSteps(raw: unknown): ActionStep[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw validationError(notAList(raw), 'steps', 'not_a_list');
  if (raw.length > MAX_STEPS)
    throw validationError(`Ensure this field has no more than ${MAX_STEPS} elements.`, 'steps', 'max_length');
  return raw.map(checkStep);
}

/** The cohorts the steps' property filters name must be this project's. */
export async function checkStepCohorts(deps: Pick<Deps, 'meta'>, teamId: number, steps: ActionStep[]) {
  for (const [i, step] of steps.entries())
    await checkCohortReferences(deps, teamId, cohortIdsIn(step.properties), `steps__${i}__properties`);
}
