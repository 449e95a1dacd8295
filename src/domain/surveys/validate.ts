import { invalidChoice, validationError } from '../../errors.js';
import { newUuid } from '../ids.js';

/**
 * Checks on a survey's JSON documents, after PostHog's SurveySerializer: every question of a known
 * type with what that type needs, branching only to questions that exist, conditions of the shapes
 * posthog-js reads, and bounded sizes (these documents are sent to every page that loads the SDK).
 */

export const SURVEY_TYPES = ['popover', 'widget', 'external_survey', 'api'] as const;
export const QUESTION_TYPES = ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] as const;
const BRANCHING_TYPES = ['next_question', 'end', 'response_based', 'specific_question'] as const;
const RATING_BUCKETS = ['negative', 'neutral', 'positive', 'detractors', 'passives', 'promoters'];

export const LIMITS = {
  questions: 100,
  choices: 100,
  /** Serialised size of `appearance` / `conditions`: colours, texts and a few selectors fit easily. */
  documentBytes: 20_000,
  textChars: 10_000,
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function bounded(value: unknown, attr: string): void {
  if (Buffer.byteLength(JSON.stringify(value)) > LIMITS.documentBytes)
    throw validationError(
      `${attr} must be at most ${LIMITS.documentBytes} bytes of JSON.`,
      attr,
      'max_length',
    );
}

function text(q: Obj, field: string, required: boolean, i: number): void {
  const v = q[field];
  if (v === undefined || v === null) {
    if (required) throw validationError(`Question ${i + 1}: ${field} is required.`, 'questions', 'required');
    return;
  }
  if (typeof v !== 'string')
    throw validationError(`Question ${i + 1}: ${field} must be a string.`, 'questions');
  if (required && !v.trim())
    throw validationError(`Question ${i + 1}: ${field} is required.`, 'questions', 'required');
  if (v.length > LIMITS.textChars)
    throw validationError(`Question ${i + 1}: ${field} is too long.`, 'questions', 'max_length');
}

function checkLink(q: Obj, i: number): void {
  const link = q.link;
  if (link === undefined || link === null || link === '') return;
  let ok = false;
  if (typeof link === 'string')
    try {
      ok = ['https:', 'mailto:'].includes(new URL(link).protocol);
    } catch {}
  if (!ok)
    throw validationError(
      `Question ${i + 1}: link must be a URL resource with one of these schemes [https, mailto].`,
      'questions',
    );
}

function checkChoices(q: Obj, i: number): void {
  const choices = q.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw validationError(`Question ${i + 1}: choices must be a non-empty list.`, 'questions', 'required');
  if (choices.length > LIMITS.choices)
    throw validationError(`Question ${i + 1}: at most ${LIMITS.choices} choices.`, 'questions', 'max_length');
  for (const c of choices)
    if (typeof c !== 'string' || !c.trim() || c.length > LIMITS.textChars)
      throw validationError(`Question ${i + 1}: every choice must be a non-empty string.`, 'questions');
}

function checkRating(q: Obj, i: number): void {
  const display = q.display ?? 'number';
  if (display !== 'number' && display !== 'emoji')
    throw invalidChoice(display, ['number', 'emoji'], 'questions');
  const scale = q.scale ?? 10;
  const scales = display === 'emoji' ? [3, 5] : [5, 7, 10];
  if (!scales.includes(scale as number))
    throw validationError(
      `Question ${i + 1}: a ${display} rating's scale must be one of ${scales.join(', ')}.`,
      'questions',
    );
}

function checkBranching(q: Obj, i: number, count: number): void {
  const b = q.branching;
  if (b === undefined || b === null) return;
  if (!isObj(b) || !BRANCHING_TYPES.includes(b.type as never))
    throw validationError(
      `Question ${i + 1}: branching type must be one of ${BRANCHING_TYPES.join(', ')}.`,
      'questions',
    );
  const target = (to: unknown) => {
    if (to === 'end') return;
    if (!Number.isInteger(to) || (to as number) < 0 || (to as number) >= count)
      throw validationError(
        `Question ${i + 1}: branching goes to question index ${JSON.stringify(to)}, which does not exist.`,
        'questions',
      );
    if ((to as number) <= i)
      throw validationError(`Question ${i + 1}: branching may only go to a later question.`, 'questions');
  };
  if (b.type === 'specific_question') target(b.index);
  if (b.type === 'response_based') {
    if (q.type !== 'single_choice' && q.type !== 'rating')
      throw validationError(
        `Question ${i + 1}: response-based branching is for single choice and rating questions only.`,
        'questions',
      );
    if (!isObj(b.responseValues))
      throw validationError(`Question ${i + 1}: responseValues must be an object.`, 'questions');
    const choices = Array.isArray(q.choices) ? q.choices.length : 0;
    for (const [answer, to] of Object.entries(b.responseValues)) {
      const known =
        q.type === 'rating'
          ? RATING_BUCKETS.includes(answer) || /^\d+$/.test(answer)
          : /^\d+$/.test(answer) && Number(answer) < choices;
      if (!known)
        throw validationError(`Question ${i + 1}: no answer "${answer}" to branch from.`, 'questions');
      target(to);
    }
  }
}

/** Questions as stored: each with an id (given ones kept, so answers keep their keys). */
export function checkQuestions(raw: unknown): Obj[] {
  if (!Array.isArray(raw)) throw validationError('Questions must be a list.', 'questions');
  if (raw.length > LIMITS.questions)
    throw validationError(`A survey has at most ${LIMITS.questions} questions.`, 'questions', 'max_length');
  bounded(raw, 'questions');
  const ids = new Set<string>();
  return raw.map((q, i) => {
    if (!isObj(q)) throw validationError(`Question ${i + 1} must be an object.`, 'questions');
    if (!QUESTION_TYPES.includes(q.type as never))
      throw validationError(
        `Question ${i + 1}: type must be one of ${QUESTION_TYPES.join(', ')}.`,
        'questions',
        'invalid_choice',
      );
    text(q, 'question', true, i);
    text(q, 'description', false, i);
    text(q, 'buttonText', false, i);
    if (q.type === 'link') checkLink(q, i);
    if (q.type === 'single_choice' || q.type === 'multiple_choice') checkChoices(q, i);
    if (q.type === 'rating') checkRating(q, i);
    checkBranching(q, i, raw.length);
    const id = typeof q.id === 'string' && q.id ? q.id : newUuid();
    if (ids.has(id)) throw validationError(`Question ${i + 1}: id ${id} is used twice.`, 'questions');
    ids.add(id);
    return { ...q, id };
  });
}

const stringOrNull = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** Display conditions (url, selector, events, actions, wait period, device types). */
export function checkConditions(raw: unknown): Obj | null {
  if (raw === null || raw === undefined) return null;
  if (!isObj(raw)) throw validationError('Conditions must be an object.', 'conditions');
  bounded(raw, 'conditions');
  if (!stringOrNull(raw.url) || !stringOrNull(raw.selector))
    throw validationError('Conditions url and selector must be strings.', 'conditions');
  const wait = raw.seenSurveyWaitPeriodInDays;
  if (wait !== undefined && wait !== null && (typeof wait !== 'number' || wait < 0))
    throw validationError('seenSurveyWaitPeriodInDays must be a number of days.', 'conditions');
  for (const kind of ['events', 'actions'] as const) {
    const c = raw[kind];
    if (c === undefined || c === null) continue;
    if (!isObj(c) || (c.values !== undefined && !Array.isArray(c.values)))
      throw validationError(`Conditions ${kind} must be an object with a values list.`, 'conditions');
    for (const v of (c.values as unknown[]) ?? [])
      if (!isObj(v) || (kind === 'events' ? typeof v.name !== 'string' : !Number.isInteger(v.id)))
        throw validationError(
          `Conditions ${kind}: every value needs ${kind === 'events' ? 'a name' : 'an id'}.`,
          'conditions',
        );
  }
  return raw;
}

export function checkAppearance(raw: unknown): Obj | null {
  if (raw === null || raw === undefined) return null;
  if (!isObj(raw)) throw validationError('Appearance must be an object.', 'appearance');
  bounded(raw, 'appearance');
  return raw;
}
