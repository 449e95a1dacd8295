import type {
  ColumnKind,
  ExportColumn,
  ExportRow,
  RowSchema,
} from '../../domain/batch-exports/destinations/types.js';

/** SQL text for the Postgres destination. Names come from the user's config, so all are quoted. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

const PG_TYPES: Record<ColumnKind, string> = {
  text: 'text',
  uuid: 'uuid',
  json: 'jsonb',
  timestamp: 'timestamptz',
  integer: 'integer',
  bigint: 'bigint',
  float: 'double precision',
  bool: 'boolean',
};

const columnList = (columns: ExportColumn[]) => columns.map((c) => ident(c.name)).join(', ');

export function createTable(target: string, schema: RowSchema): string {
  const columns = schema.columns.map((c) => `${ident(c.name)} ${PG_TYPES[c.kind]}`).join(', ');
  const key = schema.key.length > 0 ? `, PRIMARY KEY (${schema.key.map(ident).join(', ')})` : '';
  return `CREATE TABLE IF NOT EXISTS ${target} (${columns}${key})`;
}

export function createStage(stage: string, schema: RowSchema): string {
  const columns = schema.columns.map((c) => `${ident(c.name)} ${PG_TYPES[c.kind]}`).join(', ');
  return `CREATE TEMPORARY TABLE IF NOT EXISTS ${stage} (${columns})`;
}

export function copyInto(stage: string, schema: RowSchema): string {
  return `COPY ${stage} (${columnList(schema.columns)}) FROM STDIN`;
}

/**
 * Moves a staged page (one row per key, see latestPerKey) into the target, replacing rows a
 * previous attempt already wrote: a retried run leaves no duplicates.
 */
export function mergeStage(stage: string, target: string, schema: RowSchema): string {
  const cols = columnList(schema.columns);
  // Without a key (a query that does not select uuid) rows can only be appended.
  if (schema.key.length === 0) return `INSERT INTO ${target} (${cols}) SELECT ${cols} FROM ${stage}`;
  const key = schema.key.map(ident).join(', ');
  const updates = schema.columns
    .filter((c) => !schema.key.includes(c.name))
    .map((c) => `${ident(c.name)} = EXCLUDED.${ident(c.name)}`)
    .join(', ');
  return `INSERT INTO ${target} (${cols}) SELECT ${cols} FROM ${stage}
    ON CONFLICT (${key}) ${updates ? `DO UPDATE SET ${updates}` : 'DO NOTHING'}`;
}

/**
 * One row per key, the last one winning (pages come in arrival order): an upsert may not touch
 * the same row twice in one statement.
 */
export function latestPerKey(rows: ExportRow[], schema: RowSchema): ExportRow[] {
  if (schema.key.length === 0) return rows;
  const [only] = schema.key;
  const keyOf =
    schema.key.length === 1 && only
      ? (r: ExportRow) => r[only]
      : (r: ExportRow) => schema.key.map((k) => r[k]).join('\u0000');
  const byKey = new Map<unknown, ExportRow>();
  for (const row of rows) byKey.set(keyOf(row), row);
  return byKey.size === rows.length ? rows : [...byKey.values()];
}

// PostgreSQL text cannot hold NUL; it becomes U+FFFD.
const SPECIAL = /[\\\n\r\t\0]/;
const escapeCopy = (s: string) =>
  SPECIAL.test(s)
    ? s
        .replace(/\\/g, '\\\\')
        .replace(/\n/g, '\\n')
        .replace(/\r/g, '\\r')
        .replace(/\t/g, '\\t')
        .replace(/\0/g, '\uFFFD')
    : s;
// jsonb refuses the NUL character even escaped; it cannot be stored, so it becomes U+FFFD.
const NUL = /(?<!\\)\\u0000/g;

/** Rows in COPY's text format. */
export function copyText(rows: ExportRow[], schema: RowSchema): string {
  const cols = schema.columns;
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < cols.length; i++) {
      const c = cols[i]!;
      const v = row[c.name];
      if (i > 0) out += '\t';
      if (v === null || v === undefined) out += '\\N';
      else if (typeof v === 'boolean') out += v ? 't' : 'f';
      else if (typeof v === 'number') out += String(v);
      else if (c.kind === 'json') out += escapeCopy(v.includes('\\u0000') ? v.replace(NUL, '\\ufffd') : v);
      else out += escapeCopy(v);
    }
    out += '\n';
  }
  return out;
}
