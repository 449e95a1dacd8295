import createHogQLParser from '@posthog/hogql-parser';
import { HogQLError } from '../../src/hogql/errors.js';
import { parseExpr, parseOrderExpr, parseSelect } from '../../src/hogql/parser/index.js';
import { withReferenceEnds } from './hogql-compare.js';

/**
 * The reference parser (`@posthog/hogql-parser`, WASM) as the oracle of the differential tests:
 * runs a text through both parsers and describes the first difference, or returns null.
 */

export type Kind = 'select' | 'expr' | 'order';

interface Wasm {
  parseSelect(text: string, internal?: boolean): string;
  parseExpr(text: string, internal?: boolean): string;
  parseOrderExpr(text: string, internal?: boolean): string;
}

let wasm: Wasm | null = null;
/** Fresh instances to switch to when one crashes (a crashed WASM instance stays broken). */
const spares: Wasm[] = [];

export async function loadOracle(): Promise<void> {
  wasm ??= (await createHogQLParser()) as Wasm;
  while (spares.length < 2) spares.push((await createHogQLParser()) as Wasm);
}

const ours = { select: parseSelect, expr: parseExpr, order: parseOrderExpr };
const theirs = { select: 'parseSelect', expr: 'parseExpr', order: 'parseOrderExpr' } as const;

/** The reference parser's answer; a WASM crash (it aborts on some inputs) counts as an error. */
export function reference(kind: Kind, text: string): unknown {
  if (wasm === null) throw new Error('loadOracle() first');
  try {
    return JSON.parse(wasm[theirs[kind]](text, false));
  } catch (err) {
    wasm = spares.pop() ?? null;
    return { error: true, message: `WASM crashed: ${String(err)}` };
  }
}

/** Node kinds of Hog programs: the reference parser accepts them in lambda bodies, ours refuses. */
const HOG_NODES =
  /"node":"(Block|ExprStatement|ReturnStatement|VariableDeclaration|IfStatement|WhileStatement|ForStatement|ForInStatement|TryCatchStatement|ThrowStatement|VariableAssignment|Function)"/;

/** Compares both parsers on `text`: null when they agree, else a description of the difference. */
export function compare(kind: Kind, text: string): string | null {
  const expected = reference(kind, text) as { error?: boolean; message?: string };
  let actual: unknown;
  let error: unknown = null;
  try {
    actual = ours[kind](text);
  } catch (err) {
    error = err;
  }
  if (error !== null && !(error instanceof HogQLError)) return `ours threw ${String(error)}`;
  if (expected.error === true) {
    return error === null ? `reference fails (${expected.message?.slice(0, 120)}), ours parses` : null;
  }
  if (HOG_NODES.test(JSON.stringify(expected))) {
    return error !== null && String((error as Error).message).includes('not supported')
      ? null
      : 'reference parses a Hog block, ours should refuse it as unsupported';
  }
  if (error !== null) return `ours fails (${(error as Error).message}), reference parses`;
  return firstDifference(expected, withReferenceEnds(text, actual), '$');
}

function firstDifference(a: unknown, b: unknown, path: string): string | null {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return Object.is(a, b) ? null : `${path}: reference ${show(a)}, ours ${show(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array and non-array`;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (!(key in right)) return `${path}.${key}: missing in ours (reference ${show(left[key])})`;
    if (!(key in left)) return `${path}.${key}: not in reference (ours ${show(right[key])})`;
    const diff = firstDifference(left[key], right[key], `${path}.${key}`);
    if (diff !== null) return diff;
  }
  return null;
}

const show = (value: unknown) =>
  Object.is(value, -0) ? '-0' : (JSON.stringify(value) ?? 'undefined').slice(0, 160);
