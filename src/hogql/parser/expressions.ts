import { MAX_AST_DEPTH, type Node, type Parser } from './parser.js';
import { parsePostfix } from './postfix.js';
import { parsePrimary } from './primary.js';
import { T } from './tokens.js';

/**
 * Binding strength of the operators, strongest first, as the reference grammar orders them:
 * member access and calls, unary minus, * / %, + - ||, comparisons, IGNORE NULLS, IS [NOT] NULL,
 * IS [NOT] DISTINCT FROM, <=>, ??, BETWEEN, NOT, AND, OR, ?:, AS.
 */
export const P = {
  POSTFIX: 100,
  NEGATE: 90,
  MUL: 80,
  ADD: 70,
  COMPARE: 60,
  IGNORE_NULLS: 55,
  IS_NULL: 50,
  DISTINCT: 46,
  NULLSAFE_EQ: 45,
  NULLISH: 40,
  BETWEEN: 35,
  NOT: 30,
  AND: 20,
  OR: 10,
  TERNARY: 5,
  ALIAS: 1,
} as const;

const COMPARE_OPS: Record<number, string> = {
  [T.EQ_SINGLE]: '==',
  [T.EQ_DOUBLE]: '==',
  [T.NOT_EQ]: '!=',
  [T.LT]: '<',
  [T.LT_EQ]: '<=',
  [T.GT]: '>',
  [T.GT_EQ]: '>=',
  [T.REGEX_SINGLE]: '=~',
  [T.REGEX_DOUBLE]: '=~',
  [T.NOT_REGEX]: '!~',
  [T.IREGEX_SINGLE]: '=~*',
  [T.IREGEX_DOUBLE]: '=~*',
  [T.NOT_IREGEX]: '!~*',
  [T.LIKE]: 'like',
  [T.ILIKE]: 'ilike',
};

/** columnExpr, parsed by precedence climbing: operators weaker than `minPrec` end it. */
export function parseExpr(p: Parser, minPrec = 0): Node {
  p.enter();
  const first = p.pos;
  let left = parsePrimary(p);
  // Once AND, OR, ?: or AS applied at this level only they may follow: the reference grammar
  // keeps them in an outer rule, so `a AS b [1]` or `a AS b = c` are errors there.
  let outer = false;
  let chained = 0;
  for (;;) {
    const t = p.t;
    if (outer && t !== T.AND && t !== T.OR && t !== T.QUERY && t !== T.AS) break;
    let next: Node | null = null;
    switch (t) {
      case T.LBRACKET:
      case T.DOT:
      case T.NULL_PROPERTY:
      case T.DOUBLECOLON:
      case T.LPAREN:
        next = parsePostfix(p, left, first);
        break;
      case T.ASTERISK:
      case T.SLASH:
      case T.PERCENT:
        if (P.MUL < minPrec) break;
        p.pos++;
        next = arithmetic(p, left, first, t === T.ASTERISK ? '*' : t === T.SLASH ? '/' : '%', P.MUL);
        break;
      case T.PLUS:
      case T.DASH:
        if (P.ADD < minPrec) break;
        p.pos++;
        next = arithmetic(p, left, first, t === T.PLUS ? '+' : '-', P.ADD);
        break;
      case T.CONCAT: {
        if (P.ADD < minPrec) break;
        p.pos++;
        const right = parseExpr(p, P.ADD + 1);
        next = p.span({ node: 'Call', name: 'concat', args: merge(left, right, 'concat', 'args') }, first);
        break;
      }
      case T.IN:
        if (P.COMPARE < minPrec) break;
        p.pos++;
        next = compare(p, left, first, p.accept(T.COHORT) ? 'in cohort' : 'in');
        break;
      case T.NOT: {
        const after = p.peek();
        if (after === T.BETWEEN) {
          if (P.BETWEEN < minPrec) break;
          p.pos += 2;
          next = between(p, left, first, true);
        } else if (after === T.IN || after === T.LIKE || after === T.ILIKE) {
          if (P.COMPARE < minPrec) break;
          p.pos += 2;
          const op =
            after === T.IN
              ? p.accept(T.COHORT)
                ? 'not in cohort'
                : 'not in'
              : after === T.LIKE
                ? 'not like'
                : 'not ilike';
          next = compare(p, left, first, op);
        }
        break;
      }
      case T.IGNORE:
        if (P.IGNORE_NULLS < minPrec || p.peek() !== T.NULLS) break;
        p.pos += 2;
        next = left; // IGNORE NULLS leaves no trace in the AST
        break;
      case T.IS:
        next = parseIs(p, left, first, minPrec);
        break;
      case T.NULLSAFE_EQ: {
        if (P.NULLSAFE_EQ < minPrec) break;
        p.pos++;
        const right = parseExpr(p, P.NULLSAFE_EQ + 1);
        next = p.span({ node: 'IsDistinctFrom', left, right, negated: true }, first);
        break;
      }
      case T.NULLISH: {
        if (P.NULLISH < minPrec) break;
        p.pos++;
        const right = parseExpr(p, P.NULLISH + 1);
        next = p.span({ node: 'Call', name: 'ifNull', args: [left, right] }, first);
        break;
      }
      case T.BETWEEN:
        if (P.BETWEEN < minPrec) break;
        p.pos++;
        next = between(p, left, first, false);
        break;
      case T.AND:
      case T.OR: {
        const prec = t === T.AND ? P.AND : P.OR;
        if (prec < minPrec) break;
        p.pos++;
        const right = parseExpr(p, prec + 1);
        const kind = t === T.AND ? 'And' : 'Or';
        next = p.span({ node: kind, exprs: merge(left, right, kind, 'exprs') }, first);
        outer = true;
        break;
      }
      case T.QUERY: {
        if (P.TERNARY < minPrec) break;
        p.pos++;
        const then = parseExpr(p);
        p.expect(T.COLON, "':'");
        const otherwise = parseExpr(p, P.TERNARY);
        next = p.span({ node: 'Call', name: 'if', args: [left, then, otherwise] }, first);
        outer = true;
        break;
      }
      case T.AS:
        if (P.ALIAS < minPrec) break;
        next = parseAlias(p, left, first);
        outer = true;
        break;
      default: {
        const op = COMPARE_OPS[t];
        if (op === undefined || P.COMPARE < minPrec) break;
        p.pos++;
        next = compare(p, left, first, op);
      }
    }
    if (next === null) break;
    // chains nest the AST without recursing here (`a + b + c …`): bounded so that the passes
    // which walk the AST recursively cannot overflow the stack
    const flat = t === T.AND || t === T.OR || t === T.CONCAT || next === left;
    if (!flat && ++chained + p.depth > MAX_AST_DEPTH) {
      throw p.error(`Expression is too long (more than ${MAX_AST_DEPTH} chained operators)`);
    }
    left = next;
  }
  p.leave();
  return left;
}

