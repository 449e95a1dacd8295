import { call, constant, type Expr } from '../../hogql/ast.js';
import { parseExpr } from '../../hogql/parse.js';
import type { RunnerContext } from '../query/context.js';
import { checkRegex } from '../regex/check.js';
import { invalid } from './common.js';

/** The project's `path_cleaning_filters`: each `regex` match in a path is replaced by `alias`. */
export type PathCleaning = { regex: string; alias: string }[];

/** More rules than this nest too many replacements into every path a query reads. */
const MAX_RULES = 100;
const MAX_ALIAS = 1_000;

/**
 * A project's rules as a PATCH sends them: at most 100, each `{regex, alias}` with a pattern RE2
 * runs within Burrow's limits (a 400 naming the rule otherwise), so that a rule a query would refuse
 * is refused when it is saved. PostHog's own keys beside them (`order`) are kept as sent.
 */
export function checkPathCleaningRules(raw: unknown): void {
  if (raw === null || raw === undefined) return;
  if (!Array.isArray(raw))
    throw invalid('path_cleaning_filters must be a list of {regex, alias}', 'path_cleaning_filters');
  if (raw.length > MAX_RULES)
    throw invalid(`At most ${MAX_RULES} path cleaning rules apply to a query`, 'path_cleaning_filters');
  raw.forEach((f, i) => {
    const attr = `path_cleaning_filters__${i}__regex`;
    const rule = f as { regex?: unknown; alias?: unknown } | null;
    if (!rule || typeof rule !== 'object' || typeof rule.regex !== 'string')
      throw invalid(`path_cleaning_filters[${i}] needs a regex`, attr);
    checkRegex(rule.regex, attr);
    if (rule.alias !== undefined && rule.alias !== null && typeof rule.alias !== 'string')
      throw invalid(`path_cleaning_filters[${i}].alias must be text`, `path_cleaning_filters__${i}__alias`);
    if (typeof rule.alias === 'string' && rule.alias.length > MAX_ALIAS)
      throw invalid(
        `path_cleaning_filters[${i}].alias is longer than ${MAX_ALIAS} characters`,
        `path_cleaning_filters__${i}__alias`,
      );
  });
}

/**
 * The project's rules, checked again: rules saved before saves were checked may not run, so each
 * must be one RE2 (the engine's `replaceRegexpAll`) runs within Burrow's limits, else the query is
 * a 400 naming the rule. Entries without a string `regex` are skipped.
 */
export function pathCleaningOf(ctx: Pick<RunnerContext, 'pathCleaningFilters'>): PathCleaning {
  const raw = ctx.pathCleaningFilters;
  if (!Array.isArray(raw)) return [];
  const rules: PathCleaning = [];
  raw.forEach((f, i) => {
    if (!f || typeof f !== 'object' || typeof (f as { regex?: unknown }).regex !== 'string') return;
    const { regex, alias } = f as { regex: string; alias?: unknown };
    const attr = `path_cleaning_filters__${i}__regex`;
    checkRegex(regex, attr);
    const text = typeof alias === 'string' ? alias : '';
    if (text.length > MAX_ALIAS)
      throw invalid(`path_cleaning_filters[${i}].alias is longer than ${MAX_ALIAS} characters`, attr);
    rules.push({ regex, alias: text });
  });
  if (rules.length > MAX_RULES)
    throw invalid(
      `The project has ${rules.length} path cleaning rules; at most ${MAX_RULES} apply to a query`,
      'path_cleaning_filters',
    );
  return rules;
}

/** The path expression with every rule applied in order, as PostHog's `doPathCleaning`. */
export function cleanedPath(path: string, rules: PathCleaning): Expr {
  let expr = parseExpr(path);
  for (const r of rules) expr = call('replaceRegexpAll', [expr, constant(r.regex), constant(r.alias)]);
  return expr;
}
