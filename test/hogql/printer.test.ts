import { beforeAll, describe, expect, it } from 'vitest';
import { type CompileOptions, compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { TABLES } from '../../src/hogql/schema/database.js';

// Printed-SQL tests: no engine, only what the compiler emits.
beforeAll(() => loadParser());

const options: CompileOptions = { teamId: 7, timezone: 'UTC', weekStartDay: 0, table: (t) => `db.${t}` };
const sql = (q: string, o: Partial<CompileOptions> = {}) => compileSelect(q, { ...options, ...o }).sql;

/** Every physical table read `db.<table> AS <alias>` must be guarded by `equals(<alias>.team_id, 7)`. */
function assertGuarded(printed: string): void {
  const reads = [...printed.matchAll(/db\.(\w+) AS (\w+)/g)];
  for (const [, , alias] of reads) expect(printed).toContain(`equals(${alias}.team_id, 7)`);
  expect(printed.match(/team_id, 7\)/g)?.length ?? 0).toBeGreaterThanOrEqual(reads.length);
}

describe('team guard', () => {
  it.each([...TABLES.values()].map((t) => [t.name, t]))(
    'every table in the schema is guarded: %s',
    (name, t) => {
      const q = t.tableFunction ? `SELECT * FROM ${name}(3)` : `SELECT * FROM ${name}`;
      const printed = sql(q);
      if (t.tableFunction) {
        // Table functions read no tenant data; `numbers` is the only one declared.
        expect(name).toBe('numbers');
        expect(printed).not.toContain('team_id');
        return;
      }
      expect(printed).toMatch(/db\.\w+ AS \w+/);
      assertGuarded(printed);
    },
  );

  it.each([
    'SELECT person.properties.email, session.$session_duration, group_0.properties.x FROM events',
    'SELECT * FROM (SELECT event FROM events) e JOIN (SELECT * FROM persons) p ON 1 = 1',
    'WITH a AS (SELECT * FROM raw_persons) SELECT * FROM a UNION ALL SELECT * FROM raw_persons',
    'SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.x = 1)',
    'SELECT e.event FROM events e JOIN events f ON e.uuid = f.uuid',
    'SELECT (SELECT count() FROM events) AS c FROM numbers(1)',
    'SELECT * FROM session_replay_events WHERE person.properties.email IS NOT NULL',
  ])('guards each SELECT of %s', (q) => {
    assertGuarded(sql(q));
  });

  it('puts the guard first in WHERE, ANDed with the user condition', () => {
    expect(sql("SELECT 1 FROM events WHERE event = 'a' OR 1 = 1")).toContain(
      'WHERE and(equals(events.team_id, 7), or(equals(events.event, {hogql_val_0:String}), equals(1, 1)))',
    );
  });
});

describe('parameters', () => {
  it('never inlines user strings', () => {
    const c = compileSelect(
      "SELECT 'it''s', properties['a\\'b'] FROM events WHERE event = 'x\\\\y'",
      options,
    );
    expect(c.sql).not.toMatch(/it's|a'b|x\\y/);
    expect(Object.values(c.params)).toEqual(["it's", "a'b", 'x\\y']);
  });

  it('binds placeholder values', () => {
    const c = compileSelect('SELECT {v}', { ...options, values: { v: "1'); DROP TABLE events; --" } });
    expect(c.sql).toContain('{hogql_val_0:String}');
    expect(c.params.hogql_val_0).toBe("1'); DROP TABLE events; --");
  });

  it('inline mode renders escaped literals instead', () => {
    const printed = sql("SELECT 'a''b\\n'", { inlineStrings: true });
    expect(printed).toContain("'a\\'b\\x0a'");
  });
});

describe('limits and settings', () => {
  it('adds LIMIT 100 by default and caps at 50 000', () => {
    expect(sql('SELECT 1')).toMatch(/LIMIT 100 SETTINGS/);
    expect(sql('SELECT 1 LIMIT 99999')).toMatch(/LIMIT 50000 SETTINGS/);
    expect(sql('SELECT 1 LIMIT 10')).toMatch(/LIMIT 10 SETTINGS/);
    expect(sql('SELECT 1', { defaultLimit: null })).toMatch(/LIMIT 50000 SETTINGS/);
    expect(sql('SELECT 1 UNION ALL SELECT 2 LIMIT 70000')).toMatch(
      /SELECT 1 LIMIT 100 UNION ALL SELECT 2 LIMIT 50000/,
    );
  });

  it('reports whether the query had its own LIMIT', () => {
    expect(compileSelect('SELECT 1', options).hadLimit).toBe(false);
    expect(compileSelect('SELECT 1 LIMIT 5', options).hadLimit).toBe(true);
  });

  it('runs read-only with execution caps (memory is the events store part per statement)', () => {
    const printed = sql('SELECT 1');
    expect(printed).toContain('readonly=2');
    expect(printed).toContain('max_execution_time=60');
    expect(printed).not.toContain('max_memory_usage=');
    expect(printed).toContain('max_result_rows=');
    expect(sql('SELECT 1', { limits: { maxExecutionTime: 600, maxResultRows: 1 } })).toContain(
      'max_execution_time=600',
    );
  });
});

describe('rejections', () => {
  it.each([
    ['SELECT * FROM system.tables', 'Unknown table `system.tables`.'],
    ['SELECT * FROM db.events', 'Unknown table `db.events`.'],
    ["SELECT * FROM url('http://x', CSV)", 'Unknown table `url`.'],
    ['SELECT * FROM numbers()', "Table function 'numbers' requires arguments"],
    ['SELECT * FROM events(1)', "Table 'events' does not accept arguments"],
    ["SELECT file('/etc/passwd')", "Unsupported function call 'file(...)'"],
    ['SELECT 1 AS team_id', '"team_id" cannot be an alias or identifier'],
    ['SELECT nope FROM events', 'Unable to resolve field: nope'],
    ['SELECT sum(avg(1))', "Aggregation 'avg' cannot be nested inside another aggregation 'sum'."],
    ['SELECT {x}', 'Unresolved placeholder: {x}'],
  ])('%s', (q, message) => {
    expect(() => sql(q)).toThrow(message);
  });
});
