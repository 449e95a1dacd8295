import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyEngineError } from '../../src/hogql/engine-errors.js';
import { printSelectHogQL } from '../../src/hogql/printer/hogql.js';
import { type PropertyFilter, propertiesToExpr } from '../../src/hogql/property-filters.js';
import { type HogQLDb, openHogQLDb } from '../helpers/hogql-fixture.js';

// Property filters become HogQL AST; counted on the fixture's team 1 events (10 rows).
let db: HogQLDb;
beforeAll(async () => {
  db = await openHogQLDb('filters');
}, 60_000);
afterAll(() => db?.close());

async function count(filters: Parameters<typeof propertiesToExpr>[0]): Promise<number> {
  const where = propertiesToExpr(filters);
  const ast = {
    node: 'SelectQuery' as const,
    select: [{ node: 'Call' as const, name: 'count', args: [] }],
    select_from: { node: 'JoinExpr' as const, table: { node: 'Field' as const, chain: ['events'] } },
    where,
  };
  const r = await db.run(printSelectHogQL(ast));
  return r.rows[0]?.[0] as number;
}

describe('property filters', () => {
  const cases: Array<[string, PropertyFilter[], number]> = [
    ['exact', [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }], 4],
    ['exact list', [{ key: '$browser', value: ['Chrome', 'Safari'], operator: 'exact' }], 6],
    ['is_not (NULL counts as different)', [{ key: '$browser', value: 'Chrome', operator: 'is_not' }], 6],
    ['icontains', [{ key: '$browser', value: 'fire', operator: 'icontains' }], 2],
    ['not_icontains', [{ key: '$browser', value: 'fire', operator: 'not_icontains' }], 8],
    ['regex', [{ key: '$current_url', value: '^https://a\\.com', operator: 'regex' }], 2],
    ['not_regex', [{ key: '$current_url', value: '^https://a\\.com', operator: 'not_regex' }], 8],
    ['gt', [{ key: 'n', value: 6, operator: 'gt' }], 1],
    ['lte', [{ key: 'n', value: '10', operator: 'lte' }], 2],
    ['between', [{ key: 'amount', value: [40, 50], operator: 'between' }], 1],
    ['is_set', [{ key: 'plan', operator: 'is_set', value: 'is_set' }], 3],
    ['is_not_set', [{ key: 'plan', operator: 'is_not_set', value: 'is_not_set' }], 7],
    ['person', [{ key: 'email', value: 'one@a.com', operator: 'exact', type: 'person' }], 3],
    ['session', [{ key: '$session_duration', value: 700, operator: 'gt', type: 'session' }], 2],
    [
      'group',
      [{ key: 'industry', value: 'tools', operator: 'exact', type: 'group', group_type_index: 0 }],
      1,
    ],
    ['hogql', [{ key: "event = 'signup'", type: 'hogql' }], 2],
    [
      'all of several',
      [
        { key: '$browser', value: 'Chrome', operator: 'exact' },
        { key: 'plan', value: 'pro', operator: 'exact' },
      ],
      2,
    ],
  ];
  it.each(cases)('%s', async (_name, filters, expected) => {
    expect(await count(filters)).toBe(expected);
  });

  it('nested AND/OR groups', async () => {
    const group = {
      type: 'OR' as const,
      values: [
        { type: 'AND' as const, values: [{ key: '$browser', value: 'Safari', operator: 'exact' as const }] },
        { type: 'AND' as const, values: [{ key: 'amount', value: 1, operator: 'gt' as const }] },
      ],
    };
    expect(await count(group)).toBe(3);
    expect(await count([])).toBe(10);
  });

  it('rejects bad filters as user errors', () => {
    expect(() => propertiesToExpr([{ key: 'x', type: 'nonsense', value: 1 }])).toThrow(
      'Unsupported property filter type',
    );
    expect(() => propertiesToExpr([{ key: 'id', type: 'cohort', value: 'abc' }])).toThrow('cohort id');
    expect(() => propertiesToExpr([{ key: 'x', value: 'a', operator: 'gt' }])).toThrow('is not a number');
    expect(() => propertiesToExpr([{ key: 'x', value: { a: 1 }, operator: 'exact' }])).toThrow(
      'must be strings',
    );
    expect(() => propertiesToExpr([{ key: 'x', type: 'group', value: 'a' }])).toThrow('group_type_index');
  });
});

describe('engine errors', () => {
  it('exposes errors the user caused without the query text, hides the rest', async () => {
    const err = await db.run("SELECT plus('secret-value', 1)").catch((e: unknown) => e);
    const info = classifyEngineError(err);
    expect(info).toMatchObject({ exposed: true, code: 'illegal_type_of_argument' });
    expect(info?.message).not.toContain('secret-value');
    expect(info?.message).not.toContain('SETTINGS');
    expect(
      classifyEngineError(Object.assign(new Error('disk on fire at /var/lib'), { type: 'CANNOT_OPEN_FILE' })),
    ).toEqual({
      exposed: false,
      code: 'cannot_open_file',
      message: 'ClickHouse error while executing query.',
    });
    expect(classifyEngineError(new Error('plain'))).toBeUndefined();
  });
});
