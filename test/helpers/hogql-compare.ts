import { tokenize } from '../../src/hogql/parser/lexer.js';
import { Source } from '../../src/hogql/parser/source.js';

type Json = unknown;
interface Pos {
  line: number;
  column: number;
  offset: number;
}

/**
 * The reference parser computes a node's end as (line of its last token's start, that token's
 * start column + the token's length in UTF-8 bytes), which is wrong for tokens that span lines or
 * contain non-ASCII characters; ours reports where the node really ends. To compare the two ASTs
 * exactly, this rewrites every `end` of our AST the reference parser's way.
 */
export function withReferenceEnds(text: string, ast: Json): Json {
  const source = new Source(text);
  const tokens = tokenize(source);
  const byEnd = new Map<number, Pos>();
  for (let i = 0; i < tokens.type.length - 1; i++) {
    const start = tokens.start[i] as number;
    const end = tokens.end[i] as number;
    const at = source.position(start);
    const bytes = Buffer.byteLength(text.slice(start, end), 'utf8');
    byEnd.set(source.offset(end), { line: at.line, column: at.column + bytes, offset: source.offset(end) });
  }
  const visit = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, Json> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === 'end' && child !== null && typeof child === 'object' && 'offset' in child) {
        out[key] = byEnd.get((child as Pos).offset) ?? child;
      } else {
        out[key] = visit(child);
      }
    }
    return out;
  };
  return visit(ast);
}
