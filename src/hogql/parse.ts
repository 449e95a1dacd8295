import type { AnySelect, Expr } from './ast.js';
import * as own from './parser/index.js';

/**
 * The one way into the AST: Burrow's own HogQL parser (src/hogql/parser/), which produces exactly
 * what PostHog's `@posthog/hogql-parser` does (that WASM build stays a dev dependency, as the
 * oracle of the differential tests). Every call returns a fresh AST the caller may mutate.
 * Invalid input throws HogQLSyntaxError with the offending token's position.
 */

/** Kept for callers written when the parser was WASM and needed loading; resolves at once. */
export function loadParser(): Promise<void> {
  return Promise.resolve();
}

export const parseSelect = (text: string): AnySelect => own.parseSelect(text) as unknown as AnySelect;
export const parseExpr = (text: string): Expr => own.parseExpr(text) as unknown as Expr;
export const parseOrderExpr = (text: string): Expr => own.parseOrderExpr(text) as unknown as Expr;
