import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { ListTable } from '../../components/list-table';
import { formatDate } from '../../components/time';
import { useList, useResource } from '../../components/use-resource';
import { useSession } from '../../session';
import { ExperimentForm } from './form';
import { Planner } from './planner';
import { Exposures, MetricResult } from './results';
import { type Experiment, statusOf } from './types';
import { UnseenEvents } from './unseen-events';

/** Experiments: the list (status, flag, dates) and a new experiment's form. */
export function ExperimentsPage() {
  const { team } = useSession();
  const [creating, setCreating] = useState(false);
  const { list, error } = useList<Experiment>(`/api/projects/${team.id}/experiments/?limit=200`);
  const date = (d: string | null) => (d ? formatDate(d, team.timezone) : '–');
  return (
    <div class="page">
      <div class="row wrap" style={{ justifyContent: 'space-between' }}>
        <h1>Experiments</h1>
        <button type="button" class="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New experiment
        </button>
      </div>
      {creating && <ExperimentForm onCancel={() => setCreating(false)} />}
      <section class="card table-scroll">
        <ListTable
          items={list}
          error={error}
          loading={<div class="skeleton" style={{ height: '120px' }} />}
          empty="No experiments yet. An experiment splits users between a flag's variants and compares a metric."
          columns={['Name', 'Status', 'Flag', 'Started', 'Ended']}
          rowKey={(e) => e.id}
          tableClass="events"
          cells={(e) => (
            <>
              <td>
                <a href={`/experiments/${e.id}`}>{e.name}</a>
              </td>
              <td>
                <span class={`pill status-${e.archived ? 'archived' : e.status}`}>{statusOf(e)}</span>
              </td>
              <td>
                <a href={`/feature_flags/${e.feature_flag.id}`}>
                  <code>{e.feature_flag_key}</code>
                </a>
              </td>
              <td>{date(e.start_date)}</td>
              <td>{date(e.end_date)}</td>
            </>
          )}
        />
      </section>
    </div>
  );
}

/**
 * One experiment: launch, stop, reset and archive (PATCHes of its dates, as PostHog's frontend
 * sends them), the planner before launch, exposures and each metric's result after.
 */
export function ExperimentPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const url = `/api/projects/${team.id}/experiments/${encodeURIComponent(params.id ?? '')}/`;
  const { data: experiment, error, setError, reload } = useResource<Experiment>(url);
  const [tick, setTick] = useState(0);
  const [busy, setBusy] = useState(false);
  const change = async (body: Record<string, unknown>) => {
    setBusy(true);
    try {
      await api('PATCH', url, body);
      await reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (error && !experiment) return <ErrorNote error={error} />;
  if (!experiment) return <div class="loading" aria-busy="true" />;
  const e = experiment;
  const now = () => new Date().toISOString();
  const variants = e.parameters.feature_flag_variants ?? [];
  const metrics = [...e.metrics, ...e.metrics_secondary];
  return (
    <div class="page">
      <p class="small">
        <a href="/experiments">Experiments</a>
      </p>
      <div class="row wrap" style={{ alignItems: 'center', gap: '0.75rem' }}>
        <h1>{e.name}</h1>
        <span class={`pill status-${e.archived ? 'archived' : e.status}`}>{statusOf(e)}</span>
      </div>
      {error !== null && <ErrorNote error={error} />}
      <UnseenEvents experiment={e} />
      <section class="card">
        <dl class="facts">
          <dt>Flag</dt>
          <dd>
            <a href={`/feature_flags/${e.feature_flag.id}`}>
              <code>{e.feature_flag_key}</code>
            </a>
          </dd>
          <dt>Variants</dt>
          <dd>{variants.map((v) => `${v.key} ${v.rollout_percentage}%`).join(', ')}</dd>
          <dt>Started</dt>
          <dd>{e.start_date ? formatDate(e.start_date, team.timezone) : 'Not launched'}</dd>
          <dt>Ended</dt>
          <dd>{e.end_date ? formatDate(e.end_date, team.timezone) : '–'}</dd>
        </dl>
        <div class="row wrap">
          {e.status === 'draft' && (
            <button
              type="button"
              class="primary"
              disabled={busy}
              onClick={() => change({ start_date: now() })}
            >
              Launch
            </button>
          )}
          {e.status === 'running' && (
            <button type="button" disabled={busy} onClick={() => change({ end_date: now() })}>
              Stop
            </button>
          )}
          {e.status !== 'draft' && (
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                if (confirm('Reset to draft? Results restart from the next launch.'))
                  void change({ start_date: null, end_date: null });
              }}
            >
              Reset
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => change({ archived: !e.archived })}>
            {e.archived ? 'Unarchive' : 'Archive'}
          </button>
          {e.status !== 'draft' && (
            <button type="button" onClick={() => setTick(tick + 1)}>
              Refresh results
            </button>
          )}
        </div>
      </section>
      {e.status === 'draft' ? (
        <Planner experiment={e} />
      ) : (
        <>
          <Exposures experiment={e} tick={tick} />
          {metrics.length === 0 && (
            <section class="card">
              <p class="muted">This experiment has no metrics: add one through the API (metrics).</p>
            </section>
          )}
          {metrics.map((m, i) => (
            <MetricResult key={m.uuid ?? i} experiment={e} metric={m} tick={tick} index={i} />
          ))}
        </>
      )}
    </div>
  );
}
