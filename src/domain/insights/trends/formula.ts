import { ApiError } from '../../../errors.js';
import type { Expr } from '../../../hogql/ast.js';
import { HogQLQueryError } from '../../../hogql/errors.js';
import { parseExpr } from '../../../hogql/parse.js';

/**
 * Trends formulas (`A+2*B`, `(A-B)/A`): letters name series by position. Parsed with the HogQL
 * expression parser and evaluated per bucket; only numbers, letters, + - * / % and parentheses.
 */
export type Formula = (values: number[]) => number;

const bad = (detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, 'trendsFilter.formula');

export function compileFormula(text: string, seriesCount: number): Formula {
  let ast: Expr;
  try {
    ast = parseExpr(text);
  } catch (err) {
    if (err instanceof HogQLQueryError || err instanceof Error)
      throw bad(`Invalid formula "${text.slice(0, 100)}": ${err.message}`);
    throw err;
  }
  return build(ast, seriesCount, text);
}

function build(e: Expr, n: number, text: string): Formula {
  switch (e.node) {
    case 'Constant':
      if (typeof e.value !== 'number') break;
      return () => e.value as number;
    case 'Field': {
      const name = e.chain.length === 1 ? String(e.chain[0]).toUpperCase() : '';
      const index = name.length === 1 ? name.charCodeAt(0) - 65 : -1;
      if (index < 0 || index > 25) break;
      if (index >= n)
        throw bad(`Formula "${text.slice(0, 100)}" uses ${name} but there are only ${n} series.`);
      return (v) => v[index] ?? 0;
    }
    case 'ArithmeticOperation': {
      const l = build(e.left, n, text);
      const r = build(e.right, n, text);
      const op = e.op;
      return (v) => {
        const a = l(v);
        const b = r(v);
        if (op === '+') return a + b;
        if (op === '-') return a - b;
        if (op === '*') return a * b;
        if (op === '/') return b === 0 ? 0 : a / b;
        return b === 0 ? 0 : a % b;
      };
    }
    case 'Call':
      if (e.name === 'minus' && e.args.length === 1) {
        const inner = build(e.args[0] as Expr, n, text);
        return (v) => -inner(v);
      }
      break;
  }
  throw bad(
    `Invalid formula "${text.slice(0, 100)}": use series letters (A, B, ...), numbers, + - * / and parentheses.`,
  );
}

/** Applies a formula bucket by bucket over equally long series. */
export function applyFormula(f: Formula, series: number[][]): number[] {
  const length = Math.max(0, ...series.map((s) => s.length));
  return Array.from({ length }, (_, i) => {
    const out = f(series.map((s) => s[i] ?? 0));
    return Number.isFinite(out) ? Math.round(out * 1e9) / 1e9 : 0;
  });
}
