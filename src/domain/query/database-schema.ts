import { TABLES } from '../../hogql/schema/database.js';
import type { FieldDef, TableDef } from '../../hogql/schema/fields.js';
import type { QueryResult } from './context.js';
import type { QueryNode } from './kinds.js';

/**
 * DatabaseSchemaQuery: the tables a HogQL query may name and their fields, in the shape PostHog's
 * SQL editor reads for its table browser (`tables[name].fields[field]` with a `type`, and for joins
 * the table or chain they lead to). Burrow has no warehouse tables, views or joins.
 */
interface SchemaField {
  name: string;
  hogql_value: string;
  type: string;
  schema_valid: true;
  table?: string;
  chain?: string[];
  fields?: string[];
}

// PostHog names its field types by its own DatabaseSerializedFieldType: the column types, and
// lazy_table / virtual_table / field_traverser for what a query reaches through.
const COLUMN_TYPES: Record<string, string> = {
  string: 'string',
  integer: 'integer',
  float: 'float',
  boolean: 'boolean',
  datetime: 'datetime',
  date: 'date',
  uuid: 'string',
  json: 'json',
  array: 'array',
  tuple: 'array',
};

function fieldOf(name: string, f: FieldDef): SchemaField | null {
  const base = { name, hogql_value: /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name}\`` };
  switch (f.kind) {
    case 'column':
    case 'expression':
      if (f.hidden) return null;
      return { ...base, type: COLUMN_TYPES[f.data] ?? 'unknown', schema_valid: true };
    case 'lazy_join':
      return { ...base, type: 'lazy_table', schema_valid: true, table: f.table };
    case 'virtual':
      return { ...base, type: 'virtual_table', schema_valid: true, fields: Object.keys(f.fields) };
    case 'traverser':
      return { ...base, type: 'field_traverser', schema_valid: true, chain: f.chain };
  }
}

function tableOf(t: TableDef) {
  const fields: Record<string, SchemaField> = {};
  for (const [name, f] of Object.entries(t.fields)) {
    const field = fieldOf(name, f);
    if (field) fields[name] = field;
  }
  return { type: 'posthog', id: t.name, name: t.name, fields };
}

export function checkDatabaseSchemaNode(node: QueryNode): QueryNode {
  return node;
}

export function databaseSchema(): QueryResult {
  const tables: Record<string, ReturnType<typeof tableOf>> = {};
  for (const t of TABLES.values()) if (!t.tableFunction) tables[t.name] = tableOf(t);
  // `results` is what every runner answers; PostHog's answer has `tables` and `joins`.
  return { tables, joins: [] } as unknown as QueryResult;
}
