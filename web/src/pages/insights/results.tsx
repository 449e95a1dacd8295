import { useMemo } from 'preact/hooks';
import { Chart } from '../../components/chart';
import { FunnelBreakdown, type FunnelGroupStep } from '../../components/funnel-breakdown';
import { SimpleTable } from '../../components/list-table';
import { Flow, StackedBars } from '../../components/svg-charts';
import type { Kind } from './form';

/** How each insight kind's answer is drawn; dashboards draw their tiles with the same views. */

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
