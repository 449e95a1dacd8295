import { useLocation } from 'preact-iso';
import { GoalsCard, VitalsCard } from './goals-vitals';
import { LiveVisitors } from './live';
import { OverviewTiles, VisitorsChart } from './overview';
import { FILTER_KEYS, PRESETS, readView, viewSearch, type WebFilter, type WebView } from './state';
import { GROUPS, TableGroup } from './tables';

/**
 * The web analytics dashboard, as Plausible's: overview tiles, a visitors chart and tabbed tables
 * on one screen, every row a filter. All of it is the public `/query/` API (WebOverviewQuery,
 * WebStatsTableQuery, WebExternalClicksTableQuery, WebVitalsPathBreakdownQuery, WebGoalsQuery, a
 * TrendsQuery and a HogQLQuery), and the view lives in the address.
 */
function Toolbar({ view, set }: { view: WebView; set: (v: WebView) => void }) {
  const custom = view.from != null;
  return (
    <div class="wa-toolbar">
      <label>
        <span class="sr-only">Date range</span>
        <select
          aria-label="Date range"
          value={custom ? 'custom' : (view.preset ?? '')}
          onChange={(e) => {
            const v = e.currentTarget.value;
            if (v === 'custom') {
              const today = new Date().toISOString().slice(0, 10);
              const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
              set({ ...view, preset: null, from: weekAgo, to: today });
            } else set({ ...view, preset: v, from: null, to: null });
          }}
        >
          {PRESETS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom days…</option>
        </select>
      </label>
      {custom ? (
        <>
          <label class="check">
            From{' '}
            <input
              type="date"
              value={view.from ?? ''}
              max={view.to ?? undefined}
              onChange={(e) => e.currentTarget.value && set({ ...view, from: e.currentTarget.value })}
            />
          </label>
          <label class="check">
            to{' '}
            <input
              type="date"
              value={view.to ?? ''}
              min={view.from ?? undefined}
              onChange={(e) => set({ ...view, to: e.currentTarget.value || null })}
            />
          </label>
        </>
      ) : null}
      <label class="check wa-compare">
        <input
          type="checkbox"
          checked={view.compare}
          onChange={() => set({ ...view, compare: !view.compare })}
        />{' '}
        Compare with the previous period
      </label>
    </div>
  );
}

function FilterChips({ view, set }: { view: WebView; set: (v: WebView) => void }) {
  if (view.filters.length === 0) return null;
  return (
    <ul class="wa-chips" aria-label="Filters">
      {view.filters.map((f, i) => {
        const label = `${FILTER_KEYS[f.breakdown]?.label ?? f.breakdown} is ${f.value}`;
        return (
          <li key={`${f.breakdown}:${f.value}`}>
            <span>{label}</span>
            <button
              type="button"
              aria-label={`Remove filter: ${label}`}
              onClick={() => set({ ...view, filters: view.filters.filter((_, j) => j !== i) })}
            >
              ×
            </button>
          </li>
        );
      })}
      {view.filters.length > 1 ? (
        <li>
          <button type="button" class="link" onClick={() => set({ ...view, filters: [] })}>
            Clear all
          </button>
        </li>
      ) : null}
    </ul>
  );
}

/** The dashboard itself: the web analytics page, and Home for a site's project. */
export function WebAnalytics() {
  const { path, query, route } = useLocation();
  const view = readView(query);
  const set = (next: WebView) => route(`${path}${viewSearch(next)}`);
  // A row's filter replaces any other on the same table: one page, one country, at a time.
  const addFilter = (f: WebFilter) =>
    set({ ...view, filters: [...view.filters.filter((o) => o.breakdown !== f.breakdown), f] });
  return (
    <div class="wa">
      <div class="wa-head">
        <Toolbar view={view} set={set} />
        <LiveVisitors />
      </div>
      <FilterChips view={view} set={set} />
      <OverviewTiles view={view} />
      <VisitorsChart view={view} />
      <div class="grid two">
        {GROUPS.map((g) => (
          <TableGroup key={g.title} group={g} view={view} onFilter={addFilter} />
        ))}
        <VitalsCard view={view} />
        <GoalsCard view={view} />
      </div>
    </div>
  );
}

export function WebAnalyticsPage() {
  return (
    <div class="page">
      <h1>Web analytics</h1>
      <WebAnalytics />
    </div>
  );
}
