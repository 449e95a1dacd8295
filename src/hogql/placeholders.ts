import { type Constant, cloneAst, type Expr, type Node } from './ast.js';
import { HogQLQueryError } from './errors.js';
import { replaceNodes } from './visit.js';

export interface HogQLVariable {
  variableId?: string;
  code_name: string;
  value?: unknown;
  isNull?: boolean;
}

export interface PlaceholderValues {
  /** `HogQLQuery.values`: `{name}` becomes this value, as a constant. */
  values?: Record<string, unknown> | undefined;
  /** `HogQLQuery.variables`, keyed by variable id: `{variables.code_name}`. */
  variables?: Record<string, HogQLVariable> | undefined;
  /** Placeholders that stand for AST (`{filters}` from the query runner). */
  exprs?: Record<string, Expr> | undefined;
}

/** A JSON value as a HogQL constant (arrays become arrays of constants). */
export function toConstant(value: unknown, name: string): Expr {
  if (value === null || value === undefined) return { node: 'Constant', value: null };
  if (typeof value === 'string' || typeof value === 'boolean') return { node: 'Constant', value };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new HogQLQueryError(`Placeholder {${name}} is not a finite number`);
    return { node: 'Constant', value } satisfies Constant;
  }
  if (Array.isArray(value)) return { node: 'Array', exprs: value.map((v) => toConstant(v, name)) };
  throw new HogQLQueryError(`Placeholder {${name}} has a value of an unsupported type`);
}

/** Replaces every `{placeholder}`; one left without a value is an error naming it. */
export function replacePlaceholders<T extends Node>(root: T, given: PlaceholderValues): T {
  const byCode = new Map(Object.values(given.variables ?? {}).map((v) => [v.code_name, v]));
  return replaceNodes(root, (node) => {
    if (node.node !== 'Placeholder') return undefined;
    const e = node.expr;
    if (e.node !== 'Field' || !e.chain.every((c) => typeof c === 'string')) {
      throw new HogQLQueryError('Placeholders can only hold a name, like {name} or {variables.code_name}');
    }
    const chain = e.chain as string[];
    const text = chain.join('.');
    if (chain.length === 2 && chain[0] === 'variables') {
      const v = byCode.get(chain[1] as string);
      if (!v) throw new HogQLQueryError(`Variable ${chain[1]} is missing from query`);
      return v.isNull ? { node: 'Constant', value: null } : toConstant(v.value, text);
    }
    if (chain.length === 1) {
      const name = chain[0] as string;
      const ast = given.exprs?.[name];
      if (ast) return cloneAst(ast);
      if (given.values && Object.hasOwn(given.values, name)) return toConstant(given.values[name], name);
    }
    throw new HogQLQueryError(`Unresolved placeholder: {${text}}`);
  }) as T;
}
