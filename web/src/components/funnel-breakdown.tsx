import { useMemo } from 'preact/hooks';
import { COLORS, GroupedBars } from './svg-charts';

/** One step of a funnel as the API answers it; with a breakdown each group repeats the steps. */
export interface FunnelGroupStep {
  name: string;
  custom_name?: string | null;
  count: number;
  order: number;
  breakdown_value?: unknown;
  breakdown?: unknown;
}

// PostHog's placeholders for a missing value and for the values past the breakdown limit.
const PLACEHOLDERS: Record<string, string> = {
  $$_posthog_breakdown_null_$$: 'None',
  $$_posthog_breakdown_other_$$: 'Other',
};

/**
 * A group's name: its breakdown value (`["Chrome"]` or `"Chrome"`), placeholders in words; a
 * cohort's is its name (`breakdown`: "Gold tier", `breakdown_value`: its id).
 */
export function groupLabel(steps: FunnelGroupStep[]): string {
  const first = steps[0];
  const raw =
    typeof first?.breakdown === 'string' ? first.breakdown : (first?.breakdown_value ?? first?.breakdown);
  const parts = (Array.isArray(raw) ? raw : [raw]).map((v) =>
    v === null || v === undefined || v === '' ? 'None' : (PLACEHOLDERS[String(v)] ?? String(v)),
  );
  return parts.join(' · ');
}

const percent = (part: number, whole: number) => (whole ? `${((part / whole) * 100).toFixed(1)}%` : '0%');

/**
 * A funnel broken down by a property: every group side by side at each step (labelled, with a
 * legend giving its conversion), then a table of each group's counts and the total of all groups.
 */
export function FunnelBreakdown({ groups }: { groups: FunnelGroupStep[][] }) {
  const view = useMemo(() => {
    // The biggest groups first, as people scan a legend; the API orders them by value.
    const sorted = groups
      .filter((g) => g.length > 0)
      .map((steps) => ({ label: groupLabel(steps), steps }))
      .sort((a, b) => (b.steps[0]?.count ?? 0) - (a.steps[0]?.count ?? 0));
    const stepNames = (sorted[0]?.steps ?? []).map((s, i) => `${i + 1}. ${s.custom_name || s.name}`);
    const total = stepNames.map((_, k) => sorted.reduce((sum, g) => sum + (g.steps[k]?.count ?? 0), 0));
    return { sorted, stepNames, total };
  }, [groups]);
  const { sorted, stepNames, total } = view;
  if (sorted.length === 0) return <p class="muted">No data for this range.</p>;
  // Cohorts overlap (a person can be in several, and "all users" holds everyone): their sum would
  // count people twice, so cohort funnels show no total.
  const overlapping = typeof sorted[0]?.steps[0]?.breakdown === 'string';
  const last = stepNames.length - 1;
  const series = sorted.map((g) => ({
    label: g.label,
    values: g.steps.map((s) => s.count),
    total: `${percent(g.steps[last]?.count ?? 0, g.steps[0]?.count ?? 0)} converted`,
  }));
  return (
    <div class="funnel-groups">
      <p class="muted small">
        {overlapping ? (
          <>{sorted.length} cohorts (a person can be in several)</>
        ) : (
          <>
            {sorted.length} group{sorted.length === 1 ? '' : 's'} · total {(total[0] ?? 0).toLocaleString()}{' '}
            persons entered, {(total[last] ?? 0).toLocaleString()} ({percent(total[last] ?? 0, total[0] ?? 0)}
            ) completed
          </>
        )}
      </p>
      <GroupedBars
        title="Funnel by breakdown"
        labels={stepNames}
        series={series}
        format={(v, j) => `${v.toLocaleString()} (${percent(v, sorted[j]?.steps[0]?.count ?? 0)} of step 1)`}
      />
      <div class="table-scroll">
        <table class="simple funnel-table">
          <thead>
            <tr>
              <th scope="col">Group</th>
              {stepNames.map((n) => (
                <th key={n} scope="col">
                  {n}
                </th>
              ))}
              <th scope="col">Conversion</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((g, j) => (
              <tr key={g.label}>
                <th scope="row">
                  <i style={{ background: COLORS[j % COLORS.length] }} />
                  {g.label}
                </th>
                {g.steps.map((s) => (
                  <td key={s.order}>{s.count.toLocaleString()}</td>
                ))}
                <td>{percent(g.steps[last]?.count ?? 0, g.steps[0]?.count ?? 0)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot hidden={overlapping}>
            <tr>
              <th scope="row">Total</th>
              {total.map((n, k) => (
                <td key={k}>{n.toLocaleString()}</td>
              ))}
              <td>{percent(total[last] ?? 0, total[0] ?? 0)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  );
}
