import { useEffect, useState } from 'preact/hooks';
import {
  meanSampleSize,
  proportionSampleSize,
  runningDays,
} from '../../../../src/domain/experiments/stats/sample-size';
import { hogql } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { useSession } from '../../session';
import { type Experiment, metricEvents, metricTitle } from './types';

const DAYS = 14;
const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

interface Baseline {
  users: number;
  mean: number;
  sd: number;
  converted: number;
}

/**
 * Before launch: how many users the primary metric needs, from its last 14 days. Every person
 * seen in those days is a would-be participant; their count of the metric's event (a funnel: its
 * last step) gives the baseline rate or mean, and people per day give the running time.
 */
export function Planner({ experiment }: { experiment: Experiment }) {
  const { team } = useSession();
  const metric = experiment.metrics[0];
  const [mde, setMde] = useState(10);
  const [base, setBase] = useState<Baseline | null>(null);
  const [error, setError] = useState<unknown>(null);
  const events = metric ? metricEvents(metric) : [];
  const event = metric?.metric_type === 'funnel' ? metric.series?.at(-1)?.event : metric?.source?.event;
  useEffect(() => {
    if (!metric || metric.metric_type === 'ratio') return;
    const match = event ? `event = ${quote(event)}` : '1';
    hogql(
      team.id,
      `SELECT count() AS users, avg(c) AS mean, avg(c * c) AS squares, countIf(c > 0) AS converted
       FROM (SELECT person_id, countIf(${match}) AS c FROM events
             WHERE timestamp >= now() - INTERVAL ${DAYS} DAY GROUP BY person_id)`,
    ).then((r) => {
      const [users, mean, squares, converted] = (r.results[0] ?? []).map(Number) as number[];
      const n = users ?? 0;
      const m = mean ?? 0;
      const variance = n > 1 ? (((squares ?? 0) - m * m) * n) / (n - 1) : 0;
      setBase({ users: n, mean: m, sd: Math.sqrt(Math.max(0, variance)), converted: converted ?? 0 });
    }, setError);
  }, [team.id, event, metric?.metric_type]);
  if (!metric)
    return (
      <section class="card">
        <h2>Sample size</h2>
        <p class="muted">Add a primary metric to see how many users the experiment needs.</p>
      </section>
    );
  const variants = experiment.parameters.feature_flag_variants?.length ?? 2;
  const funnel = metric.metric_type === 'funnel';
  const rate = base?.users ? base.converted / base.users : 0;
  const perVariant = base?.users
    ? funnel
      ? proportionSampleSize(rate, mde / 100)
      : meanSampleSize(base.mean, base.sd, mde / 100)
    : null;
  const days = perVariant ? runningDays(perVariant, variants, (base?.users ?? 0) / DAYS) : null;
  return (
    <section class="card" aria-labelledby="planner-heading">
      <h2 id="planner-heading">Sample size</h2>
      <p class="muted small">
        For {metricTitle(metric)}: a two-sided test at significance 0.05 with 80% power, baseline from the
        last {DAYS} days of <code>{events.at(-1)}</code>.
      </p>
      {metric.metric_type === 'ratio' && <p class="muted">Ratio metrics have no planner yet.</p>}
      {error !== null && <ErrorNote error={error} />}
      <label class="narrow-field">
        Minimum detectable effect (%){' '}
        <input
          type="number"
          min={1}
          max={500}
          step={1}
          value={mde}
          onInput={(e) => {
            const v = Number(e.currentTarget.value);
            if (v > 0) setMde(v);
          }}
        />
      </label>
      {base && (
        <dl class="facts">
          <dt>Baseline</dt>
          <dd>
            {funnel
              ? `${(rate * 100).toFixed(2)}% of ${base.users.toLocaleString()} users converted`
              : `${base.mean.toFixed(3)} per user (sd ${base.sd.toFixed(3)}) over ${base.users.toLocaleString()} users`}
          </dd>
          <dt>Recommended sample size</dt>
          <dd>
            {perVariant
              ? `${perVariant.toLocaleString()} users per variant (${(perVariant * variants).toLocaleString()} in all)`
              : 'Not enough data in the last 14 days to say'}
          </dd>
          <dt>Running time</dt>
          <dd>{days ? `about ${days.toLocaleString()} day${days === 1 ? '' : 's'}` : '–'}</dd>
        </dl>
      )}
    </section>
  );
}
