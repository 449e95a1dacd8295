import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiFailure, api, type RunProgress, runQuery } from '../api';
import { Chart } from '../components/chart';
import { DraftInput } from '../components/draft-input';
import { ErrorNote } from '../components/error-note';
import { FunnelBreakdown, type FunnelGroupStep } from '../components/funnel-breakdown';
import { SimpleTable } from '../components/list-table';
import { Flow, StackedBars } from '../components/svg-charts';
import { useHogQL } from '../components/use-query';
import { useList } from '../components/use-resource';
import { useSession } from '../session';

export const KINDS = ['Trends', 'Funnels', 'Retention', 'Lifecycle', 'Stickiness', 'Paths'] as const;
export type Kind = (typeof KINDS)[number];
const MATHS = {
  total: 'Total count',
  dau: 'Unique users',
  weekly_active: 'Weekly active',
  unique_session: 'Sessions',
};
const RANGES = {
  '-24h': 'Last 24 hours',
  '-7d': 'Last 7 days',
  '-14d': 'Last 14 days',
  '-30d': 'Last 30 days',
  '-90d': 'Last 90 days',
  '-180d': 'Last 180 days',
  all: 'All time',
};
const INTERVALS = ['hour', 'day', 'week', 'month'] as const;

export interface InsightForm {
  kind: Kind;
  series: { event: string; math: keyof typeof MATHS }[];
  dateFrom: keyof typeof RANGES;
  interval: (typeof INTERVALS)[number];
  breakdown: string;
  /** Leave out events of the project's test accounts (Settings → Project). */
  filterTestAccounts?: boolean;
}

const DEFAULT_FORM: InsightForm = {
  kind: 'Trends',
  series: [{ event: '$pageview', math: 'total' }],
  dateFrom: '-7d',
  interval: 'day',
  breakdown: '',
};

const node = (event: string, math?: string) => ({
  kind: 'EventsNode',
  event: event === '' ? null : event,
  name: event === '' ? 'All events' : event,
  ...(math ? { math } : {}),
});

/** The console's kind for a query node (`TrendsQuery` → Trends), or null for other nodes. */
export function kindOf(query: { kind?: string; source?: { kind?: string } } | null | undefined): Kind | null {
  const node = query?.kind === 'InsightVizNode' ? query.source : query;
  const name = node?.kind?.replace(/Query$/, '');
  return KINDS.find((k) => k === name) ?? null;
}

/** A saved query back into the form, for the kinds the form builds (fields it lacks are dropped). */
export function fromQuery(query: Record<string, unknown>): InsightForm | null {
  const node = (query.kind === 'InsightVizNode' ? query.source : query) as Record<string, unknown>;
  const kind = kindOf(node as { kind?: string });
  if (!kind) return null;
  const series = ((node.series as { event?: string | null; math?: string }[] | undefined) ?? []).map((s) => ({
    event: s.event ?? '',
    math: (s.math && s.math in MATHS ? s.math : 'total') as keyof typeof MATHS,
  }));
  const retention = node.retentionFilter as
    | { targetEntity?: { id?: string }; returningEntity?: { id?: string } }
    | undefined;
  if (retention) {
    series.push({ event: retention.targetEntity?.id ?? '$pageview', math: 'total' });
    series.push({ event: retention.returningEntity?.id ?? '$pageview', math: 'total' });
  }
  const dateFrom = String((node.dateRange as { date_from?: string } | undefined)?.date_from ?? '-7d');
  const interval = String(node.interval ?? 'day');
  return {
    kind,
    series: series.length > 0 ? series : DEFAULT_FORM.series,
    dateFrom: (dateFrom in RANGES ? dateFrom : '-7d') as InsightForm['dateFrom'],
    interval: (INTERVALS as readonly string[]).includes(interval)
      ? (interval as InsightForm['interval'])
      : 'day',
    breakdown: String((node.breakdownFilter as { breakdown?: string } | undefined)?.breakdown ?? ''),
    filterTestAccounts: node.filterTestAccounts === true,
  };
}

/** The form as PostHog's query node; the same node is what gets saved. */
export function toQuery(form: InsightForm): Record<string, unknown> {
  // Every insight kind takes the flag; the server applies the project's filters it names.
  const query = queryOf(form);
  return form.filterTestAccounts ? { ...query, filterTestAccounts: true } : query;
}

