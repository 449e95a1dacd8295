import { validationError } from '../../errors.js';
import { LiquidBusyError } from './liquid-pool.js';

/**
 * Input values are templates over the invocation's globals (`event`, `person`, `groups`,
 * `project`, `source`, `inputs`), in PostHog's two templatings:
 * - `hog`: `{path.to.value}` template strings. Only paths are evaluated (no calls, operators or
 *   literals); a string that is one `{path}` and nothing else gives the value itself (an object
 *   stays an object), else values are interpolated (objects as JSON). `\{` is a literal brace.
 * - `liquid`: Liquid, rendered in worker threads (liquid-pool.ts) with parse, render-time and memory
 *   limits so hostile templates are cut off without holding the event loop.
 */
export type Templating = 'hog' | 'liquid';
export type Globals = Record<string, unknown>;

export class TemplateError extends Error {}

/** Liquid's workers had too many templates waiting: the template may be fine, try again later. */
export class TemplateBusyError extends TemplateError {}

const ROOTS = new Set(['event', 'person', 'groups', 'project', 'source', 'inputs']);
const PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$-]*|\.\d+|\[\d+\]|\['[^'\\]*'\]|\["[^"\\]*"\])*$/;
const SEGMENT = /\.([A-Za-z_$][\w$-]*|\d+)|\[(\d+)\]|\['([^'\\]*)'\]|\["([^"\\]*)"\]/g;

type Part = { text: string } | { path: string[] };

function parsePath(expr: string): string[] {
  const e = expr.trim();
  if (!PATH.test(e)) {
    throw new TemplateError(
      `'{${expr}}' is not supported: only paths such as {event.properties.plan} are evaluated in Hog templates`,
    );
  }
  const root = /^[A-Za-z_$][\w$]*/.exec(e)![0];
  if (!ROOTS.has(root))
    throw new TemplateError(
      `'{${expr}}': unknown name '${root}' (use event, person, groups, project, source or inputs)`,
    );
  const path = [root];
  for (const m of e.slice(root.length).matchAll(SEGMENT)) path.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
  return path;
}

const MAX_TEMPLATE = 64 * 1024;

/**
 * Parsed Hog templates, most recently used last: delivery renders the same few templates for every
 * event. Bounded in entries and in the length of what is kept (at most ~2 MB of templates).
 */
const hogParsed = new Map<string, readonly Part[]>();
const HOG_CACHE_ENTRIES = 500;
const HOG_CACHE_MAX_LENGTH = 4096;

export function parseHogTemplate(s: string): readonly Part[] {
  const cached = hogParsed.get(s);
  if (cached) {
    hogParsed.delete(s);
    hogParsed.set(s, cached);
    return cached;
  }
  const parts = parseHogParts(s);
  if (s.length <= HOG_CACHE_MAX_LENGTH) {
    if (hogParsed.size >= HOG_CACHE_ENTRIES) hogParsed.delete(hogParsed.keys().next().value!);
    hogParsed.set(s, parts);
  }
  return parts;
}

function parseHogParts(s: string): Part[] {
  if (s.length > MAX_TEMPLATE) throw new TemplateError('The template is too long');
  const parts: Part[] = [];
  let text = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && (s[i + 1] === '{' || s[i + 1] === '}')) {
      text += s[++i];
    } else if (c === '{') {
      const end = s.indexOf('}', i + 1);
      if (end < 0) throw new TemplateError(`Unclosed '{' at position ${i}`);
      if (text) parts.push({ text });
      text = '';
      parts.push({ path: parsePath(s.slice(i + 1, end)) });
      i = end;
    } else text += c;
  }
  if (text) parts.push({ text });
  return parts;
}

function lookup(globals: Globals, path: string[]): unknown {
  let v: unknown = globals;
  for (const key of path) {
    if (v === null || v === undefined || typeof v !== 'object') return null;
    if (!Object.hasOwn(v, key)) return null;
    v = (v as Record<string, unknown>)[key];
  }
  return v ?? null;
}

const printed = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

function renderHog(s: string, globals: Globals): unknown {
  const parts = parseHogTemplate(s);
  if (parts.length === 1 && 'path' in parts[0]!) return lookup(globals, parts[0].path);
  return parts.map((p) => ('text' in p ? p.text : printed(lookup(globals, p.path)))).join('');
}

/**
 * Where Liquid runs: a pool of worker threads (liquid-pool.ts), never the event loop. Its errors'
 * messages are liquidjs' first line, or the pool's own limit, memory and busy messages.
 */
export interface LiquidEngine {
  render(template: string, globals: Globals): Promise<string>;
  parse(template: string): Promise<void>;
}

async function renderLiquid(s: string, globals: Globals, liquid: LiquidEngine): Promise<string> {
  try {
    return await liquid.render(s, globals);
  } catch (error) {
    const Failure = error instanceof LiquidBusyError ? TemplateBusyError : TemplateError;
    throw new Failure(`Liquid template failed: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** Checks every string inside a Hog-templated `value` parses; throws TemplateError. */
export function checkHogTemplate(value: unknown): void {
  walkStrings(value, (s) => void parseHogTemplate(s));
}

/**
 * Checks every string inside `value` parses in its templating; rejects with TemplateError.
 * Liquid is parsed in the engine's workers too: parsing 64 KB of hostile Liquid takes up to
 * ~400 ms, and a value holds many strings.
 */
export async function checkTemplate(
  value: unknown,
  templating: Templating,
  liquid: LiquidEngine,
): Promise<void> {
  if (templating === 'hog') return checkHogTemplate(value);
  const strings: string[] = [];
  walkStrings(value, (s) => strings.push(s));
  // One at a time: a value with many strings does not fill the engine's queue.
  for (const s of strings) {
    try {
      await liquid.parse(s);
    } catch (error) {
      throw new TemplateError(`Liquid template does not parse: ${(error as Error).message.split('\n')[0]}`);
    }
  }
}

function walkStrings(value: unknown, visit: (s: string) => void, depth = 0): void {
  if (depth > 20) throw new TemplateError('The input is nested too deeply');
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const v of value) walkStrings(v, visit, depth + 1);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      visit(k);
      walkStrings(v, visit, depth + 1);
    }
}

/**
 * Renders every string inside `value` (object keys too); other values are kept. Liquid needs
 * `liquid`, the engine it runs in.
 */
export async function renderValue(
  value: unknown,
  templating: Templating,
  globals: Globals,
  liquid?: LiquidEngine,
): Promise<unknown> {
  if (typeof value === 'string') {
    if (templating === 'hog') return renderHog(value, globals);
    if (!liquid) throw new Error('Liquid templates need a Liquid engine');
    return renderLiquid(value, globals, liquid);
  }
  if (Array.isArray(value)) {
    // One at a time: a long list of Liquid strings does not fill the engine's queue at once.
    const out: unknown[] = [];
    for (const v of value) out.push(await renderValue(v, templating, globals, liquid));
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[printed(await renderValue(k, templating, globals, liquid))] = await renderValue(
        v,
        templating,
        globals,
        liquid,
      );
    }
    return out;
  }
  return value;
}

/** A template error at save time: a 400 on `inputs`. */
export function asValidation(error: unknown, attr: string): never {
  if (error instanceof TemplateError) throw validationError(error.message, attr);
  throw error;
}
