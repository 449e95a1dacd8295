import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note';
import { baseQuery, type WebView } from './state';
import { useWebQuery } from './use-web-query';

type Pair = [number | null, number | null];
type GoalRow = [string, Pair, Pair, Pair];

const count = (n: number | null | undefined) => (n == null ? '–' : Math.round(n).toLocaleString());
const percent = (n: number | null | undefined) => (n == null ? '–' : `${Math.round(n * 1000) / 10}%`);

/** Goals: the project's actions (WebGoalsQuery), converting visitors and their rate. */
export function GoalsCard({ view }: { view: WebView }) {
  const { data, error, retry } = useWebQuery<{ results: GoalRow[] }>({
    kind: 'WebGoalsQuery',
    ...baseQuery(view),
  });
  return (
    <section class="card wa-group" aria-label="Goals">
      <h2>Goals</h2>
      {error ? <ErrorNote error={error} retry={retry} /> : null}
      {!data && !error ? <div class="skeleton" style={{ height: '6rem' }} aria-busy="true" /> : null}
      {data && data.results.length === 0 ? (
        <p class="muted">
          No goals yet: the project's actions are its goals (the five newest, pinned first).
        </p>
      ) : null}
      {data && data.results.length > 0 ? (
        <table class="wa-table" aria-label="Goals">
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col" class="num">
                Visitors
              </th>
              <th scope="col" class="num">
                Conversions
              </th>
              <th scope="col" class="num">
                Rate
              </th>
            </tr>
          </thead>
          <tbody>
            {data.results.map((r) => (
              <tr key={r[0]}>
                <td class="wa-name" style={{ '--share': percent(r[3][0]) }}>
                  <span>{r[0]}</span>
                </td>
                <td class="num">{count(r[1][0])}</td>
                <td class="num">{count(r[2][0])}</td>
                <td class="num">{percent(r[3][0])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** Google's thresholds (good up to the first, poor past the second), as PostHog's web vitals tab. */
const METRICS = [
  { id: 'LCP', label: 'LCP', thresholds: [2500, 4000], unit: 'ms' },
  { id: 'INP', label: 'INP', thresholds: [200, 500], unit: 'ms' },
  { id: 'CLS', label: 'CLS', thresholds: [0.1, 0.25], unit: '' },
  { id: 'FCP', label: 'FCP', thresholds: [1800, 3000], unit: 'ms' },
] as const;
type Band = 'good' | 'needs_improvements' | 'poor';
const BANDS: { id: Band; label: string }[] = [
  { id: 'poor', label: 'Poor' },
  { id: 'needs_improvements', label: 'Needs improvement' },
  { id: 'good', label: 'Good' },
];

function VitalsTable({ metric, view }: { metric: (typeof METRICS)[number]; view: WebView }) {
  const { data, error, retry } = useWebQuery<{ results: Record<Band, { path: string; value: number }[]>[] }>({
    kind: 'WebVitalsPathBreakdownQuery',
    ...baseQuery(view),
    metric: metric.id,
    percentile: 'p75',
    thresholds: metric.thresholds,
  });
  if (error) return <ErrorNote error={error} retry={retry} />;
  if (!data) return <div class="skeleton" style={{ height: '8rem' }} aria-busy="true" />;
  const bands = data.results[0];
  const rows = BANDS.flatMap((b) => (bands?.[b.id] ?? []).map((r) => ({ ...r, band: b })));
  if (rows.length === 0) return <p class="muted">No {metric.label} measured in this period.</p>;
  const shown = (v: number) => (metric.unit === 'ms' ? `${Math.round(v).toLocaleString()} ms` : v.toFixed(3));
  return (
    <table class="wa-table" aria-label={`${metric.label} by page`}>
      <thead>
        <tr>
          <th scope="col">Page</th>
          <th scope="col" class="num wa-wide">
            p75
          </th>
          <th scope="col" class="num wa-wide">
            Rating
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.slice(0, 10).map((r) => (
          <tr key={`${r.band.id}:${r.path}`}>
            <td class="wa-name">
              <span>{r.path}</span>
            </td>
            <td class="num wa-wide">{shown(r.value)}</td>
            <td class={`num wa-wide wa-band-${r.band.id}`}>{r.band.label}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Web vitals: each metric's 75th percentile by page, rated as Google rates it. */
export function VitalsCard({ view }: { view: WebView }) {
  const [selected, setSelected] = useState<(typeof METRICS)[number]['id']>('LCP');
  const metric = METRICS.find((m) => m.id === selected) ?? METRICS[0];
  return (
    <section class="card wa-group" aria-label="Web vitals">
      <div class="wa-tabs" role="tablist" aria-label="Web vitals">
        {METRICS.map((m) => (
          <button
            key={m.id}
            type="button"
            role="tab"
            id={`wa-vitals-${m.id}`}
            aria-selected={m.id === metric.id}
            aria-controls="wa-vitals-panel"
            tabIndex={m.id === metric.id ? 0 : -1}
            onClick={() => setSelected(m.id)}
          >
            {m.label}
          </button>
        ))}
      </div>
      <div id="wa-vitals-panel" role="tabpanel" aria-labelledby={`wa-vitals-${metric.id}`}>
        <VitalsTable key={metric.id} metric={metric} view={view} />
      </div>
    </section>
  );
}
