import { parseExpr } from './expressions.js';
import { parseNumber } from './literals.js';
import type { Parser } from './parser.js';
import { INTERVAL_UNITS, isIdentifierLike, T } from './tokens.js';

/**
 * The type of CAST(x AS type) as the reference AST spells it: lowercased, arguments separated by
 * ", ", and non-type arguments (`DateTime64(3, 'UTC')`) as their tokens joined without spaces.
 */
export function parseTypeName(p: Parser): string {
  let name = typeWord(p);
  if (p.at(T.LPAREN)) {
    name += `(${parseTypeArguments(p)})`;
  } else {
    while (p.atIdentifier()) name += ` ${typeWord(p)}`; // double precision, time with time zone
  }
  while (p.at(T.LBRACKET)) {
    p.pos++;
    const size = p.at(T.DECIMAL) ? p.text(p.pos++) : '';
    p.expect(T.RBRACKET, "']'");
    name += `[${size}]`;
  }
  return name;
}

function typeWord(p: Parser): string {
  return p.identifier().toLowerCase();
}

/** Arguments of `Name(…)`: types, `name type` pairs (Nested), or else plain expressions. */
function parseTypeArguments(p: Parser): string {
  const open = p.pos++;
  if (p.at(T.STRING) && p.peek() === T.EQ_SINGLE) return parseEnumValues(p, open);
  if (!p.at(T.RPAREN)) {
    const deferred = p.deferred;
    try {
      const parts: string[] = [];
      for (;;) {
        let part = '';
        if (p.atIdentifier() && isIdentifierLike(p.peek())) {
          part = `${typeWord(p)} `; // Nested(name Type, …)
        }
        part += parseTypeName(p);
        parts.push(part);
        if (!p.accept(T.COMMA)) break;
        if (p.at(T.RPAREN)) break;
      }
      p.expect(T.RPAREN, "')'");
      return parts.join(', ');
    } catch (err) {
      if (!p.recoverable(err)) throw err;
      p.pos = open + 1;
      p.deferred = deferred;
    }
  }
  // FixedString(16), DateTime64(3, 'UTC'): expressions, rendered as their source tokens
  const parts: string[] = [];
  while (!p.at(T.RPAREN)) {
    const from = p.pos;
    parseExpr(p);
    let text = '';
    for (let i = from; i < p.pos; i++) text += p.text(i);
    parts.push(text);
    if (!p.accept(T.COMMA)) break;
  }
  p.expect(T.RPAREN, "')'");
  return parts.join(', ');
}

/** Enum8('a' = 1, …): valid syntax, but not supported by the reference AST. */
function parseEnumValues(p: Parser, open: number): string {
  do {
    if (p.at(T.RPAREN)) break;
    p.expect(T.STRING, 'a string');
    p.expect(T.EQ_SINGLE, "'='");
    parseNumber(p);
  } while (p.accept(T.COMMA));
  p.expect(T.RPAREN, "')'");
  p.defer(p.unsupported('Enum types are not supported in CAST', open));
  return '';
}

/** The restricted type after `::`: one word (no parentheses), optionally WITH [LOCAL] TIME ZONE. */
export function parseCastTypeName(p: Parser): string {
  const t = p.t;
  const ok = t === T.IDENT || t === T.QUOTED_IDENT || INTERVAL_UNITS.has(t) || t === T.DATE || t === T.TIME;
  if (!ok && t !== T.TIMESTAMP && t !== T.INTERVAL) throw p.unexpected('a type name');
  let name = p.identifierAt(p.pos++).toLowerCase();
  if (p.at(T.WITH)) {
    const local = p.peek() === T.LOCAL;
    if (p.peek(local ? 2 : 1) === T.TIME && p.peek(local ? 3 : 2) === T.ZONE) {
      p.pos += local ? 4 : 3;
      name += local ? ' with local time zone' : ' with time zone';
    }
  }
  return name;
}
