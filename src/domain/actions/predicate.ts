import { compare, constant, type Expr, field } from '../../hogql/ast.js';
import { hrefMatches, type Matching, matches, tagNameMatches, textMatches } from '../../hogql/elements.js';
import { type AnyProperties, propertiesToExpr } from '../../hogql/property-filters.js';
import { selectorToExpr } from '../../hogql/selector.js';
import type { ActionStep } from '../../store/meta/actions.js';
import { all, isTrue, or } from '../insights/ast-kit.js';

/**
 * An action as a HogQL condition over `events`: any step matches (OR), a step being every one of
 * its parts (AND). User values only ever become constants of the AST, never query text.
 */
export function actionToExpr(steps: ActionStep[]): Expr {
  // An action without steps matches nothing, as in PostHog.
  if (steps.length === 0) return constant(false);
  return or(...steps.map(stepToExpr));
}

const set = (s: string | null | undefined): s is string => typeof s === 'string' && s !== '';
const how = (m: unknown, fallback: Matching): Matching =>
  m === 'regex' || m === 'exact' || m === 'contains' ? m : fallback;

export function stepToExpr(step: ActionStep): Expr {
  const parts: Expr[] = [];
  if (set(step.event)) parts.push(compare('==', field('event'), constant(step.event)));
  if (set(step.selector)) parts.push(selectorToExpr(step.selector));
  if (set(step.tag_name)) parts.push(tagNameMatches(step.tag_name));
  if (set(step.href)) parts.push(hrefMatches(step.href, how(step.href_matching, 'exact')));
  if (set(step.text)) parts.push(textMatches(step.text, how(step.text_matching, 'exact')));
  if (set(step.url))
    parts.push(
      matches(field('properties', '$current_url'), step.url, how(step.url_matching, 'contains'), false),
    );
  const props = propertiesToExpr((step.properties ?? null) as AnyProperties);
  if (!isTrue(props)) parts.push(props);
  return all(parts);
}
