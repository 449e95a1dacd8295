import { parseExpr } from './expressions.js';
import { atListEnd } from './lists.js';
import type { Node, Parser } from './parser.js';
import { parseSelectSet } from './select-set.js';
import { T } from './tokens.js';

/** WITH [RECURSIVE] cte (, cte)* [,]: returns the CTE nodes. */
export function parseWithClause(p: Parser): Node[] {
  p.expect(T.WITH, 'WITH');
  const recursive = p.accept(T.RECURSIVE);
  const ctes: Node[] = [];
  for (;;) {
    const cte = subqueryCteAhead(p) ? parseSubqueryCte(p) : parseColumnCte(p);
    if (recursive) cte.recursive = true;
    ctes.push(cte);
    if (!p.accept(T.COMMA)) break;
    if (subqueryCteAhead(p)) continue;
    if (p.at(T.SELECT) || atListEnd(p)) break;
    // `WITH a AS (…), (SELECT …)` ends the list; `(SELECT 1) AS b` or `(1) + 2 AS b` is one more CTE
    if (
      p.at(T.LPAREN) &&
      (p.peek() === T.SELECT || p.peek() === T.WITH) &&
      p.type[p.closing(p.pos) + 1] !== T.AS
    )
      break;
  }
  return ctes;
}

/** name [(cols)] [USING KEY (cols)] AS [[NOT] MATERIALIZED] ( — rather than `expr AS name`? */
function subqueryCteAhead(p: Parser): boolean {
  if (!p.atIdentifier()) return false;
  let i = p.pos + 1;
  if (p.type[i] === T.LPAREN) i = p.closing(i) + 1;
  if (p.type[i] === T.USING && p.type[i + 1] === T.KEY) i = p.closing(i + 2) + 1;
  if (p.type[i] !== T.AS) return false;
  i++;
  if (p.type[i] === T.NOT && p.type[i + 1] === T.MATERIALIZED) i += 2;
  else if (p.type[i] === T.MATERIALIZED) i++;
  return p.type[i] === T.LPAREN;
}

/** name [(columns)] [USING KEY (columns)] AS [[NOT] MATERIALIZED] (query) */
function parseSubqueryCte(p: Parser): Node {
  const first = p.pos;
  const name = p.identifier();
  const columns = p.at(T.LPAREN) ? parseNameList(p) : null;
  let usingKey: string[] | null = null;
  if (p.at(T.USING) && p.peek() === T.KEY) {
    p.pos += 2;
    usingKey = parseNameList(p);
  }
  p.expect(T.AS, 'AS');
  let materialized: boolean | null = null;
  if (p.at(T.NOT) && p.peek() === T.MATERIALIZED) {
    p.pos += 2;
    materialized = false;
  } else if (p.accept(T.MATERIALIZED)) {
    materialized = true;
  }
  p.expect(T.LPAREN, "'('");
  const expr = parseSelectSet(p);
  p.expect(T.RPAREN, "')'");
  return p.span(
    { node: 'CTE', name, expr, cte_type: 'subquery', columns, materialized, using_key: usingKey },
    first,
  );
}

/** expr AS name: a named constant expression; the expression ends at the CTE's last AS. */
function parseColumnCte(p: Parser): Node {
  const first = p.pos;
  let as = -1;
  for (let i = p.pos; i < p.type.length; i++) {
    const t = p.type[i];
    if (t === T.LPAREN || t === T.LBRACKET || t === T.LBRACE) i = p.closing(i);
    else if (t === T.AS) as = i;
    else if (t === T.COMMA || t === T.SELECT || t === T.EOF) break;
  }
  if (as === -1) throw p.unexpected('AS');
  const expr = p.bounded(as, () => parseExpr(p));
  p.expect(T.AS, 'AS');
  const name = p.identifier();
  return p.span({ node: 'CTE', name, expr, cte_type: 'column' }, first);
}

function parseNameList(p: Parser): string[] {
  p.expect(T.LPAREN, "'('");
  const names = [p.identifier()];
  while (p.accept(T.COMMA)) names.push(p.identifier());
  p.expect(T.RPAREN, "')'");
  return names;
}
