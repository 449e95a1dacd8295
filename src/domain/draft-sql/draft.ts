import { hogqlIdentifier, hogqlString } from '../../hogql/printer/hogql.js';
import type { PropertyRef } from './match.js';
import type { Filter } from './prompt.js';

/** A query being drafted, printed as readable multi-line HogQL. */
export interface Draft {
  select: string[];
  from: 'events' | 'sessions';
  where: string[];
  groupBy?: string[];
  having?: string[];
  orderBy?: string[];
  limit?: number;
}

export function render(d: Draft): string {
  const lines = [`SELECT ${d.select.join(',\n       ')}`, `FROM ${d.from}`];
  if (d.where.length) lines.push(`WHERE ${d.where.join('\n  AND ')}`);
  if (d.groupBy?.length) lines.push(`GROUP BY ${d.groupBy.join(', ')}`);
  if (d.having?.length) lines.push(`HAVING ${d.having.join(' AND ')}`);
  if (d.orderBy?.length) lines.push(`ORDER BY ${d.orderBy.join(', ')}`);
  if (d.limit !== undefined) lines.push(`LIMIT ${d.limit}`);
  return lines.join('\n');
}

export const str = hogqlString;

/** `properties.$browser`, `person.properties.plan`, with odd keys quoted. */
export function propertyField(p: PropertyRef): string {
  return `${p.kind === 'person' ? 'person.' : ''}properties.${hogqlIdentifier(p.key)}`;
}

export const eventIs = (names: string[]) =>
  names.length === 1 ? `event = ${str(names[0] as string)}` : `event IN (${names.map(str).join(', ')})`;

/** A property filter: properties read as text, so only `<`/`>` convert to numbers. */
export function condition(field: string, filter: Pick<Filter, 'op' | 'value'>): string {
  const { op, value } = filter;
  if (op === 'contains') return `${field} ILIKE ${str(`%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
  const numeric = /^-?\d+(\.\d+)?$/.test(value);
  if (numeric && op !== '=' && op !== '!=') return `toFloat(${field}) ${op} ${value}`;
  return `${field} ${op} ${str(value)}`;
}
