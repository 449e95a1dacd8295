import { call, constant, type Expr, field, type SelectQuery } from '../../../hogql/ast.js';
import type { ColumnKind, ExportColumn, ExportRow } from '../destinations/types.js';

/** The column kind for a ClickHouse result type (wrappers such as Nullable dropped). */
export function kindOf(chType: string, jsonText: boolean): ColumnKind {
  let t = chType;
  for (;;) {
    const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t);
    if (!m) break;
    t = m[1]!;
  }
  if (/^(?:String|FixedString)/.test(t)) return jsonText ? 'json' : 'text';
  if (t === 'UUID') return 'uuid';
  if (/^DateTime/.test(t)) return 'timestamp';
  if (t === 'Bool') return 'bool';
  if (/^(?:U?Int(?:8|16)|Int32)$/.test(t)) return 'integer';
  if (/^U?Int\d+$/.test(t)) return 'bigint';
  if (/^(?:Float|Decimal)/.test(t)) return 'float';
  if (/^(?:Array|Map|Tuple|Object|JSON|Nested)/.test(t)) return 'json';
  // Date, Enum, IPv4/6, Nothing (a NULL literal) and the rest: their text.
  return 'text';
}

/** Kinds whose values ClickHouse is asked to format, so every destination gets one shape. */
export function formatted(kind: ColumnKind, chType: string, e: Expr): Expr {
  if (kind === 'timestamp') {
    return call('formatDateTime', [e, constant('%Y-%m-%dT%H:%i:%S.%fZ'), constant('UTC')]);
  }
  if (kind === 'json' && !/^(?:Nullable\()?(?:LowCardinality\()?(?:String|FixedString)/.test(chType)) {
    return call('toJSONString', [e]);
  }
  if (kind === 'text' && !/^(?:Nullable\()?(?:LowCardinality\()?(?:String|FixedString)/.test(chType)) {
    return call('toString', [e]);
  }
  return e;
}

/** A result row (array) as an export row; 64-bit integers arrive quoted and become numbers when exact. */
export function toRow(values: unknown[], columns: ExportColumn[]): ExportRow {
  const row: ExportRow = {};
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    const v = values[i];
    // An absent JSON document (a person without properties) is stored as ''.
    if (v === null || v === undefined || (c.kind === 'json' && v === '')) row[c.name] = null;
    else if (c.kind === 'integer' || c.kind === 'bigint') {
      const n = Number(v);
      row[c.name] = Number.isSafeInteger(n) ? n : String(v);
    } else if (c.kind === 'float') {
      const n = Number(v);
      row[c.name] = Number.isFinite(n) ? n : null;
    } else row[c.name] = v as string | boolean;
  }
  return row;
}

const isStar = (e: Expr) => e.node === 'Field' && e.chain[e.chain.length - 1] === '*';

/**
 * `*` (or `e.*`) replaced by the fields it stands for, so each column can be named and formatted;
 * `columnsOf` names the columns a SELECT outputs (the compiler knows what `*` expands to).
 */
export function expandAsterisks(q: SelectQuery, columnsOf: (q: SelectQuery) => string[]): SelectQuery {
  if (!q.select.some(isStar)) return q;
  const select = q.select.flatMap((item) => {
    if (!isStar(item) || item.node !== 'Field') return [item];
    const prefix = item.chain.slice(0, -1);
    return columnsOf({ node: 'SelectQuery', select: [item], select_from: q.select_from }).map((name) =>
      field(...prefix, name),
    );
  });
  return { ...q, select };
}

/** Column names made unique (`event`, `event_2`): a table cannot have two columns of one name. */
export function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}
