import { call, constant, type Expr, field, type SelectQuery } from '../../../hogql/ast.js';
import { compileSelect } from '../../../hogql/compile.js';
import { isExposed } from '../../../hogql/errors.js';
import { ASYNC_LIMITS } from '../../../hogql/settings.js';
import type { EventsStore } from '../../../store/events/store.js';
import { type ExportColumn, type ExportRow, PermanentError, type RowSchema } from '../destinations/types.js';
import { columnName, storedQuery } from '../hogql.js';
import { expandAsterisks, formatted, kindOf, toRow, uniqueNames } from './hogql-columns.js';
import { from, rowOuter, setOuter } from './hogql-pages.js';
import { innerColumn, innerQuery, isRowQuery, type QueryScope } from './hogql-query.js';
import type { Source, SourceWindow } from './source.js';

/** The compiler caps a top-level SELECT at 50,000 rows. */
const MAX_PAGE = 50_000;

export interface QuerySource extends Source {
  /** The exported columns, typed from the query's result types (asked of the engine once). */
  schema(): Promise<RowSchema>;
}

/**
 * Rows of a `hogql_query` export for one window, compiled for the team like any HogQL query
 * (team guard included). A query whose rows are events is paged on `(inserted_at, uuid)`, one
 * query per page; one that groups or deduplicates is paged by OFFSET over its ordered result.
 */
export function hogqlSource(
  store: EventsStore,
  spec: QueryScope & { teamId: number; timezone: string; query: string },
  window: SourceWindow,
  pageRows: number,
): QuerySource {
  const compile = (q: SelectQuery) => {
    try {
      return compileSelect(q, {
        teamId: spec.teamId,
        timezone: spec.timezone,
        weekStartDay: 0,
        table: (t) => store.table(t),
        personColumns: store.personColumns,
        defaultLimit: null,
        limits: ASYNC_LIMITS,
        eventsSince: spec.eventsSince,
      });
    } catch (error) {
      if (isExposed(error)) throw new PermanentError(`Invalid HogQL query: ${error.message}`);
      throw error;
    }
  };
  const run = async (q: SelectQuery, signal?: AbortSignal) => {
    const compiled = compile(q);
    return store.queryRows(compiled.sql, { params: compiled.params, ...(signal && { signal }) });
  };
  const user = expandAsterisks(storedQuery(spec.query), (q) => compile(q).columns);
  const names = uniqueNames(user.select.map(columnName));
  const inner = innerQuery(user, window, spec);
  const rowQuery = isRowQuery(user);
  const page = Math.min(pageRows, MAX_PAGE);
  let described: { columns: ExportColumn[]; outer: Expr[] } | undefined;
  const describe = async () => {
    if (described) return described;
    const probe = await run({ ...inner, limit: constant(0) });
    const columns: ExportColumn[] = [];
    const outer: Expr[] = [];
    user.select.forEach((item, i) => {
      const type = probe.columns[i]?.type ?? 'String';
      const bare = item.node === 'Alias' ? item.expr : item;
      // `properties` and friends are JSON kept as text by the events store.
      const jsonText = bare.node === 'Field' && /properties$/.test(String(bare.chain.at(-1)));
      const kind = kindOf(type, jsonText);
      columns.push({ name: names[i]!, kind });
      outer.push({
        node: 'Alias',
        alias: `__burrow_o${i}`,
        expr: formatted(kind, type, field(innerColumn(inner, i))),
      });
    });
    described = { columns, outer };
    return described;
  };

  return {
    async schema() {
      const { columns } = await describe();
      const uuid = columns.find((c) => c.name === 'uuid' && c.kind === 'uuid');
      return { columns, key: uuid ? ['uuid'] : [], custom: true };
    },
    async count() {
      const res = await run({ node: 'SelectQuery', select: [call('count', [])], select_from: from(inner) });
      return Number(res.rows[0]?.[0] ?? 0);
    },
    async *pages(signal) {
      const { columns, outer } = await describe();
      let after: { at: string; uuid: string } | null = null;
      for (let offset = 0; ; offset += page) {
        const q = rowQuery ? rowOuter(outer, inner, after, page) : setOuter(outer, inner, page, offset);
        const res = await run(q, signal);
        if (res.rows.length === 0) return;
        const last = res.rows[res.rows.length - 1] as unknown[];
        if (rowQuery) after = { at: String(last[columns.length]), uuid: String(last[columns.length + 1]) };
        yield res.rows.map((r) => toRow(r as unknown[], columns)) satisfies ExportRow[];
        if (res.rows.length < page) return;
      }
    },
  };
}
