import { useMemo } from 'preact/hooks';
import { Chart } from '../../components/chart';
import { ErrorNote } from '../../components/error-note';
import { baseQuery, interval, type WebView } from './state';
import { useWebQuery } from './use-web-query';

export interface OverviewItem {
  key: string;
  kind: 'unit' | 'duration_s' | 'percentage' | 'currency';
  value: number | null;
  previous: number | null;
  changeFromPreviousPct: number | null;
  isIncreaseBad?: boolean;
}

const TITLES: Record<string, string> = {
  visitors: 'Visitors',
  views: 'Views',
  sessions: 'Sessions',
  'session duration': 'Session duration',
  'bounce rate': 'Bounce rate',
};

/** A value as the tile shows it: counts grouped, durations as minutes and seconds, rates as %. */
export function formatValue(kind: OverviewItem['kind'], value: number | null): string {
  if (value == null) return '–';
  if (kind === 'duration_s') {
    const s = Math.round(value);
    return s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
  }
  if (kind === 'percentage') return `${Math.round(value)}%`;
  return Math.round(value).toLocaleString();
}

function Change({ item }: { item: OverviewItem }) {
  const pct = item.changeFromPreviousPct;
  if (pct == null) return <span class="wa-change muted">no previous data</span>;
  if (pct === 0) return <span class="wa-change muted">no change</span>;
  const up = pct > 0;
  // A change is good or bad by direction: more visitors is good, more bounces is bad.
  const good = up !== (item.isIncreaseBad === true);
  return (
    <span
      class={`wa-change ${good ? 'good' : 'bad'}`}
      title={`Previous period: ${formatValue(item.kind, item.previous)}`}
    >
      <span aria-hidden="true">{up ? '▲' : '▼'}</span> {up ? 'up' : 'down'} {Math.abs(pct)}%
    </span>
  );
}

/** Visitors, views, sessions, session duration and bounce rate, with the change against the period before. */
export function OverviewTiles({ view }: { view: WebView }) {
  const { data, error, retry } = useWebQuery<{ results: OverviewItem[] }>({
    kind: 'WebOverviewQuery',
    ...baseQuery(view),
  });
  return (
    <section class="wa-tiles" aria-label="Overview" aria-busy={!data && !error}>
      {error ? <ErrorNote error={error} retry={retry} /> : null}
      {!data && !error ? Object.keys(TITLES).map((k) => <div key={k} class="wa-tile skeleton" />) : null}
      {data?.results
        .filter((item) => TITLES[item.key])
        .map((item) => (
          <div class="wa-tile" key={item.key} data-key={item.key}>
            <span class="wa-tile-title">{TITLES[item.key]}</span>
            <strong class="wa-tile-value">{formatValue(item.kind, item.value)}</strong>
            {view.compare ? <Change item={item} /> : null}
          </div>
        ))}
    </section>
  );
}

interface TrendResult {
  days: string[];
  data: number[];
  count: number;
  compare_label?: string | null;
}

/** A point's time as uPlot's x: the project's wall clock written as UTC. */
const wallClock = (d: string) =>
  Date.parse(d.length > 10 ? `${d.replace(' ', 'T').slice(0, 19)}Z` : `${d}T00:00:00Z`) / 1000;

/** Unique visitors per day (per hour for a day, per week for a year): a TrendsQuery of `$pageview`. */
export function VisitorsChart({ view }: { view: WebView }) {
  const { data, error, retry } = useWebQuery<{ results: TrendResult[] }>({
    kind: 'TrendsQuery',
    ...baseQuery(view),
    interval: interval(view),
    series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau', custom_name: 'Visitors' }],
  });
  const chart = useMemo(() => {
    const results = data?.results ?? [];
    const current = results.find((r) => r.compare_label !== 'previous') ?? results[0];
    const previous = results.find((r) => r.compare_label === 'previous');
    if (!current) return null;
    const series = [{ label: 'Visitors', values: current.data }];
    if (previous) series.push({ label: 'Previous period', values: previous.data });
    return { x: current.days.map(wallClock), series };
  }, [data]);
  return (
    <section class="card wa-chart" aria-label="Visitors over time">
      <h2>Visitors</h2>
      {error ? <ErrorNote error={error} retry={retry} /> : null}
      {!data && !error ? <div class="skeleton" style={{ height: '220px' }} /> : null}
      {chart ? (
        <Chart x={chart.x} series={chart.series} title="Unique visitors" height={220} wallClock />
      ) : null}
    </section>
  );
}
