import { useCallback, useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, get } from '../api';
import { DataTable } from '../components/data-table';
import { ErrorNote } from '../components/error-note';
import { Freshness, oldestRefresh } from '../components/freshness';
import { useList } from '../components/use-resource';
import { useSession } from '../session';
import { kindOf, ResultView, type SavedInsight } from './insights';

interface DashboardBasic {
  id: number;
  name: string | null;
  description: string;
  pinned: boolean;
}
interface Tile {
  id: number;
  insight: (SavedInsight & { result: unknown }) | null;
  text: { body: string | null } | null;
  last_refresh: string | null;
}
interface Dashboard extends DashboardBasic {
  filters: { date_from?: string | null };
  tiles: Tile[];
}

const RANGES: Record<string, string> = {
  '': 'Each insight’s own',
  '-7d': 'Last 7 days',
  '-30d': 'Last 30 days',
  '-90d': 'Last 90 days',
};

export function Dashboards() {
  const { team } = useSession();
  const base = `/api/projects/${team.id}/dashboards/`;
  const { list, error, setError, reload } = useList<DashboardBasic>(`${base}?limit=100`);
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    try {
      await api('POST', base, { name: new FormData(form).get('name') });
      form.reset();
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <h1>Dashboards</h1>
      <section class="card">
        {error !== null && <ErrorNote error={error} />}
        {list?.length === 0 && (
          <p class="muted">No dashboards yet. Create one, then add saved insights to it from Insights.</p>
        )}
        <ul class="saved-list">
          {list?.map((d) => (
            <li key={d.id}>
              <a href={`/dashboards/${d.id}`}>{d.name || `Dashboard ${d.id}`}</a>
              {d.description && <span class="muted small"> {d.description}</span>}
            </li>
          ))}
        </ul>
        <form class="row wrap" onSubmit={create}>
          <label>
            Name
            <input name="name" required maxLength={400} />
          </label>
          <button type="submit" class="primary">
            New dashboard
          </button>
        </form>
      </section>
    </div>
  );
}

function TileView({ tile }: { tile: Tile }) {
  if (tile.text) return <div class="text-tile">{tile.text.body}</div>;
  const insight = tile.insight;
  if (!insight) return null;
  const kind = kindOf(insight.query);
  const result = insight.result as
    | unknown[]
    | { results?: unknown[][]; columns?: string[] }
    | null
    | undefined;
  if (result === null || result === undefined)
    return <p class="muted">Not calculated yet: refresh the dashboard.</p>;
  if (kind) return <ResultView kind={kind} result={{ results: result as unknown[] }} />;
  const table = result as { results?: unknown[][]; columns?: string[] };
  return table.columns ? (
    <DataTable columns={table.columns} rows={table.results ?? []} height={260} />
  ) : (
    <pre class="code small">{JSON.stringify(result).slice(0, 2000)}</pre>
  );
}

export function DashboardPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const url = `/api/projects/${team.id}/dashboards/${encodeURIComponent(params.id ?? '')}/`;
  const [dashboard, setDashboard] = useState<Dashboard | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(
    async (refresh: string) => {
      setBusy(true);
      setError(null);
      try {
        setDashboard(await get<Dashboard>(`${url}?refresh=${refresh}`));
      } catch (e) {
        setError(e);
      } finally {
        setBusy(false);
      }
    },
    [url],
  );
  useEffect(() => {
    void load('blocking');
  }, [load]);
  const setRange = async (dateFrom: string) => {
    try {
      await api('PATCH', url, { filters: { ...dashboard?.filters, date_from: dateFrom || null } });
      await load('force_blocking');
    } catch (e) {
      setError(e);
    }
  };
  const addText = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    try {
      await api('PATCH', url, { tiles: [{ text: { body: String(new FormData(form).get('body') ?? '') } }] });
      form.reset();
      await load('blocking');
    } catch (e) {
      setError(e);
    }
  };
  if (!dashboard)
    return error ? <ErrorNote error={error} /> : <div class="skeleton" style={{ height: '300px' }} />;
  const tiles = dashboard.tiles.filter((t) => !(t as { deleted?: boolean }).deleted);
  return (
    <div class="page">
      <h1>{dashboard.name || `Dashboard ${dashboard.id}`}</h1>
      <section class="card row wrap" aria-busy={busy}>
        <label>
          Date range for every tile
          <select
            value={dashboard.filters.date_from ?? ''}
            onChange={(e) => setRange((e.currentTarget as HTMLSelectElement).value)}
          >
            {Object.entries(RANGES).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <Freshness
          what="Oldest tile computed"
          computedAt={oldestRefresh(tiles.map((t) => t.insight?.last_refresh ?? t.last_refresh))}
          busy={busy}
          onRefresh={() => load('force_blocking')}
        />
      </section>
      {error !== null && <ErrorNote error={error} />}
      {tiles.length === 0 && (
        <p class="muted">No tiles yet: save an insight and add it here from Insights.</p>
      )}
      <div class="grid two">
        {tiles.map((t) => (
          <section class="card tile" key={t.id}>
            {t.insight && <h2>{t.insight.name || t.insight.short_id}</h2>}
            <TileView tile={t} />
          </section>
        ))}
      </div>
      <form class="row wrap card" style={{ marginTop: '1rem' }} onSubmit={addText}>
        <label>
          Text tile
          <input
            name="body"
            required
            maxLength={4000}
            placeholder="A note for everyone who opens this dashboard"
          />
        </label>
        <button type="submit">Add text</button>
      </form>
    </div>
  );
}
