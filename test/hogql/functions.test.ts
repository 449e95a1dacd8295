import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constant } from '../../src/hogql/ast.js';
import { COMBINATORS } from '../../src/hogql/functions/combinators.js';
import {
  allFunctionNames,
  FORBIDDEN_FUNCTIONS,
  FUNCTION_CATEGORIES,
  type FunctionDef,
  findAggregation,
  findFunction,
  isAggregation,
  printCall,
  suggestFunction,
} from '../../src/hogql/functions/index.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';

// chDB: one data directory per process, so one per file.
const dataDir = mkdtempSync(join(tmpdir(), 'burrow-hogql-fn-'));
let store: EventsStore;
let functions: Map<string, { aggregate: boolean }>;
let lowerCaseInsensitive: Set<string>;
let combinators: Set<string>;

beforeAll(async () => {
  store = await openEventsStore({ dataDir, database: 'hogql_fn', clickhouseUrl: process.env.CLICKHOUSE_URL });
  const rows = await store.query<{ name: string; is_aggregate: number; case_insensitive: number }>(
    'SELECT name, is_aggregate, case_insensitive FROM system.functions',
  );
  functions = new Map(rows.map((r) => [r.name, { aggregate: r.is_aggregate === 1 }]));
  lowerCaseInsensitive = new Set(
    rows.filter((r) => r.case_insensitive === 1).map((r) => r.name.toLowerCase()),
  );
  const comb = await store.query<{ name: string }>('SELECT name FROM system.aggregate_function_combinators');
  combinators = new Set(comb.map((r) => r.name));
});
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const allDefs = (): Array<[string, FunctionDef]> =>
  Object.values(FUNCTION_CATEGORIES).flatMap((defs) => Object.entries(defs));

/** Names the ClickHouse parser rewrites before lookup, so system.functions does not list them. */
const PARSER_REWRITES: Record<string, string> = {
  dateAdd: "SELECT dateAdd(toDate('2024-01-01'), toIntervalDay(1))",
  dateSub: "SELECT dateSub(toDate('2024-01-01'), toIntervalDay(1))",
  date_add: "SELECT date_add(toDate('2024-01-01'), toIntervalDay(1))",
  date_sub: "SELECT date_sub(toDate('2024-01-01'), toIntervalDay(1))",
  timeStampAdd: "SELECT timeStampAdd(toDate('2024-01-01'), toIntervalDay(1))",
  timeStampSub: "SELECT timeStampSub(toDate('2024-01-01'), toIntervalDay(1))",
  untuple: 'SELECT untuple(tuple(1, 2))',
  countDistinct: 'SELECT countDistinct(number) FROM numbers(3)',
};

/** Independent of ../src: strips engine-listed combinators until an engine aggregate remains. */
function isEngineCombination(name: string): boolean {
  if (functions.get(name)?.aggregate) return true;
  for (const c of combinators) {
    if (name.endsWith(c) && name.length > c.length && isEngineCombination(name.slice(0, -c.length)))
      return true;
  }
  return false;
}

function existsInEngine(clickhouse: string): boolean {
  return (
    functions.has(clickhouse) ||
    lowerCaseInsensitive.has(clickhouse.toLowerCase()) ||
    isEngineCombination(clickhouse) ||
    clickhouse in PARSER_REWRITES
  );
}

