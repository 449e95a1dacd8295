import { Liquid } from 'liquidjs';
import { validationError } from '../../errors.js';

/**
 * Input values are templates over the invocation's globals (`event`, `person`, `groups`,
 * `project`, `source`, `inputs`), in PostHog's two templatings:
 * - `hog`: `{path.to.value}` template strings. Only paths are evaluated (no calls, operators or
 *   literals); a string that is one `{path}` and nothing else gives the value itself (an object
 *   stays an object), else values are interpolated (objects as JSON). `\{` is a literal brace.
 * - `liquid`: Liquid, with parse, render-time and memory limits so hostile templates are cut off.
 */
export type Templating = 'hog' | 'liquid';
export type Globals = Record<string, unknown>;

export class TemplateError extends Error {}

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

export function parseHogTemplate(s: string): Part[] {
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

const liquid = new Liquid({
  parseLimit: MAX_TEMPLATE,
  renderLimit: 1000,
  memoryLimit: 10_000_000,
  ownPropertyOnly: true,
  strictFilters: true,
  cache: 100,
  relativeReference: false,
  // No file system: `include` / `render` / `layout` find nothing.
  fs: {
    exists: async () => false,
    existsSync: () => false,
    readFile: async () => '',
    readFileSync: () => '',
    resolve: (_dir: string, file: string) => file,
    contains: async () => false,
  },
});

export function checkLiquid(s: string): void {
  try {
    liquid.parse(s);
  } catch (error) {
    throw new TemplateError(`Liquid template does not parse: ${(error as Error).message.split('\n')[0]}`);
  }
}

async function renderLiquid(s: string, globals: Globals): Promise<string> {
  try {
    return await liquid.parseAndRender(s, globals);
  } catch (error) {
    throw new TemplateError(`Liquid template failed: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** Checks every string inside `value` parses in its templating; throws TemplateError. */
export function checkTemplate(value: unknown, templating: Templating): void {
  walkStrings(value, (s) => {
    if (templating === 'liquid') checkLiquid(s);
    else parseHogTemplate(s);
  });
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

/** Renders every string inside `value` (object keys too); other values are kept. */
export async function renderValue(
  value: unknown,
  templating: Templating,
  globals: Globals,
): Promise<unknown> {
  if (typeof value === 'string')
    return templating === 'liquid' ? renderLiquid(value, globals) : renderHog(value, globals);
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderValue(v, templating, globals)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[printed(await renderValue(k, templating, globals))] = await renderValue(v, templating, globals);
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
