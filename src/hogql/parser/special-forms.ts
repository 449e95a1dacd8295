import { parseArray } from './brackets.js';
import { parseExpr } from './expressions.js';
import { parseIntervalForm } from './intervals.js';
import { parseIdentifierList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { parseColumns } from './star.js';
import { parseTemplateString } from './templates.js';
import { T } from './tokens.js';
import { parseTypeName } from './types.js';

/**
 * Runs `parse` and returns its result, or rewinds and returns null if it fails: keywords such as
 * CASE, CAST or INTERVAL also name columns and functions, and only the rest of the input tells.
 */
export function attempt<R>(p: Parser, parse: () => R): R | null {
  const pos = p.pos;
  const depth = p.depth;
  const deferred = p.deferred;
  try {
    return parse();
  } catch (err) {
    if (!p.recoverable(err)) throw err;
    p.pos = pos;
    p.depth = depth;
    p.deferred = deferred;
    return null;
  }
}

/** Keyword-led forms; null when the keyword is just a name here (`case`, `interval(1)`, …). */
export function parseKeywordForm(p: Parser): Node | null {
  const first = p.pos;
  const next = p.peek();
  switch (p.t) {
    case T.CASE:
      if (next === T.WHEN) return parseCase(p, false);
      // `case case when …`: the second "case" may be a column, the subject of the first
      return attempt(p, () => parseCase(p, false)) ?? attempt(p, () => parseCase(p, true));
    case T.CAST:
    case T.TRY_CAST:
      return next === T.LPAREN ? attempt(p, () => parseCast(p)) : null;
    case T.DATE:
    case T.TIMESTAMP: {
      if (next !== T.STRING) return null;
      const word = p.t === T.DATE ? 'DATE' : 'TIMESTAMP';
      p.defer(p.unsupported(`${word} '…' literals are not supported, use toDate() or toDateTime()`));
      p.pos += 2;
      return p.span({ node: 'Constant', value: p.stringAt(first + 1) }, first);
    }
    case T.INTERVAL:
      return parseIntervalForm(p);
    case T.SUBSTRING:
      return next === T.LPAREN ? attempt(p, () => parseSubstringFrom(p)) : null;
    case T.TRIM:
      return next === T.LPAREN ? attempt(p, () => parseTrim(p)) : null;
    case T.COLUMNS:
      return next === T.LPAREN ? parseColumns(p) : null;
    case T.LAMBDA:
      return attempt(p, () => parseColonLambda(p));
    case T.ARRAY:
      if (next !== T.LBRACKET) return null;
      p.pos++;
      return parseArray(p, first);
  }
  return null;
}

function parseCase(p: Parser, nameSubject: boolean): Node {
  const first = p.pos++;
  let subject: Node | null;
  if (nameSubject) {
    const at = p.pos;
    subject = p.span({ node: 'Field', chain: [p.identifier()] }, at);
  } else {
    // CASE WHEN WHEN …: the first "when" is a column, the subject of the CASE
    subject = p.at(T.WHEN) && p.peek() !== T.WHEN ? null : parseExpr(p);
  }
  const args: Node[] = subject === null ? [] : [subject];
  p.expect(T.WHEN, 'WHEN');
  let branches = 0;
  do {
    args.push(parseExpr(p));
    p.expect(T.THEN, 'THEN');
    args.push(parseExpr(p));
    branches++;
  } while (p.accept(T.WHEN));
  args.push(p.accept(T.ELSE) ? parseExpr(p) : { node: 'Constant', value: null });
  p.expect(T.END, 'END');
  const name = subject !== null ? '_caseWithExpression' : branches === 1 ? 'if' : 'multiIf';
  return p.span({ node: 'Call', name, args }, first);
}

function parseCast(p: Parser): Node {
  const first = p.pos;
  const kind = p.t === T.CAST ? 'TypeCast' : 'TryCast';
  const close = p.closing(first + 1);
  // the expression runs up to a top-level AS, the last one that works: `cast(x as y as Int)`
  // casts the alias `x as y`, while `cast(x as as String)` casts x to the type "as string"
  const candidates: number[] = [];
  for (let i = first + 2; i < close; i++) {
    const t = p.type[i];
    if (t === T.LPAREN || t === T.LBRACKET || t === T.LBRACE || t === T.TEMPLATE_EXPR) i = p.closing(i);
    else if (t === T.AS) candidates.push(i);
  }
  if (candidates.length === 0) throw p.unexpected('AS');
  for (let c = candidates.length - 1; c >= 0; c--) {
    const as = candidates[c] as number;
    const parsed = c === 0 ? castAt(p, first, as, kind) : attempt(p, () => castAt(p, first, as, kind));
    if (parsed !== null) return parsed;
  }
  throw p.unexpected();
}

function castAt(p: Parser, first: number, as: number, kind: string): Node {
  p.pos = first + 2;
  const expr = p.bounded(as, () => parseExpr(p));
  p.expect(T.AS, 'AS');
  const typeName = parseTypeName(p);
  p.expect(T.RPAREN, "')'");
  return p.span({ node: kind, expr, type_name: typeName }, first);
}

/** SUBSTRING(x FROM a [FOR b]): valid syntax that the reference AST does not support. */
function parseSubstringFrom(p: Parser): Node {
  const first = p.pos;
  p.pos += 2;
  const args = [parseExpr(p)];
  p.expect(T.FROM, 'FROM');
  args.push(parseExpr(p));
  if (p.accept(T.FOR)) args.push(parseExpr(p));
  p.expect(T.RPAREN, "')'");
  p.defer(p.unsupported('SUBSTRING(x FROM …) is not supported, use substring(x, start, length)', first));
  return p.span({ node: 'Call', name: 'substring', args }, first);
}

/** TRIM(BOTH|LEADING|TRAILING 'x' FROM expr) → trim / trimLeft / trimRight(expr, 'x'). */
function parseTrim(p: Parser): Node {
  const first = p.pos;
  const side = p.peek(2);
  const name =
    side === T.BOTH ? 'trim' : side === T.LEADING ? 'trimLeft' : side === T.TRAILING ? 'trimRight' : '';
  if (name === '') throw p.unexpected();
  p.pos += 3;
  let chars: Node;
  if (p.at(T.STRING)) {
    const at = p.pos++;
    chars = p.span({ node: 'Constant', value: p.stringAt(at) }, at);
  } else if (p.at(T.TEMPLATE_START)) {
    chars = parseTemplateString(p);
  } else {
    throw p.unexpected('a string');
  }
  p.expect(T.FROM, 'FROM');
  const expr = parseExpr(p);
  p.expect(T.RPAREN, "')'");
  return p.span({ node: 'Call', name, args: [expr, chars] }, first);
}

/** LAMBDA x, y: body */
function parseColonLambda(p: Parser): Node {
  const first = p.pos++;
  const args = parseIdentifierList(p, true);
  p.expect(T.COLON, "':'");
  const expr = parseExpr(p);
  return p.span({ node: 'Lambda', args, expr }, first);
}
