import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HogQLQueryError } from '../../src/hogql/errors.js';
import { escapeIdentifier, escapeString } from '../../src/hogql/printer/escape.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';

/**
 * `escapeString` and `escapeIdentifier` proved against the engine itself: whatever the input
 * (quotes, backslashes, NUL, every control byte, invalid UTF-8, backticks, braces that look like
 * query parameters), the rendered literal evaluates to exactly the input's bytes and the rendered
 * identifier names exactly the input, and neither ends early.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'burrow-hogql-escape-'));
let store: EventsStore;

beforeAll(async () => {
  store = await openEventsStore({
    dataDir,
    database: 'hogql_escape',
    clickhouseUrl: process.env.CLICKHOUSE_URL,
  });
});

afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

/** Characters that break naive escaping, and text that looks like SQL or a query parameter. */
const NASTY = [
  "'",
  '"',
  '`',
  '\\',
  '\0',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\v',
  '\x1a',
  '\x7f',
  '{',
  '}',
  ':',
  '%',
  '?',
  '$',
  '--',
  '/*',
  '*/',
  ';',
  '{hogql_val_0:String}',
  '{p:String}',
  '%(x)s',
  "\\'",
  "''",
  '\\x27',
  '\\0',
  'é',
  '✓',
  '\u{1F600}',
  '\u202E',
  '\u200D',
  '\uFEFF',
  '\uD800',
];
const nastyString = fc
  .array(
    fc.oneof(
      fc.constantFrom(...NASTY),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));
/** Raw bytes: invalid UTF-8, lone continuation bytes, every control byte. */
const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 48 }),
  fc
    .array(
      fc.constantFrom(
        0x00,
        0x0a,
        0x0d,
        0x27,
        0x5c,
        0x60,
        0x7b,
        0x7d,
        0x80,
        0xbf,
        0xc0,
        0xc3,
        0xe2,
        0xed,
        0xf0,
        0xff,
      ),
      { maxLength: 32 },
    )
    .map((b) => new Uint8Array(b)),
);

/** Evaluates literals in one query, each behind its own sentinel so a literal that ends early shows. */
async function evaluate(literals: string[]): Promise<string[]> {
  const items = literals.map((l, i) => `hex(${l}) AS h${i}, ${i} AS s${i}`).join(', ');
  const result = await store.queryRows(`SELECT ${items}`);
  expect(result.columns.map((c) => c.name)).toEqual(literals.flatMap((_, i) => [`h${i}`, `s${i}`]));
  const row = result.rows[0] as unknown[];
  expect(literals.map((_, i) => row[2 * i + 1])).toEqual(literals.map((_, i) => i));
  return literals.map((_, i) => row[2 * i] as string);
}

describe('escapeString against the engine', () => {
  it('all 256 byte values, one at a time and together', async () => {
    const singles = Array.from({ length: 256 }, (_, b) => new Uint8Array([b]));
    const all = new Uint8Array(Array.from({ length: 256 }, (_, b) => b));
    const inputs = [...singles, all, all.slice().reverse()];
    expect(await evaluate(inputs.map((b) => escapeString(b)))).toEqual(inputs.map(hex));
  });

  it('random byte arrays (invalid UTF-8 included) come back byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyBytes, { minLength: 1, maxLength: 25 }), async (inputs) => {
        expect(await evaluate(inputs.map((b) => escapeString(b)))).toEqual(inputs.map(hex));
      }),
      { numRuns: 120 },
    );
  });

  it('random strings come back as their UTF-8 bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(nastyString, { minLength: 1, maxLength: 25 }), async (inputs) => {
        expect(await evaluate(inputs.map((s) => escapeString(s)))).toEqual(inputs.map((s) => hex(utf8(s))));
      }),
      { numRuns: 120 },
    );
  });

  it('renders printable ASCII only, so nothing in the query text depends on the input encoding', () => {
    fc.assert(
      fc.property(fc.oneof(nastyString, anyBytes), (input) => {
        expect(escapeString(input)).toMatch(/^'[\x20-\x7e]*'$/);
      }),
    );
  });

  it('literals that look like parameters stay literals next to real parameters', async () => {
    await fc.assert(
      fc.asyncProperty(nastyString, async (s) => {
        const text = `{hogql_val_0:String}${s}{hogql_val_1:String}`;
        const r = await store.queryRows(
          `SELECT hex(${escapeString(text)}) AS a, hex({hogql_val_0:String}) AS b`,
          {
            params: { hogql_val_0: s, hogql_val_1: 'x' },
          },
        );
        expect(r.rows).toEqual([[hex(utf8(text)), hex(utf8(s))]]);
      }),
      { numRuns: 60 },
    );
  });

  it('bound parameters (the default path) round-trip the same strings', async () => {
    await fc.assert(
      fc.asyncProperty(nastyString, async (s) => {
        const r = await store.queryRows('SELECT hex({v:String}) AS h', { params: { v: s } });
        expect(r.rows).toEqual([[hex(utf8(s))]]);
      }),
      { numRuns: 80 },
    );
  });
});

describe('escapeIdentifier against the engine', () => {
  /** Identifiers are names the engine reports back as text: valid Unicode, not empty. */
  const name = fc.oneof(
    nastyString.filter((s) => s !== '' && !/[\uD800-\uDFFF]/.test(s)),
    fc.constantFrom(
      'from',
      'select',
      'SETTINGS',
      'format',
      'null',
      'true',
      'interval',
      'array',
      'date',
      'final',
      'x.y',
      '1a',
      'a b',
      'team_id',
      '_',
      '$browser',
    ),
  );

  it('as a column alias, the engine names the column exactly the input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(name, { minLength: 1, maxLength: 15 }), async (names) => {
        const items = names.map((n, i) => `${i} AS ${escapeIdentifier(n)}`);
        const r = await store.queryRows(`SELECT ${items.join(', ')}, 'end' AS sentinel`);
        expect(r.columns.map((c) => c.name)).toEqual([...names, 'sentinel']);
        expect(r.rows).toEqual([[...names.map((_, i) => i), 'end']]);
      }),
      { numRuns: 120 },
    );
  });

  it('as a reference, it reads the column it names (bare names that are keywords included)', async () => {
    await fc.assert(
      fc.asyncProperty(name, async (n) => {
        const id = escapeIdentifier(n);
        const r = await store.queryRows(`SELECT ${id}, t.${id} FROM (SELECT 7 AS ${id}, 8 AS other) AS t`);
        expect(r.rows).toEqual([[7, 7]]);
      }),
      { numRuns: 80 },
    );
  });

  it('refuses the empty name, which the engine cannot parse', () => {
    expect(() => escapeIdentifier('')).toThrow(HogQLQueryError);
  });
});
