import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, get } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { useSession } from '../../session';
import type { Experiment, Metric, Variant } from './types';

interface Flag {
  id: number;
  key: string;
  filters: { multivariate?: { variants?: Variant[] } | null };
  deleted?: boolean;
}

const DEFAULT_VARIANTS: Variant[] = [
  { key: 'control', rollout_percentage: 50 },
  { key: 'test', rollout_percentage: 50 },
];

/** Flags an experiment can run on: multivariate, with a `control` (the API's rule). */
const eligible = (f: Flag) =>
  !f.deleted && (f.filters.multivariate?.variants ?? []).some((v) => v.key === 'control');

/**
 * A new experiment: its name, a new flag (variants and their split, which must sum to 100) or an
 * existing multivariate flag, and a primary metric: the mean of an event per user, or a funnel.
 */
export function ExperimentForm({ onCancel }: { onCancel: () => void }) {
  const { team } = useSession();
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [source, setSource] = useState<'new' | 'existing'>('new');
  const [flagKey, setFlagKey] = useState('');
  const [existing, setExisting] = useState('');
  const [flags, setFlags] = useState<Flag[]>([]);
  const [variants, setVariants] = useState<Variant[]>(DEFAULT_VARIANTS);
  const [metricType, setMetricType] = useState<'mean' | 'funnel'>('funnel');
  const [steps, setSteps] = useState<string[]>(['']);
  const [method, setMethod] = useState<'bayesian' | 'frequentist'>('bayesian');
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    get<{ results: Flag[] }>(`/api/projects/${team.id}/feature_flags/?limit=500`).then(
      (r) => setFlags(r.results.filter(eligible)),
      () => setFlags([]),
    );
  }, [team.id]);
  const sum = variants.reduce(
    (s, v) => s + (Number.isFinite(v.rollout_percentage) ? v.rollout_percentage : 0),
    0,
  );
  const splitOk = source === 'existing' || sum === 100;
  const setVariant = (i: number, patch: Partial<Variant>) =>
    setVariants(variants.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const evenSplit = (n: number) => {
    const each = Math.floor(100 / n);
    return Array.from({ length: n }, (_, i) => (i === 0 ? 100 - each * (n - 1) : each));
  };
  const addVariant = () => {
    const next = [...variants, { key: `test_${variants.length}`, rollout_percentage: 0 }];
    const split = evenSplit(next.length);
    setVariants(next.map((v, i) => ({ ...v, rollout_percentage: split[i] ?? 0 })));
  };
  const removeVariant = (i: number) => {
    const next = variants.filter((_, j) => j !== i);
    const split = evenSplit(next.length);
    setVariants(next.map((v, k) => ({ ...v, rollout_percentage: split[k] ?? 0 })));
  };
  const metric = (): Metric => {
    const events = steps.map((s) => s.trim()).filter(Boolean);
    return metricType === 'mean'
      ? {
          kind: 'ExperimentMetric',
          metric_type: 'mean',
          source: { kind: 'EventsNode', event: events[0] ?? null, math: 'total' },
        }
      : {
          kind: 'ExperimentMetric',
          metric_type: 'funnel',
          series: events.map((event) => ({ kind: 'EventsNode', event })),
        };
  };
  const save = async (e: Event) => {
    e.preventDefault();
    if (!splitOk) return;
    setError(null);
    setSaving(true);
    try {
      const created = await api<Experiment>('POST', `/api/projects/${team.id}/experiments/`, {
        name,
        feature_flag_key: source === 'new' ? flagKey : existing,
        ...(source === 'new' ? { parameters: { feature_flag_variants: variants } } : {}),
        metrics: [metric()],
        stats_config: { method },
      });
      route(`/experiments/${created.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <section class="card form" aria-label="New experiment">
      <form onSubmit={save}>
        <div class="row wrap">
          <label>
            Name{' '}
            <input required maxLength={400} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Statistics{' '}
            <select value={method} onChange={(e) => setMethod(e.currentTarget.value as typeof method)}>
              <option value="bayesian">Bayesian (chance to win)</option>
              <option value="frequentist">Frequentist (p-value)</option>
            </select>
          </label>
        </div>
        <fieldset class="card">
          <legend>Feature flag</legend>
          <div class="row wrap" role="radiogroup" aria-label="Feature flag">
            <label class="check">
              <input
                type="radio"
                name="flag-source"
                checked={source === 'new'}
                onChange={() => setSource('new')}
              />{' '}
              New flag
            </label>
            <label class="check">
              <input
                type="radio"
                name="flag-source"
                checked={source === 'existing'}
                onChange={() => setSource('existing')}
              />{' '}
              Existing flag
            </label>
          </div>
          {source === 'existing' ? (
            <label>
              Flag{' '}
              <select required value={existing} onChange={(e) => setExisting(e.currentTarget.value)}>
                <option value="">Choose a multivariate flag with a control</option>
                {flags.map((f) => (
                  <option key={f.id} value={f.key}>
                    {f.key}
                  </option>
                ))}
              </select>
              {flags.length === 0 && (
                <span class="muted small"> No multivariate flag has a control variant.</span>
              )}
            </label>
          ) : (
            <>
              <label>
                Flag key{' '}
                <input
                  required
                  maxLength={400}
                  pattern="[A-Za-z0-9_\-]+"
                  title="Letters, digits, _ and -"
                  value={flagKey}
                  onInput={(e) => setFlagKey(e.currentTarget.value)}
                />
              </label>
              {variants.map((v, i) => (
                <div class="row wrap" key={i}>
                  <label>
                    Variant {i + 1} key{' '}
                    <input
                      required
                      readOnly={i === 0}
                      pattern="[A-Za-z0-9_\-]+"
                      value={v.key}
                      onInput={(e) => setVariant(i, { key: e.currentTarget.value })}
                    />
                  </label>
                  <label>
                    Variant {i + 1} split (%){' '}
                    <input
                      required
                      type="number"
                      min={0}
                      max={100}
                      step={1}
                      value={v.rollout_percentage}
                      onInput={(e) => setVariant(i, { rollout_percentage: Number(e.currentTarget.value) })}
                    />
                  </label>
                  {i > 1 && (
                    <button type="button" class="link" onClick={() => removeVariant(i)}>
                      Remove variant {i + 1}
                    </button>
                  )}
                </div>
              ))}
              <div class="row wrap">
                <button type="button" onClick={addVariant} disabled={variants.length >= 20}>
                  Add variant
                </button>
                <span class={sum === 100 ? 'muted small' : 'danger small'} aria-live="polite">
                  {sum === 100 ? 'Split sums to 100%.' : `Split sums to ${sum}%: it must sum to 100%.`}
                </span>
              </div>
            </>
          )}
        </fieldset>
        <fieldset class="card">
          <legend>Primary metric</legend>
          <label>
            Metric type{' '}
            <select
              value={metricType}
              onChange={(e) => {
                const t = e.currentTarget.value as typeof metricType;
                setMetricType(t);
                if (t === 'mean') setSteps(steps.slice(0, 1));
              }}
            >
              <option value="funnel">Funnel (conversion through steps)</option>
              <option value="mean">Mean (count of an event per user)</option>
            </select>
          </label>
          {steps.map((s, i) => (
            <div class="row wrap" key={i}>
              <label>
                {metricType === 'mean' ? 'Event' : `Step ${i + 1} event`}{' '}
                <input
                  required
                  maxLength={400}
                  value={s}
                  onInput={(e) => setSteps(steps.map((x, j) => (j === i ? e.currentTarget.value : x)))}
                />
              </label>
              {metricType === 'funnel' && steps.length > 1 && (
                <button type="button" class="link" onClick={() => setSteps(steps.filter((_, j) => j !== i))}>
                  Remove step {i + 1}
                </button>
              )}
            </div>
          ))}
          {metricType === 'funnel' && steps.length < 20 && (
            <div class="row">
              <button type="button" onClick={() => setSteps([...steps, ''])}>
                Add step
              </button>
            </div>
          )}
        </fieldset>
        {error !== null && <ErrorNote error={error} />}
        <div class="row wrap">
          <button type="submit" class="primary" disabled={saving || !splitOk}>
            Save draft
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