function arithmetic(p: Parser, left: Node, first: number, op: string, prec: number): Node {
  const right = parseExpr(p, prec + 1);
  return p.span({ node: 'ArithmeticOperation', left, right, op }, first);
}

function compare(p: Parser, left: Node, first: number, op: string): Node {
  const right = parseExpr(p, P.COMPARE + 1);
  return p.span({ node: 'CompareOperation', left, right, op }, first);
}

function distinct(p: Parser, left: Node, first: number, negated: boolean): Node {
  const right = parseExpr(p, P.DISTINCT + 1);
  return p.span({ node: 'IsDistinctFrom', left, right, negated }, first);
}

function between(p: Parser, expr: Node, first: number, negated: boolean): Node {
  p.betweenLow++;
  let low: Node;
  try {
    low = parseExpr(p, P.BETWEEN);
  } finally {
    p.betweenLow--;
  }
  // only the lower bound is checked, as in the reference parser
  if (low.node === 'Lambda' || low.node === 'NamedArgument') {
    p.defer(p.error('A lambda or named argument is not a valid BETWEEN bound', first));
  }
  p.expect(T.AND, 'AND');
  const high = parseExpr(p, P.BETWEEN + 1);
  return p.span({ node: 'BetweenExpr', expr, low, high, negated }, first);
}

/** IS [NOT] NULL and IS [NOT] DISTINCT FROM, which bind differently. */
function parseIs(p: Parser, left: Node, first: number, minPrec: number): Node | null {
  const not = p.peek() === T.NOT;
  const after = p.peek(not ? 2 : 1);
  if (after === T.NULL) {
    if (P.IS_NULL < minPrec) return null;
    p.pos += not ? 3 : 2;
    const right = { node: 'Constant', value: null };
    return p.span(
      { node: 'CompareOperation', left, right, op: not ? '!=' : '==', is_null_comparison_style: true },
      first,
    );
  }
  if (after === T.DISTINCT && p.peek(not ? 3 : 2) === T.FROM) {
    if (P.DISTINCT < minPrec) return null;
    p.pos += not ? 4 : 3;
    return distinct(p, left, first, not);
  }
  return null;
}

function parseAlias(p: Parser, expr: Node, first: number): Node {
  p.pos++;
  let alias: string;
  if (p.t === T.STRING) alias = p.stringAt(p.pos++);
  else alias = p.identifier();
  p.checkAlias(alias, p.pos - 1);
  return p.span({ node: 'Alias', alias, expr }, first);
}

/** Is `node` an And / Or / concat(…) whose operands merge into a new one of the same kind? */
const same = (node: Node, kind: string): boolean =>
  kind === 'concat' ? node.node === 'Call' && node.name === 'concat' : node.node === kind;

/**
 * Operands of `left op right` flattened as the reference AST does: `a and (b and c)` is one And.
 * The left operand's list is reused, being dropped anyway, so a long chain stays linear.
 */
function merge(left: Node, right: Node, kind: string, field: 'exprs' | 'args'): Node[] {
  const out = same(left, kind) ? (left[field] as Node[]) : [left];
  if (same(right, kind)) for (const item of right[field] as Node[]) out.push(item);
  else out.push(right);
  return out;
}
