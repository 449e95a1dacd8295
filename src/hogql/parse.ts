import { type AnySelect, cloneAst, type Expr } from './ast.js';
import { HogQLQueryError, HogQLSyntaxError } from './errors.js';

/**
 * The one way into the AST. Backed by PostHog's parser compiled to WASM (~18 ms per query), so
 * parses are cached by text; the own TypeScript parser (src/hogql/parser/) replaces it behind
 * this interface. Callers get a private copy they may mutate.
 */
interface WasmParser {
  parseSelect(input: string, isInternal?: boolean): string;
  parseExpr(input: string, isInternal?: boolean): string;
  parseOrderExpr(input: string, isInternal?: boolean): string;
}

let wasm: WasmParser | undefined;
/** A second instance that takes over at once when `wasm` crashes (see `guarded`). */
let spare: WasmParser | undefined;
let loading: Promise<void> | undefined;

async function instantiate(): Promise<WasmParser> {
  const m = await import('@posthog/hogql-parser');
  return (await m.default()) as WasmParser;
}

/** Loads the parser (and its spare); everything else here is synchronous after this resolved. */
export function loadParser(): Promise<void> {
  if (wasm && spare) return Promise.resolve();
  loading ??= (async () => {
    try {
      while (!wasm || !spare) {
        const p = await instantiate();
        if (!wasm) wasm = p;
        else spare = p;
      }
    } finally {
      loading = undefined;
    }
  })();
  return loading;
}

/**
 * A few hundred chained operators (`1 + 1 + ...`, `a ?? b ?? ...`) exhaust the WASM parser's
 * stack; it throws a RuntimeError and the instance is broken from then on. The spare replaces it
 * and the user gets a syntax error instead of every later query failing.
 */
function guarded(p: WasmParser, parse: (p: WasmParser) => string): string {
  try {
    return parse(p);
  } catch {
    wasm = spare;
    spare = undefined;
    loadParser().catch(() => {});
    throw new HogQLSyntaxError('Query is too complex to parse');
  }
}

const CACHE_SIZE = 2000;
const cache = new Map<string, unknown>();

function cached<T>(kind: 'select' | 'expr' | 'order', text: string, parse: (p: WasmParser) => string): T {
  const key = `${kind}:${text}`;
  let ast = cache.get(key);
  if (ast === undefined) {
    if (!wasm) throw new Error('HogQL parser not loaded: await loadParser() first');
    ast = decode(guarded(wasm, parse));
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, ast);
  } else {
    cache.delete(key);
    cache.set(key, ast);
  }
  return cloneAst(ast) as T;
}

interface WasmError {
  error: true;
  type: string;
  message: string;
  start?: { offset: number };
  end?: { offset: number };
}

function decode(json: string): unknown {
  const out = JSON.parse(json) as WasmError | { node: string };
  if ('error' in out && out.error) {
    if (out.type === 'NotImplementedError') throw new HogQLQueryError(out.message);
    throw new HogQLSyntaxError(out.message, out.start?.offset, out.end?.offset);
  }
  return out;
}

export const parseSelect = (text: string): AnySelect => cached('select', text, (p) => p.parseSelect(text));
export const parseExpr = (text: string): Expr => cached('expr', text, (p) => p.parseExpr(text));
export const parseOrderExpr = (text: string): Expr => cached('order', text, (p) => p.parseOrderExpr(text));
