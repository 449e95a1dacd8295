import { validationError } from '../../errors.js';
import { compileSelect } from '../../hogql/compile.js';
import { isExposed } from '../../hogql/errors.js';
import { loadParser } from '../../hogql/parse.js';
import type { EventsStore } from '../../store/events/store.js';
import { type Catalog, type CatalogSource, EMPTY_CATALOG } from './catalog.js';
import { render } from './draft.js';
import { CURRENT_QUERY_MAX, llmFailed, PROMPT_MAX, required, tooLong, unclear } from './errors.js';
import { complete, extractSql, type LlmConfig, LlmError } from './llm.js';
import { chatMessages } from './llm-prompt.js';
import { analyse } from './prompt.js';
import { REFINE, refine } from './refine.js';
import { resolve } from './resolve.js';
import { fromTemplates } from './templates.js';

export interface DraftContext {
  team: { id: number; timezone: string; weekStartDay: 0 | 1 };
  events: Pick<EventsStore, 'table'>;
  catalogs: CatalogSource;
  llm?: LlmConfig;
  warn?: (message: string, err?: unknown) => void;
}

export interface DraftInput {
  prompt?: string | undefined;
  current_query?: string | undefined;
}

export type DraftSource = 'llm' | 'template' | 'refine';

/** Why a draft does not compile for this project, or undefined when it does. */
function compileProblem(ctx: DraftContext, sql: string): string | undefined {
  try {
    compileSelect(sql, {
      teamId: ctx.team.id,
      timezone: ctx.team.timezone,
      weekStartDay: ctx.team.weekStartDay,
      table: (t) => ctx.events.table(t),
    });
    return undefined;
  } catch (err) {
    return isExposed(err) ? err.message : 'it is not a query Burrow can run';
  }
}

/** Without a model, or when the model's answer is unusable: refine the current query or fill a template. */
function fromRules(
  ctx: DraftContext,
  catalog: Catalog,
  prompt: string,
  current: string | undefined,
  why?: string,
) {
  const a = analyse(prompt);
  const r = resolve(a, catalog);
  if (current?.trim() && REFINE.test(a.raw)) {
    let refined: ReturnType<typeof refine>;
    try {
      refined = refine(current, a, r);
    } catch (err) {
      const detail = isExposed(err) ? err.message : 'It is not a HogQL SELECT.';
      throw validationError(
        `The current query could not be read: ${detail}`,
        'current_query',
        'invalid_input',
      );
    }
    if (refined && 'problem' in refined) throw unclear(refined.problem);
    if (refined && !r.unknownEvents.length && !r.unknownProperties.length) {
      const problem = compileProblem(ctx, refined.sql);
      if (problem) throw unclear(`The refined query does not compile: ${problem}.`);
      return { sql: refined.sql, source: 'refine' as const };
    }
  }
  const outcome = fromTemplates({ a, r, catalog });
  if ('problem' in outcome) throw unclear([why, outcome.problem].filter(Boolean).join(' '));
  const sql = render(outcome.draft);
  const problem = compileProblem(ctx, sql);
  if (problem) {
    ctx.warn?.(`draft_sql template ${outcome.template} produced SQL that does not compile: ${problem}`);
    throw unclear(why);
  }
  return { sql, source: 'template' as const };
}

/** English → HogQL draft: the model when configured, checked by compiling; templates otherwise. */
export async function draftSql(
  ctx: DraftContext,
  input: DraftInput,
): Promise<{ sql: string; source: DraftSource }> {
  const prompt = typeof input.prompt === 'string' ? input.prompt.trim() : '';
  if (!prompt) throw required();
  if (prompt.length > PROMPT_MAX) throw tooLong();
  const current = typeof input.current_query === 'string' ? input.current_query : undefined;
  if (current !== undefined && current.length > CURRENT_QUERY_MAX) {
    throw validationError(
      `Ensure this field has no more than ${CURRENT_QUERY_MAX} characters.`,
      'current_query',
      'max_length',
    );
  }
  await loadParser();
  let catalog = EMPTY_CATALOG;
  try {
    catalog = await ctx.catalogs.get(ctx.team.id);
  } catch (err) {
    ctx.warn?.("draft_sql could not read the project's event names; drafting without them", err);
  }
  if (!ctx.llm) return fromRules(ctx, catalog, prompt, current);

  let answer: string;
  try {
    answer = await complete(ctx.llm, chatMessages(catalog, prompt, current));
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    ctx.warn?.(`draft_sql model call failed: ${err.message}`, err);
    try {
      return fromRules(ctx, catalog, prompt, current);
    } catch {
      throw llmFailed(err);
    }
  }
  const extracted = extractSql(answer);
  if ('unclear' in extracted) return fromRules(ctx, catalog, prompt, current, extracted.unclear || undefined);
  const problem = !extracted.sql
    ? 'the answer held no query'
    : extracted.sql.length > CURRENT_QUERY_MAX
      ? 'the answer is too long'
      : compileProblem(ctx, extracted.sql);
  if (!problem) return { sql: extracted.sql, source: 'llm' };
  return fromRules(ctx, catalog, prompt, current, `The drafted query does not compile: ${problem}.`);
}