describe('function allowlist against chDB', () => {
  it('names only functions that exist in the engine (or valid combinations of its aggregates)', async () => {
    const missing = allDefs()
      .filter(([, def]) => !existsInEngine(def.clickhouse))
      .map(([n]) => n);
    expect(missing).toEqual([]);
    for (const sql of Object.values(PARSER_REWRITES)) await expect(store.query(sql)).resolves.toHaveLength(1);
    expect(allDefs().length).toBeGreaterThan(600);
  });

  it('marks as aggregations exactly the functions the engine aggregates', () => {
    const wrong = allDefs()
      .filter(([, def]) => !def.window && !def.print && functions.has(def.clickhouse))
      .filter(([, def]) => !!def.aggregate !== functions.get(def.clickhouse)?.aggregate)
      .map(([n]) => n);
    expect(wrong).toEqual([]);
  });

  it('derives only real combinator spellings from every aggregation', () => {
    const bases = allDefs().filter(([n, d]) => d.aggregate && !d.print && d.clickhouse === n);
    expect(bases.length).toBeGreaterThan(90);
    const unknownSuffixes = Object.keys(COMBINATORS).filter((c) => !combinators.has(c));
    expect(unknownSuffixes).toEqual([]);
    const bad: string[] = [];
    for (const [base] of bases) {
      for (const suffix of Object.keys(COMBINATORS)) {
        for (const name of [base + suffix, ...COMBINATORS[suffix]!.next.map((n) => base + suffix + n)]) {
          const def = findFunction(name);
          if (!def?.aggregate || !isEngineCombination(def.clickhouse)) bad.push(name);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('accepts every allowed argument count in the engine (both ends of each range)', async () => {
    const ARITY_ERROR =
      /number of arguments|not enough .*arguments|supports up to \d+|too (few|many) arguments|at least \d+ arguments?|at most \d+ arguments?/i;
    const SAMPLE: Record<string, string[]> = { toString: ['now()', "'UTC'"] };
    const SKIP = new Set(['arrayReduce']); // validates its first argument; covered by the remap tests
    const failures: string[] = [];
    for (const [name, def] of allDefs()) {
      if (SKIP.has(name)) continue;
      for (const n of new Set([def.minArgs, def.maxArgs ?? def.minArgs + 4])) {
        const args = SAMPLE[name]?.slice(0, n) ?? Array<string>(n).fill('1');
        const sql = printCall(def, {
          args,
          nodes: args.map(() => constant(1)),
          params: Array<string>(def.minParams ?? 0).fill('1'),
          timezone: 'UTC',
          weekStartDay: 0,
          bindString: (v) => `'${v.replace(/'/g, "\\'")}'`,
        });
        try {
          await store.query(`SELECT ${sql}${def.window ? ' OVER ()' : ''}`);
        } catch (error) {
          const message = (error as Error).message;
          if (ARITY_ERROR.test(message)) failures.push(`${name}/${n}: ${message.slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('allows none of the engine functions that read server state, files or the network', () => {
    const DANGEROUS =
      /^dict|^file|filesystem|sleep|throwIf|setting|macro|currentUser|currentDatabase|currentRoles|profiles|hostName|^fqdn$|^version$|uptime|serverUUID|serverPort|transaction|addressTo|demangle|joinGet|catboost|evalML|initializeAggregation|^ai[A-Z]|zookeeper|certificate|getClientHTTPHeader|^shard|queryID|logTrace|generateSerialID|getScalar|hasColumnInTable|^user$|^database$/i;
    const dangerous = [...functions.keys()].filter((n) => DANGEROUS.test(n));
    expect(dangerous.length).toBeGreaterThan(40);
    const allowed = dangerous.filter(
      (n) => findFunction(n) || findFunction(n.toLowerCase()) || findFunction(n.toUpperCase()),
    );
    expect(allowed).toEqual([]);
  });
});

describe('forbidden functions', () => {
  it('are never found, in any spelling, nor as a combinator base', () => {
    const found = FORBIDDEN_FUNCTIONS.flatMap((n) =>
      [n, n.toLowerCase(), n.toUpperCase(), `${n}If`, `${n}State`, `${n}Merge`].filter((s) =>
        findFunction(s),
      ),
    );
    // HogQL's own timezone(tz, dt) shares a lowercase spelling with the engine's timeZone().
    expect(found).toEqual(['timezone']);
    expect(findFunction('timezone')?.clickhouse).toBe('toTimeZone');
  });

  it('are not what any allowlisted function prints', () => {
    const forbidden = new Set(FORBIDDEN_FUNCTIONS);
    expect(allDefs().filter(([, d]) => forbidden.has(d.clickhouse))).toEqual([]);
  });

  it('are mostly real engine names (the list is not stale)', () => {
    const known = FORBIDDEN_FUNCTIONS.filter(
      (n) => functions.has(n) || lowerCaseInsensitive.has(n.toLowerCase()),
    );
    expect(known.length).toBeGreaterThan(60);
  });
});

describe('lookup', () => {
  it('matches exact names first, lowercase only for case-insensitive functions', () => {
    for (const name of [
      'COUNT',
      'Sum',
      'avg',
      'MAX',
      'IFNULL',
      'isnull',
      'ISNULL',
      'Coalesce',
      'NOW',
      'If',
      'NOT',
    ]) {
      expect(findFunction(name), name).toBeDefined();
    }
    for (const name of ['TOINT', 'toint', 'COUNTIF', 'todatetime', 'ARRAYMAP', 'Uniq']) {
      expect(findFunction(name), name).toBeUndefined();
    }
    expect(findFunction('COUNT')?.clickhouse).toBe('count');
    expect(findFunction('toDateTime')?.name).toBe('toDateTime');
  });

  it('finds aggregations, including combinator forms, and only them', () => {
    for (const name of [
      'count',
      'countIf',
      'sumArrayIf',
      'uniqMerge',
      'argMaxIf',
      'quantileIf',
      'avgOrNullIf',
    ]) {
      expect(isAggregation(name), name).toBe(true);
    }
    for (const name of [
      'sumIfIf',
      'sumIfArray',
      'sumStateMerge',
      'IfIf',
      'toIntIf',
      'lagIf',
      'array_aggIf',
    ]) {
      expect(findFunction(name), name).toBeUndefined();
    }
    expect(isAggregation('toInt')).toBe(false);
    expect(findAggregation('row_number')).toBeUndefined();
    expect(findFunction('row_number')?.window).toBe(true);
    expect(findFunction('lag')?.unboundedFrame).toBe(true);
  });

  it('keeps names starting with _ callable but internal', () => {
    expect(findFunction('_toInt64')?.clickhouse).toBe('toInt64');
    expect(allFunctionNames().some((n) => n.startsWith('_'))).toBe(true);
  });
});

describe('argument and parameter counts', () => {
  const counts = (name: string) => {
    const d = findFunction(name);
    return [d?.minArgs, d?.maxArgs, d?.minParams ?? 0, d?.maxParams ?? (d?.minParams ? undefined : 0)];
  };

  it('follow the HogQL signatures', () => {
    expect(counts('count')).toEqual([0, 1, 0, 0]);
    expect(counts('countIf')).toEqual([1, 2, 0, 0]);
    expect(counts('argMax')).toEqual([2, 2, 0, 0]);
    expect(counts('argMaxIf')).toEqual([3, 3, 0, 0]);
    expect(counts('argMaxMerge')).toEqual([1, 1, 0, 0]);
    expect(counts('uniq')).toEqual([1, undefined, 0, 0]);
    expect(counts('uniqIf')).toEqual([2, undefined, 0, 0]);
    expect(counts('quantile')).toEqual([1, 1, 1, 1]);
    expect(counts('quantileIf')).toEqual([2, 2, 1, 1]);
    expect(counts('quantiles')).toEqual([1, 1, 1, undefined]);
    expect(counts('topK')).toEqual([1, 1, 1, 1]);
    expect(counts('toInt')).toEqual([1, 1, 0, 0]);
    expect(counts('toDecimal')).toEqual([2, 2, 0, 0]);
    expect(counts('toDateTime')).toEqual([1, 2, 0, 0]);
    expect(counts('now')).toEqual([0, 1, 0, 0]);
    expect(counts('concat')).toEqual([2, undefined, 0, 0]);
    expect(counts('multiIf')).toEqual([3, undefined, 0, 0]);
    expect(counts('if')).toEqual([3, 3, 0, 0]);
    expect(counts('lag')).toEqual([1, 3, 0, 0]);
    expect(counts('row_number')).toEqual([0, 0, 0, 0]);
    expect(counts('dateDiff')).toEqual([3, 3, 0, 0]);
  });
});

describe('suggestions', () => {
  it('offer the closest allowlisted name', () => {
    expect(suggestFunction('cout')).toBe('count');
    expect(suggestFunction('toint')).toBe('toInt');
    expect(suggestFunction('sumif')).toBe('sumIf');
    expect(suggestFunction('datediff')).toBe('dateDiff');
    expect(suggestFunction('arrayMapp')).toBe('arrayMap');
    expect(suggestFunction('toDateTim')).toBe('toDateTime');
    expect(suggestFunction('uniqq')).toBe('uniq');
  });

  it('offer nothing for unrelated names and never an internal one', () => {
    expect(suggestFunction('qwertyuiopasdf')).toBeUndefined();
    for (const name of ['_toInt64', '_toInt65', '_toUInt128', '_toDate', 'toInt64', '_toNullableBool']) {
      expect(suggestFunction(name) ?? '', name).not.toMatch(/^_/);
    }
  });

  it('never suggest a forbidden function', () => {
    for (const name of ['sleep', 'dictGet', 'file', 'version', 'currentUser']) {
      const s = suggestFunction(name);
      if (s) expect(FORBIDDEN_FUNCTIONS).not.toContain(s);
    }
  });
});
