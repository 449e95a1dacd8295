import { useCallback, useEffect, useState } from 'preact/hooks';
import { runQuery } from '../../api';
import { Chart } from '../../components/chart';
import { ErrorNote } from '../../components/error-note';
import { useSession } from '../../session';
import { IntervalBars } from './interval-bar';
import {
  type Experiment,
  type ExperimentResult,
  type ExposureResult,
  type Metric,
  metricTitle,
} from './types';
import { deltaOf, groupName, meanOf, verdict } from './verdict';

type Refresh = 'blocking' | 'force_blocking';

const pText = (p: number | null | undefined) =>
  p === null || p === undefined ? '–' : p < 0.0001 ? '< 0.0001' : p.toFixed(4);

/** Runs one query node for the experiment; `tick` changes re-run it past the cache. */
function useExperimentQuery<T>(query: object, tick: number) {
  const { team } = useSession();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const key = JSON.stringify(query);
  const run = useCallback(
    async (refresh: Refresh, signal: AbortSignal) => {
      try {
        const r = await runQuery<T>(team.id, query, { refresh, signal });
        setData(r);
        setError(null);
      } catch (e) {
        if ((e as Error).name !== 'AbortError') setError(e);
      }
    },
    [team.id, key],
  );
  useEffect(() => {
    const abort = new AbortController();
    void run(tick > 0 ? 'force_blocking' : 'blocking', abort.signal);
    return () => abort.abort();
  }, [run, tick]);
  return { data, error };
}

/** Exposures per variant: new exposed users per day (the query answers cumulative counts) and totals. */
export function Exposures({ experiment, tick }: { experiment: Experiment; tick: number }) {
  const { data, error } = useExperimentQuery<ExposureResult>(
    { kind: 'ExperimentExposureQuery', experiment_id: experiment.id },
    tick,
  );
  const series = data?.timeseries ?? [];
  const days = series[0]?.days ?? [];
  const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const daily = series.map((s) => ({
    label: s.variant,
    values: s.exposure_counts.map((n, i) => n - (i > 0 ? (s.exposure_counts[i - 1] ?? 0) : 0)),
  }));
  const totals = Object.entries(data?.total_exposures ?? {});
  const all = totals.reduce((a, [, n]) => a + n, 0);
  return (
    <section class="card" aria-labelledby="exposures-heading">
      <h2 id="exposures-heading">Exposures</h2>
      {error !== null && <ErrorNote error={error} />}
      {data === null && error === null && <div class="skeleton" style={{ height: '120px' }} />}
      {data && totals.length === 0 && (
        <p class="muted">
          No exposures yet. A user is exposed when their SDK evaluates the flag{' '}
          <code>{experiment.feature_flag_key}</code> (the <code>$feature_flag_called</code> event).
        </p>
      )}
      {data && totals.length > 0 && (
        <>
          <table class="simple" aria-label="Exposures per variant">
            <thead>
              <tr>
                <th>Variant</th>
                <th>Exposed users</th>
                <th>Share</th>
              </tr>
            </thead>
            <tbody>
              {totals.map(([variant, n]) => (
                <tr key={variant}>
                  <td>{variant === '$multiple' ? 'Several variants (excluded)' : groupName(variant)}</td>
                  <td>{n.toLocaleString()}</td>
                  <td>{all ? `${Math.round((n / all) * 100)}%` : '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Chart title="New exposures per day" x={x} series={daily} kind="bars" wallClock height={180} />
        </>
      )}
    </section>
  );
}

/** One metric's result: per variant its mean, the interval against control, and the verdict. */
export function MetricResult({
  experiment,
  metric,
  tick,
  index,
}: {
  experiment: Experiment;
  metric: Metric;
  tick: number;
  index: number;
}) {
  const { data, error } = useExperimentQuery<ExperimentResult>(
    { kind: 'ExperimentQuery', experiment_id: experiment.id, metric },
    tick,
  );
  const frequentist = experiment.stats_config?.method === 'frequentist';
  const level = frequentist
    ? 1 - (experiment.stats_config?.alpha ?? 0.05)
    : (experiment.stats_config?.ci_level ?? 0.95);
  const lowerIsBetter = metric.goal === 'decrease';
  const funnel = metric.metric_type === 'funnel';
  const headingId = `metric-${index}-heading`;
  const show = (v: number | null) => (v === null ? '–' : funnel ? `${(v * 100).toFixed(1)}%` : v.toFixed(3));
  const deltas = new Map<string, number | null>();
  if (data) for (const r of data.variant_results) deltas.set(r.key, deltaOf(data.baseline, r));
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{metricTitle(metric)}</h2>
      <p class="muted small">
        {frequentist ? 'Frequentist (Welch t-test)' : 'Bayesian'}, {funnel ? 'conversion' : 'mean'} per
        exposed user, change against control.
      </p>
      {error !== null && <ErrorNote error={error} />}
      {data === null && error === null && <div class="skeleton" style={{ height: '80px' }} />}
      {data && (
        <>
          <ul class="verdicts">
            {data.variant_results.map((r) => {
              const text = verdict(data.baseline, r, lowerIsBetter);
              const good = r.significant && (deltas.get(r.key) ?? 0) > 0 !== lowerIsBetter;
              return (
                <li key={r.key} class={`verdict ${r.significant ? (good ? 'good' : 'bad') : 'neutral'}`}>
                  {text}
                </li>
              );
            })}
          </ul>
          <IntervalBars
            results={data.variant_results}
            deltas={deltas}
            lowerIsBetter={lowerIsBetter}
            level={level}
          />
          <div class="table-scroll">
            <table class="simple" aria-label={`${metricTitle(metric)} per variant`}>
              <thead>
                <tr>
                  <th>Variant</th>
                  <th>Users</th>
                  <th>{funnel ? 'Conversion' : 'Mean'}</th>
                  <th>{frequentist ? 'p-value' : 'Chance to win'}</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td>{data.baseline.key}</td>
                  <td>{data.baseline.number_of_samples.toLocaleString()}</td>
                  <td>{show(meanOf(data.baseline))}</td>
                  <td>–</td>
                </tr>
                {data.variant_results.map((r) => (
                  <tr key={r.key}>
                    <td>{groupName(r.key)}</td>
                    <td>{r.number_of_samples.toLocaleString()}</td>
                    <td>{show(meanOf(r))}</td>
                    <td>
                      {frequentist
                        ? pText(r.p_value)
                        : r.chance_to_win === null || r.chance_to_win === undefined
                          ? '–'
                          : `${(r.chance_to_win * 100).toFixed(1)}%`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