function queryOf(form: InsightForm): Record<string, unknown> {
  const dateRange = { date_from: form.dateFrom };
  const breakdownFilter = form.breakdown
    ? { breakdownFilter: { breakdown: form.breakdown, breakdown_type: 'event' } }
    : {};
  switch (form.kind) {
    case 'Trends':
      return {
        kind: 'TrendsQuery',
        series: form.series.map((s) => node(s.event, s.math)),
        dateRange,
        interval: form.interval,
        ...breakdownFilter,
      };
    case 'Funnels':
      return {
        kind: 'FunnelsQuery',
        series: form.series.map((s) => node(s.event)),
        dateRange,
        funnelsFilter: { funnelVizType: 'steps' },
        ...breakdownFilter,
      };
    case 'Retention': {
      const [target, returning] = [
        form.series[0]?.event || '$pageview',
        form.series[1]?.event || form.series[0]?.event || '$pageview',
      ];
      const period =
        form.interval === 'hour'
          ? 'Hour'
          : form.interval === 'week'
            ? 'Week'
            : form.interval === 'month'
              ? 'Month'
              : 'Day';
      return {
        kind: 'RetentionQuery',
        dateRange,
        retentionFilter: {
          period,
          totalIntervals: 8,
          targetEntity: { id: target, type: 'events' },
          returningEntity: { id: returning, type: 'events' },
        },
      };
    }
    case 'Lifecycle':
      return {
        kind: 'LifecycleQuery',
        series: [node(form.series[0]?.event ?? '$pageview')],
        dateRange,
        interval: form.interval,
      };
    case 'Stickiness':
      return {
        kind: 'StickinessQuery',
        series: form.series.map((s) => node(s.event)),
        dateRange,
        interval: form.interval,
      };
    case 'Paths':
      return {
        kind: 'PathsQuery',
        dateRange,
        pathsFilter: { includeEventTypes: ['$pageview'], stepLimit: 5, edgeLimit: 50 },
      };
  }
}

interface TrendResult {
  label: string;
  data: number[];
  days: (string | number)[];
  labels: string[];
  count: number;
  status?: string;
  breakdown_value?: unknown;
}
interface FunnelStep {
  name: string;
  custom_name?: string | null;
  count: number;
  order: number;
  average_conversion_time?: number | null;
}
interface RetentionRow {
  label: string;
  date: string;
  values: { count: number }[];
}

// PostHog's placeholders for a missing breakdown value and for the values past the breakdown
// limit, as its own console shows them.
const BREAKDOWN_WORDS: Record<string, string> = {
  $$_posthog_breakdown_null_$$: 'None',
  $$_posthog_breakdown_other_$$: 'Other',
};
/** A series label as people read it: the placeholders (alone, or one part of `a::b`) in words. */
export function readableLabel(label: string): string {
  return label.replace(/\$\$_posthog_breakdown_(?:null|other)_\$\$/g, (m) => BREAKDOWN_WORDS[m] ?? m);
}

function TrendsView({ results, onDrawn }: { results: TrendResult[]; onDrawn?: (ms: number) => void }) {
  const chart = useMemo(() => {
    const days = results[0]?.days ?? [];
    return {
      x: days.map(
        (d) => Date.parse(String(d).replace(' ', 'T') + (String(d).length > 10 ? 'Z' : 'T00:00:00Z')) / 1000,
      ),
      series: results.map((r) => ({ label: readableLabel(r.label), values: r.data })),
    };
  }, [results]);
  if (results.length === 0) return <p class="muted">No data for this range.</p>;
  return (
    <>
      <Chart
        x={chart.x}
        series={chart.series}
        title="Trends chart"
        height={320}
        onDrawn={onDrawn}
        wallClock
      />
      <SimpleTable
        items={results}
        columns={['Series', 'Total']}
        rowKey={(r) => r.label}
        cells={(r) => (
          <>
            <td>{readableLabel(r.label)}</td>
            <td>{r.count.toLocaleString()}</td>
          </>
        )}
      />
    </>
  );
}

