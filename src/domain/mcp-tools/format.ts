/**
 * Query results as PostHog's MCP tools show them to a model: a `|`-separated header of column
 * names, then one line per row. Long JSON-like cells are cut (unless `truncate` is off) and the
 * whole text is bounded, with a note saying so.
 */
export const MAX_CELL = 500;
export const MAX_RESULT_CHARS = 64_000;
export const TRUNCATED = '...truncated';
export const NULL_MARKER = '(null)';

function cell(value: unknown, truncate: boolean): string {
  if (value === null || value === undefined) return NULL_MARKER;
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const jsonLike = typeof value === 'object' || text.startsWith('{') || text.startsWith('[');
  return truncate && jsonLike && text.length > MAX_CELL ? text.slice(0, MAX_CELL) + TRUNCATED : text;
}

export function formatSqlResults(columns: string[], rows: unknown[][], truncate: boolean): string {
  const lines = [columns.join('|')];
  let size = lines[0]?.length ?? 0;
  for (const [i, row] of rows.entries()) {
    const line = row.map((v) => cell(v, truncate)).join('|');
    if (size + line.length + 1 > MAX_RESULT_CHARS) {
      lines.push(
        `(${rows.length - i} more rows omitted: select fewer columns, aggregate, filter, or paginate with a stable ORDER BY)`,
      );
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
