import { describe, expect, it } from 'vitest';
import { parseExceptionList } from '../../src/domain/error-tracking/exception-list.js';
import { fingerprintOf } from '../../src/domain/error-tracking/fingerprint.js';

/**
 * The grouping oracle: pairs of `$exception_list`s and whether PostHog's rules (cymbal's
 * fingerprinting: type; message only without a stack; in-app frames, resolved ones preferred;
 * a resolved frame counts its source and function name, an unresolved one also line, column and
 * language) put them in one issue or in two.
 */
type Frame = Record<string, unknown>;
const node = (fn: string, file = '/app/src/handler.js', line = 10, extra: Frame = {}): Frame => ({
  platform: 'node:javascript',
  function: fn,
  filename: file,
  lineno: line,
  colno: 5,
  in_app: true,
  ...extra,
});
const web = (fn: string, line: number, col: number, extra: Frame = {}): Frame => ({
  platform: 'web:javascript',
  function: fn,
  filename: 'https://example.com/static/app.min.js',
  lineno: line,
  colno: col,
  in_app: true,
  ...extra,
});
const exc = (type: string, value: string, frames?: Frame[]) => ({
  type,
  value,
  mechanism: { handled: true, type: 'generic' },
  ...(frames ? { stacktrace: { type: 'raw', frames } } : {}),
});
const fp = (list: unknown[]) => fingerprintOf(parseExceptionList(list));

const cases: { name: string; a: unknown[]; b: unknown[]; same: boolean }[] = [
  {
    name: 'same type and frames, different message (ids in the text)',
    a: [exc('TypeError', 'user 1 not found', [node('load'), node('handle')])],
    b: [exc('TypeError', 'user 2 not found', [node('load'), node('handle')])],
    same: true,
  },
  {
    name: 'different type, same frames',
    a: [exc('TypeError', 'x', [node('load')])],
    b: [exc('RangeError', 'x', [node('load')])],
    same: false,
  },
  {
    name: 'no stack: the message decides',
    a: [exc('Error', 'boom')],
    b: [exc('Error', 'bang')],
    same: false,
  },
  { name: 'no stack, same message', a: [exc('Error', 'boom')], b: [exc('Error', 'boom')], same: true },
  {
    name: 'resolved frames: a moved line does not split',
    a: [exc('Error', 'x', [node('load', '/app/a.js', 10)])],
    b: [exc('Error', 'x', [node('load', '/app/a.js', 99)])],
    same: true,
  },
  {
    name: 'resolved frames: another function splits',
    a: [exc('Error', 'x', [node('load')])],
    b: [exc('Error', 'x', [node('save')])],
    same: false,
  },
  {
    name: 'library frames are left out when in-app frames exist',
    a: [exc('Error', 'x', [node('lib', '/app/node_modules/x.js', 1, { in_app: false }), node('load')])],
    b: [exc('Error', 'x', [node('other', '/app/node_modules/y.js', 7, { in_app: false }), node('load')])],
    same: true,
  },
  {
    name: 'no in-app frame: only the first frame counts',
    a: [
      exc('Error', 'x', [
        node('a', '/n/x.js', 1, { in_app: false }),
        node('b', '/n/y.js', 1, { in_app: false }),
      ]),
    ],
    b: [
      exc('Error', 'x', [
        node('a', '/n/x.js', 1, { in_app: false }),
        node('c', '/n/z.js', 1, { in_app: false }),
      ]),
    ],
    same: true,
  },
  {
    name: 'minified, unresolved: the column counts',
    a: [exc('TypeError', 'x', [web('a', 1, 100)])],
    b: [exc('TypeError', 'x', [web('a', 1, 200)])],
    same: false,
  },
  {
    name: 'minified, unresolved: same position groups',
    a: [exc('TypeError', 'one', [web('a', 1, 100)])],
    b: [exc('TypeError', 'two', [web('a', 1, 100)])],
    same: true,
  },
  {
    name: 'unresolved frames are left out once any frame resolved',
    a: [exc('Error', 'x', [node('load'), web('q', 1, 5)])],
    b: [exc('Error', 'x', [node('load'), web('r', 9, 9)])],
    same: true,
  },
  {
    name: 'a chained cause counts',
    a: [exc('Error', 'outer', [node('load')]), exc('TypeError', 'inner', [node('read')])],
    b: [exc('Error', 'outer', [node('load')]), exc('RangeError', 'inner', [node('read')])],
    same: false,
  },
  {
    name: 'the module counts (Python, Java frames)',
    a: [exc('KeyError', 'k', [{ platform: 'python', function: 'f', filename: 'a.py', module: 'app.a' }])],
    b: [exc('KeyError', 'k', [{ platform: 'python', function: 'f', filename: 'a.py', module: 'app.b' }])],
    same: false,
  },
];

describe('grouping oracle (PostHog fingerprinting)', () => {
  for (const c of cases) {
    it(`${c.same ? 'one issue' : 'two issues'}: ${c.name}`, () => {
      const [a, b] = [fp(c.a), fp(c.b)];
      expect(a).toMatch(/^[0-9a-f]{128}$/);
      if (c.same) expect(a).toBe(b);
      else expect(a).not.toBe(b);
    });
  }

  it('caps frames and messages before hashing', () => {
    const frames = Array.from({ length: 10_000 }, (_, i) => node(`f${i}`));
    const list = parseExceptionList([exc('Error', 'm'.repeat(1_000_000), frames)]);
    expect(list[0]?.frames).toHaveLength(200);
    expect(list[0]?.value.length).toBe(10_000);
    // The innermost frames (the last ones) are kept.
    expect(list[0]?.frames?.at(-1)?.mangled_name).toBe('f9999');
  });

  it('refuses what is not an exception list', () => {
    for (const bad of [null, 'x', [], [1], [{ type: 'E', stacktrace: { frames: 'no' } }]]) {
      expect(() => parseExceptionList(bad)).toThrow();
    }
  });
});