/** Seconds as people say them: 45s, 12m 5s, 6h 52m, 3d 4h. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

function FunnelView({ steps }: { steps: FunnelStep[] }) {
  const first = steps[0]?.count ?? 0;
  if (steps.length === 0) return <p class="muted">No data for this range.</p>;
  return (
    <ol class="funnel">
      {steps.map((s, i) => {
        const pct = first ? (s.count / first) * 100 : 0;
        const prev = i === 0 ? s.count : (steps[i - 1]?.count ?? 0);
        return (
          <li key={s.order}>
            <div class="funnel-label">
              <strong>
                {i + 1}. {s.custom_name || s.name}
              </strong>
              <span>
                {s.count.toLocaleString()} persons · {pct.toFixed(1)}%
              </span>
            </div>
            <div class="funnel-track" role="img" aria-label={`${pct.toFixed(1)}% of step 1`}>
              <div class="funnel-bar" style={{ width: `${pct}%` }} />
            </div>
            {i > 0 && (
              <span class="muted small">
                {prev ? (100 - (s.count / prev) * 100).toFixed(1) : '0'}% dropped after step {i}
                {s.average_conversion_time
                  ? ` · average ${duration(s.average_conversion_time)} to convert`
                  : ''}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function RetentionView({ rows }: { rows: RetentionRow[] }) {
  const width = Math.max(0, ...rows.map((r) => r.values.length));
  return (
    <div class="table-scroll">
      <table class="simple retention">
        <thead>
          <tr>
            <th>Cohort</th>
            <th>People</th>
            {Array.from({ length: width - 1 }, (_, i) => (
              <th key={i}>{i + 1}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const size = r.values[0]?.count ?? 0;
            return (
              <tr key={r.date}>
                <td>
                  {r.label} <span class="muted small">{r.date.slice(0, 10)}</span>
                </td>
                <td>{size}</td>
                {r.values.slice(1).map((v, i) => {
                  const pct = size ? (v.count / size) * 100 : 0;
                  return (
                    <td
                      key={i}
                      class="heat"
                      style={{ '--heat': `${Math.round(pct)}%` } as Record<string, string>}
                      title={`${v.count} of ${size}`}
                    >
                      {pct.toFixed(0)}%
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const LIFECYCLE_COLORS: Record<string, string> = {
  new: '#4caf7d',
  returning: '#3b82c4',
  resurrecting: '#b05cc8',
  dormant: '#d94a4a',
};

export function ResultView({
  kind,
  result,
  onDrawn,
}: {
  kind: Kind;
  result: { results: unknown[] };
  onDrawn?: (ms: number) => void;
}) {
  const r = result.results;
  switch (kind) {
    case 'Trends':
      return <TrendsView results={r as TrendResult[]} onDrawn={onDrawn} />;
    case 'Funnels':
      // With a breakdown the answer is one list of steps per group: every group is drawn.
      return Array.isArray(r[0]) ? (
        <FunnelBreakdown groups={r as FunnelGroupStep[][]} />
      ) : (
        <FunnelView steps={r as FunnelStep[]} />
      );
    case 'Retention':
      return <RetentionView rows={r as RetentionRow[]} />;
    case 'Lifecycle': {
      const rows = r as TrendResult[];
      return (
        <StackedBars
          title="Lifecycle"
          labels={rows[0]?.labels ?? []}
          series={rows.map((x) => ({
            label: x.status ?? x.label,
            values: x.data,
            color: LIFECYCLE_COLORS[x.status ?? ''],
          }))}
        />
      );
    }
    case 'Stickiness': {
      const rows = r as TrendResult[];
      return (
        <Chart
          title="Stickiness"
          kind="bars"
          x={(rows[0]?.labels ?? []).map((_, i) => i)}
          labels={rows[0]?.labels}
          series={rows.map((x) => ({ label: readableLabel(x.label), values: x.data }))}
        />
      );
    }
    case 'Paths':
      return (r as unknown[]).length === 0 ? (
        <p class="muted">No paths in this range.</p>
      ) : (
        <Flow title="Paths" edges={r as { source: string; target: string; value: number }[]} />
      );
  }
}

export function Insights() {
  const { team } = useSession();
  const testFilters = Array.isArray(team.test_account_filters) ? team.test_account_filters.length : 0;
  // New insights start with the project's default for the test-account toggle.
  const [form, setForm] = useState<InsightForm>(() => ({
    ...DEFAULT_FORM,
    filterTestAccounts: testFilters > 0 && team.test_account_filters_default_checked === true,
  }));
  const [result, setResult] = useState<{ kind: Kind; data: { results: unknown[] } } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const [running, setRunning] = useState(false);
  const [saved, setSaved] = useState<{ id: number; short_id: string; name: string } | null>(null);
  // Both lists only add to the page (saving to a dashboard, reopening a saved insight): without them
  // it still runs queries, so their errors are not shown.
  const saves = useList<SavedInsight>(`/api/projects/${team.id}/insights/?saved=true&limit=50`);
  const savedList = saves.list ?? [];
  const loadSaved = saves.reload;
  const dashboards =
    useList<{ id: number; name: string | null }>(`/api/projects/${team.id}/dashboards/?limit=100`).list ?? [];
  const [added, setAdded] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const cancel = () => {
    abort.current?.abort();
    setRunning(false);
  };
  const events = useHogQL(
    team.id,
    `SELECT event, count() AS c FROM events WHERE timestamp >= now() - INTERVAL 30 DAY GROUP BY event ORDER BY c DESC LIMIT 300`,
  );
  const eventNames = (events.data?.results ?? []).map((r) => String(r[0]));

  // The answer follows the form: every change (and a retry) runs the form's query once, and the
  // cleanup cancels the run it replaces. Starting runs from event handlers instead raced the
  // mount's first run: under load that effect fired after a quick first edit and ran the stale
  // form over it.
  const [attempt, setAttempt] = useState(0);
  const query = toQuery(form);
  const queryKey = JSON.stringify(query);
  useEffect(() => {
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    setError(null);
    setProgress(null);
    runQuery<{ results: unknown[] }>(team.id, query, { signal: controller.signal, onProgress: setProgress })
      .then(
        (data) => setResult({ kind: form.kind, data }),
        (e) => (e as Error).name !== 'AbortError' && setError(e),
      )
      .finally(() => !controller.signal.aborted && setRunning(false));
    return () => controller.abort();
  }, [team.id, queryKey, attempt]);

  const update = (patch: Partial<InsightForm>) => {
    const next = { ...form, ...patch };
    if (next.kind === 'Funnels' && next.series.length < 2)
      next.series = [...next.series, { event: next.series[0]?.event ?? '$pageview', math: 'total' }];
    setForm(next);
    setSaved(null);
  };
  const setSeries = (i: number, patch: Partial<InsightForm['series'][number]>) =>
    update({ series: form.series.map((s, j) => (j === i ? { ...s, ...patch } : s)) });

  const addToDashboard = async (dashboardId: number) => {
    if (!saved) return;
    try {
      await api('PATCH', `/api/projects/${team.id}/insights/${saved.id}/`, { dashboards: [dashboardId] });
      setAdded(dashboards.find((d) => d.id === dashboardId)?.name ?? 'the dashboard');
    } catch (e) {
      setError(e);
    }
  };
  const open = (insight: SavedInsight) => {
    const next = fromQuery(insight.query);
    if (!next)
      return setError(
        new Error(`"${insight.name}" is not a kind this form builds; open it through a dashboard.`),
      );
    setForm(next);
    setSaved(null);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '');
    try {
      const insight = await api<{ id: number; short_id: string; name: string }>(
        'POST',
        `/api/projects/${team.id}/insights/`,
        {
          name,
          query: { kind: 'InsightVizNode', source: toQuery(form) },
          saved: true,
        },
      );
      setSaved(insight);
      setAdded(null);
      void loadSaved();
    } catch (e) {
      setError(e);
    }
  };

  const seriesLabel =
    form.kind === 'Funnels'
      ? 'Step'
      : form.kind === 'Retention'
        ? ['Started with', 'Came back for']
        : 'Series';
  const showSeries = form.kind !== 'Paths';
  const maxSeries = form.kind === 'Lifecycle' ? 1 : form.kind === 'Retention' ? 2 : 10;
  return (
    <div class="page">
      <h1>Insights</h1>
      <div class="tabs" role="tablist" aria-label="Insight type">
        {KINDS.map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={form.kind === k}
            onClick={() => update({ kind: k })}
          >
            {k}
          </button>
        ))}
      </div>
      <section class="card">
        <datalist id="event-names">
          {eventNames.map((e) => (
            <option key={e} value={e} />
          ))}
        </datalist>
        {showSeries && (
          <fieldset class="series">
            <legend class="sr-only">Series</legend>
            {form.series.slice(0, maxSeries).map((s, i) => (
              <div class="row wrap" key={i}>
                <label>
                  {Array.isArray(seriesLabel) ? seriesLabel[i] : `${seriesLabel} ${i + 1}`}
                  <DraftInput
                    list="event-names"
                    value={s.event}
                    placeholder="All events"
                    onCommit={(event) => setSeries(i, { event })}
                  />
                </label>
                {form.kind === 'Trends' && (
                  <label>
                    Measure
                    <select
                      value={s.math}
                      onChange={(e) =>
                        setSeries(i, {
                          math: (e.currentTarget as HTMLSelectElement).value as keyof typeof MATHS,
                        })
                      }
                    >
                      {Object.entries(MATHS).map(([v, l]) => (
                        <option key={v} value={v}>
                          {l}
                        </option>
                      ))}
                    </select>
                  </label>
                )}
                {Math.min(form.series.length, maxSeries) > (form.kind === 'Funnels' ? 2 : 1) && (
                  <button
                    type="button"
                    class="link"
                    aria-label={`Remove ${i + 1}`}
                    onClick={() => update({ series: form.series.filter((_, j) => j !== i) })}
                  >
                    Remove
                  </button>
                )}
              </div>
            ))}
            {form.series.length < maxSeries && (
              <button
                type="button"
                class="link"
                onClick={() => update({ series: [...form.series, { event: '$pageview', math: 'total' }] })}
              >
                + Add {form.kind === 'Funnels' ? 'step' : 'series'}
              </button>
            )}
          </fieldset>
        )}
        <div class="row wrap">
          <label>
            Date range
            <select
              value={form.dateFrom}
              onChange={(e) =>
                update({ dateFrom: (e.currentTarget as HTMLSelectElement).value as InsightForm['dateFrom'] })
              }
            >
              {Object.entries(RANGES).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          {form.kind !== 'Funnels' && form.kind !== 'Paths' && (
            <label>
              {form.kind === 'Retention' ? 'Period' : 'Interval'}
              <select
                value={form.interval}
                onChange={(e) =>
                  update({
                    interval: (e.currentTarget as HTMLSelectElement).value as InsightForm['interval'],
                  })
                }
              >
                {INTERVALS.map((i) => (
                  <option key={i} value={i}>
                    {i}
                  </option>
                ))}
              </select>
            </label>
          )}
          {(form.kind === 'Trends' || form.kind === 'Funnels') && (
            <label>
              Breakdown by event property
              <DraftInput
                value={form.breakdown}
                placeholder="e.g. $browser"
                onCommit={(breakdown) => update({ breakdown: breakdown.trim() })}
              />
            </label>
          )}
        </div>
        <div class="row wrap">
          <label class="check">
            <input
              type="checkbox"
              checked={form.filterTestAccounts === true}
              disabled={testFilters === 0 && form.filterTestAccounts !== true}
              aria-describedby="test-accounts-hint"
              onChange={(e) => update({ filterTestAccounts: (e.currentTarget as HTMLInputElement).checked })}
            />{' '}
            Filter out test accounts
          </label>
          <span id="test-accounts-hint" class="muted small">
            {testFilters > 0 ? (
              <>
                {testFilters} {testFilters === 1 ? 'filter' : 'filters'} from{' '}
                <a href="/settings/project#test-accounts">the project's settings</a>
              </>
            ) : (
              <>
                No test account filters yet: <a href="/settings/project#test-accounts">set them</a>
              </>
            )}
          </span>
        </div>
      </section>
      <section class="card" aria-busy={running}>
        {running && (
          <p class="muted" role="status">
            Calculating…{progress?.rowsRead ? ` ${progress.rowsRead.toLocaleString()} rows read` : ''}{' '}
            <button type="button" class="link" onClick={cancel}>
              Cancel
            </button>
          </p>
        )}
        {error !== null && <ErrorNote error={error} retry={() => setAttempt((n) => n + 1)} />}
        {result && result.kind === form.kind && <ResultView kind={result.kind} result={result.data} />}
        {result && (
          <form class="row wrap" onSubmit={save}>
            <label>
              Name
              <input
                name="name"
                required
                maxLength={400}
                placeholder={`${form.kind} of ${form.series[0]?.event || 'all events'}`}
              />
            </label>
            <button type="submit">Save insight</button>
            {saved && (
              <span role="status">
                Saved as “{saved.name}” ({saved.short_id})
              </span>
            )}
            {saved && dashboards.length > 0 && (
              <label>
                Add to dashboard
                <select
                  value=""
                  onChange={(e) => addToDashboard(Number((e.currentTarget as HTMLSelectElement).value))}
                >
                  <option value="">Choose…</option>
                  {dashboards.map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.name || `Dashboard ${d.id}`}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {added && <span role="status">Added to {added}.</span>}
          </form>
        )}
      </section>
      {savedList.length > 0 && (
        <section class="card">
          <h2>Saved insights</h2>
          <ul class="saved-list">
            {savedList.map((i) => (
              <li key={i.id}>
                <button type="button" class="link" onClick={() => open(i)}>
                  {i.name || i.short_id}
                </button>{' '}
                <span class="muted small">{kindOf(i.query) ?? 'query'}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

export interface SavedInsight {
  id: number;
  short_id: string;
  name: string;
  query: Record<string, unknown>;
  result?: unknown;
  last_refresh?: string | null;
}

export const isMissingResource = (e: unknown) => e instanceof ApiFailure && e.status === 404;
