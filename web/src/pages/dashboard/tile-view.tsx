import { DataTable } from '../../components/data-table';
import { kindOf, ResultView, type SavedInsight } from '../insights';
import type { Layouts } from './layout';

export interface Tile {
  id: number;
  insight: (SavedInsight & { result: unknown; columns?: string[] | null }) | null;
  text: { body: string | null } | null;
  layouts?: Layouts | null;
  last_refresh: string | null;
  deleted?: boolean;
}

/** A SQL insight is saved inside a DataVisualizationNode (or a bare HogQLQuery from the API). */
export function sqlOf(query: Record<string, unknown> | null | undefined): string | null {
  const node = (query?.kind === 'DataVisualizationNode' ? query.source : query) as
    | { kind?: string; query?: string }
    | undefined;
  return node?.kind === 'HogQLQuery' && typeof node.query === 'string' ? node.query : null;
}

/** Where a tile's insight opens: SQL ones in the SQL editor, the others on the insight page. */
export const insightHref = (insight: SavedInsight) =>
  sqlOf(insight.query) !== null
    ? `/sql?insight=${encodeURIComponent(insight.short_id)}`
    : `/insights/${encodeURIComponent(insight.short_id)}`;

/** One tile's content: a text, an insight's chart, or a SQL insight's table. */
export function TileView({ tile, height }: { tile: Tile; height: number }) {
  if (tile.text) return <div class="text-tile">{tile.text.body}</div>;
  const insight = tile.insight;
  if (!insight) return null;
  const result = insight.result as unknown;
  if (result === null || result === undefined)
    return <p class="muted">Not calculated yet: refresh the dashboard.</p>;
  const kind = kindOf(insight.query);
  if (kind) return <ResultView kind={kind} result={{ results: result as unknown[] }} />;
  // A HogQL insight's rows come as `result` with its `columns` beside it.
  const table = Array.isArray(result)
    ? { columns: insight.columns ?? [], results: result as unknown[][] }
    : (result as { results?: unknown[][]; columns?: string[] });
  return table.columns?.length ? (
    <DataTable columns={table.columns} rows={table.results ?? []} height={height} />
  ) : (
    <pre class="code small">{JSON.stringify(result).slice(0, 2000)}</pre>
  );
}
