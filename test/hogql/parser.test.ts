import { describe, expect, it } from 'vitest';
import { HogQLQueryError, HogQLSyntaxError } from '../../src/hogql/errors.js';
import {
  isFloatConstant,
  type Node,
  parseExpr,
  parseOrderExpr,
  parseSelect,
} from '../../src/hogql/parser/index.js';

/**
 * What the differential tests cannot show: our own positions where the reference parser's are
 * wrong, error classes and messages, and the float marker. AST shapes themselves are checked
 * against `@posthog/hogql-parser` in test/hogql/parser-corpus.test.ts and test/hogql/parser-fuzz.test.ts.
 */

const at = (line: number, column: number, offset: number) => ({ line, column, offset });

function failure(parse: () => unknown): Error {
  try {
    parse();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the parse to fail');
}

describe('HogQL parser: positions', () => {
  it('reports 1-based lines and 0-based columns and offsets', () => {
    const query = parseSelect('select\n  event,\n  count()\nfrom events') as Node;
    const [event, count] = query.select as Node[];
    expect(event).toMatchObject({ node: 'Field', chain: ['event'], start: at(2, 2, 9), end: at(2, 7, 14) });
    expect(count).toMatchObject({ node: 'Call', name: 'count', start: at(3, 2, 18), end: at(3, 9, 25) });
    expect(query).toMatchObject({ start: at(1, 0, 0), end: at(4, 11, 37) });
  });

  it('counts offsets and columns in code points, as the reference parser and Python do', () => {
    const sum = parseExpr("'😀' + x") as Node;
    expect(sum.right).toMatchObject({ chain: ['x'], start: at(1, 6, 6), end: at(1, 7, 7) });
  });

  it('ends a node where it really ends, even where the reference parser is wrong', () => {
    // the reference gives column 6 (start column + UTF-8 bytes) for the first and line 1 for the second
    expect(parseExpr("'😀'")).toMatchObject({ end: at(1, 3, 3) });
    expect(parseExpr("'a\nbc'")).toMatchObject({ end: at(2, 3, 6) });
  });

  it('only counts \\n as a line break, like the reference lexer', () => {
    expect(parseExpr('\r\n x')).toMatchObject({ start: at(2, 1, 3) });
    expect(parseExpr('\r x')).toMatchObject({ start: at(1, 2, 2) });
  });
});

describe('HogQL parser: errors', () => {
  it('throws HogQLSyntaxError pointing at the offending token by line, column and offset', () => {
    const err = failure(() => parseSelect('select event\nfrom events\nwhere x = )')) as HogQLSyntaxError;
    expect(err).toBeInstanceOf(HogQLSyntaxError);
    expect(err.message).toMatch(/Unexpected '\)'.*\(line 3, column 11\)/);
    expect(err.start).toBe(35);
    expect(err.end).toBe(36);
  });

  it('reports the end of input as such', () => {
    expect(failure(() => parseExpr('1 +')).message).toMatch(/Unexpected end of input.*\(line 1, column 4\)/);
  });

  it('refuses characters, strings and escapes the lexer has no token for', () => {
    expect(failure(() => parseExpr("'unterminated"))).toBeInstanceOf(HogQLSyntaxError);
    expect(failure(() => parseExpr("'bad \\q escape'"))).toBeInstanceOf(HogQLSyntaxError);
    expect(failure(() => parseExpr('a && b')).message).toMatch(/Unexpected character '&'/);
    expect(failure(() => parseExpr('é')).message).toMatch(/U\+00E9/);
    expect(failure(() => parseExpr('}'))).toBeInstanceOf(HogQLSyntaxError);
  });

  it('reports constructs HogQL parses but does not support as query errors', () => {
    for (const text of [
      'select 1 settings max_threads = 1',
      'select top 5 1',
      "select date '2024-01-01'",
      'select substring(x from 2)',
      "select interval '1 fortnight'",
      'select 1 from a join b on 1, 2',
    ]) {
      expect(
        failure(() => parseSelect(text)),
        text,
      ).toBeInstanceOf(HogQLQueryError);
    }
  });

  it('refuses reserved aliases after parsing, like the reference', () => {
    expect(failure(() => parseSelect('select 1 as team_id')).message).toMatch(/"team_id" cannot be an alias/);
    expect(parseSelect('select 1 as `team_id`')).toMatchObject({ select: [{ alias: 'team_id' }] });
  });

  it('does not support Hog blocks as lambda bodies (Hog programs are out of scope)', () => {
    expect(failure(() => parseExpr('x -> { return x }')).message).toMatch(/not supported/);
    expect(parseExpr('x -> {}')).toMatchObject({ node: 'Lambda', expr: { node: 'Dict' } });
  });

  it('reads one ORDER BY item and ignores what follows, as the reference does', () => {
    expect(parseOrderExpr('a desc, b')).toMatchObject({ node: 'OrderExpr', order: 'DESC', end: at(1, 6, 6) });
  });
});

describe('HogQL parser: constants', () => {
  it('marks constants written as floats, which JSON cannot tell from integers', () => {
    const [one, onePointZero, exp] = (parseSelect('select 1, 1.0, 1e3') as Node).select as Node[];
    expect(one).toMatchObject({ value: 1 });
    expect(onePointZero).toMatchObject({ value: 1 });
    expect(isFloatConstant(one as Node)).toBe(false);
    expect(isFloatConstant(onePointZero as Node)).toBe(true);
    expect(isFloatConstant(exp as Node)).toBe(true);
  });

  it('keeps integers beyond 64 bits and non-finite numbers as strings, like the reference', () => {
    expect(parseExpr('9223372036854775808')).toMatchObject({
      value: '9223372036854775808',
      value_type: 'number',
    });
    expect(parseExpr('-inf')).toMatchObject({ value: '-Infinity', value_type: 'number' });
    expect(Object.is((parseExpr('-0.0') as Node).value, -0)).toBe(true);
    expect(Object.is((parseExpr('-0') as Node).value, 0)).toBe(true);
  });
});
