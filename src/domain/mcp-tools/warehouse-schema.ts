import { findTable } from '../../hogql/schema/database.js';
import type { FieldDef, TableDef } from '../../hogql/schema/fields.js';

/** PostHog's core tables, the ones its tool describes without being asked for others. */
const CORE = ['events', 'groups', 'persons', 'sessions'];

function fieldType(f: FieldDef): string | null {
  switch (f.kind) {
    case 'column':
    case 'expression':
      return f.hidden ? null : String(f.data);
    case 'lazy_join':
      return `lazy join to ${f.table}`;
    case 'virtual':
      return 'virtual table';
    case 'traverser':
      return `→ ${f.chain.join('.')}`;
  }
}

function describe(table: TableDef, heading: string): string[] {
  const lines = [heading];
  for (const [name, f] of Object.entries(table.fields)) {
    const type = fieldType(f);
    if (type) lines.push(`- ${name} (${type})`);
  }
  lines.push('');
  return lines;
}

/**
 * `read_data_warehouse_schema`: the core tables' fields as markdown, or only the named tables
 * (with the unknown ones listed). Burrow has no warehouse tables or views.
 */
export function readWarehouseSchema(tableNames?: string[] | null): string {
  if (!tableNames?.length) {
    const lines = ['# Core PostHog tables', ''];
    for (const name of CORE) {
      const t = findTable(name);
      if (t) lines.push(...describe(t, `## Table \`${name}\``));
    }
    return lines.join('\n');
  }
  const requested = [...new Set(tableNames)];
  const lines = ['# Requested tables', ''];
  const missing: string[] = [];
  for (const name of requested) {
    const t = findTable(name);
    if (t && !t.tableFunction) lines.push(...describe(t, `## Table \`${name}\` (core)`));
    else missing.push(name);
  }
  if (missing.length) {
    lines.push('## Not found');
    for (const name of missing) lines.push(`- \`${name}\` — available tables include: ${CORE.join(', ')}`);
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
