import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, get } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { ListTable } from '../../components/list-table';
import { useList, useResource } from '../../components/use-resource';
import { useSession } from '../../session';
import { DeliveryCounts, Logs, useTick } from './activity';
import { DestinationForm } from './form';
import type { HogFunction, Template } from './types';

const templatesUrl = (projectId: number) => `/api/projects/${projectId}/hog_function_templates/?limit=100`;

/** The enabled switch: a checkbox a screen reader announces as a switch, saved at once. */
function EnabledSwitch({ fn, onChanged }: { fn: HogFunction; onChanged: (f: HogFunction) => void }) {
  const { team } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toggle = async (enabled: boolean) => {
    setBusy(true);
    setError(null);
    try {
      onChanged(
        await api<HogFunction>('PATCH', `/api/projects/${team.id}/hog_functions/${fn.id}/`, { enabled }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <label class="check switch">
        <input
          type="checkbox"
          role="switch"
          class="switch-input"
          aria-checked={fn.enabled}
          checked={fn.enabled}
          disabled={busy}
          aria-label={`Enabled: ${fn.name}`}
          onChange={(e) => toggle(e.currentTarget.checked)}
        />
        <span aria-hidden="true">{fn.enabled ? 'On' : 'Off'}</span>
      </label>
      {error !== null && <ErrorNote error={error} />}
    </>
  );
}

/** A row's delivery counts over the last 7 days (`metrics/totals/`). */
function Totals({ fn }: { fn: HogFunction }) {
  const { team } = useSession();
  const [totals, setTotals] = useState<Record<string, number> | null>(null);
  useEffect(() => {
    get<{ totals: Record<string, number> }>(
      `/api/projects/${team.id}/hog_functions/${fn.id}/metrics/totals/?breakdown_by=name&after=-7d`,
    ).then(
      (r) => setTotals(r.totals),
      () => setTotals(null),
    );
  }, [team.id, fn.id, fn.updated_at]);
  if (!totals) return <span class="muted">–</span>;
  return (
    <span>
      {totals.succeeded ?? 0} succeeded
      {(totals.failed ?? 0) > 0 ? <span class="danger">, {totals.failed} failed</span> : ', 0 failed'}
    </span>
  );
}

/** Destinations: the project's realtime destinations with their template, switch and delivery counts. */
export function DestinationsPage() {
  const { team } = useSession();
  const { list, error } = useList<HogFunction>(
    `/api/projects/${team.id}/hog_functions/?type=destination&limit=200`,
  );
  const { list: templates } = useList<Template>(templatesUrl(team.id));
  const [changed, setChanged] = useState<Record<string, HogFunction>>({});
  const templateName = (id: string | null) => templates?.find((t) => t.id === id)?.name ?? id ?? '–';
  const rows = list?.map((f) => changed[f.id] ?? f) ?? null;
  return (
    <div class="page">
      <div class="row wrap" style={{ justifyContent: 'space-between' }}>
        <h1>Destinations</h1>
        <a class="button primary" href="/destinations/new">
          New destination
        </a>
      </div>
      <p class="muted">
        Each matching event is sent within seconds to a webhook, Slack, Discord or Microsoft Teams (
        <a href="https://posthog.com/docs/cdp/destinations">hog functions</a> in PostHog's API).
      </p>
      <section class="card table-scroll">
        <ListTable
          items={rows}
          error={error}
          loading={<div class="skeleton" style={{ height: '120px' }} />}
          empty="No destinations yet. A destination sends matching events to another tool as they arrive."
          columns={['Name', 'Template', 'Enabled', 'Deliveries (7 days)']}
          rowKey={(f) => f.id}
          tableClass="events stack"
          cells={(f) => (
            <>
              <td>
                <a href={`/destinations/${f.id}`}>{f.name}</a>
              </td>
              <td data-label="Template">{templateName(f.template_id)}</td>
              <td data-label="Enabled">
                <EnabledSwitch fn={f} onChanged={(n) => setChanged({ ...changed, [n.id]: n })} />
              </td>
              <td data-label="Deliveries (7 days)">
                <Totals fn={f} />
              </td>
            </>
          )}
        />
      </section>
    </div>
  );
}

/** A new destination: pick a template, then fill its form. */
function NewDestination() {
  const { team } = useSession();
  const { query, route } = useLocation();
  const { list: templates, error } = useList<Template>(templatesUrl(team.id));
  const template = templates?.find((t) => t.id === query.template);
  return (
    <div class="page">
      <p class="small">
        <a href="/destinations">Destinations</a>
      </p>
      <h1>{template ? `New ${template.name} destination` : 'New destination'}</h1>
      {error !== null && <ErrorNote error={error} />}
      {!templates && !error && <div class="loading" aria-busy="true" />}
      {templates && !template && (
        <section aria-labelledby="templates-heading">
          <h2 id="templates-heading">Pick a template</h2>
          <ul class="template-list">
            {templates.map((t) => (
              <li key={t.id} class="card">
                <h3>{t.name}</h3>
                <p class="muted small">{t.description}</p>
                <button
                  type="button"
                  aria-label={`Use ${t.name}`}
                  onClick={() => route(`/destinations/new?template=${t.id}`)}
                >
                  Use
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {template && (
        <>
          <p class="small">
            <a href="/destinations/new">Pick another template</a>
          </p>
          <DestinationForm
            key={template.id}
            template={template}
            onSaved={(f) => route(`/destinations/${f.id}`)}
          />
        </>
      )}
    </div>
  );
}

/** One destination: on/off, its delivery counts by day, its logs, and its settings with the preview. */
function SavedDestination({ id }: { id: string }) {
  const { team } = useSession();
  const { route } = useLocation();
  const base = `/api/projects/${team.id}/hog_functions/${encodeURIComponent(id)}/`;
  const { data: fn, error, setError, reload } = useResource<HogFunction>(base);
  const { list: templates } = useList<Template>(templatesUrl(team.id));
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const tick = useTick();
  if (error && !fn) return <ErrorNote error={error} />;
  if (!fn) return <div class="loading" aria-busy="true" />;
  const template = templates?.find((t) => t.id === fn.template_id);
  const change = async (body: Record<string, unknown>) => {
    setBusy(true);
    try {
      await api('PATCH', base, body);
      await reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete ${fn.name}? It stops sending at once.`)) return;
    try {
      await api('DELETE', base);
      route('/destinations');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <p class="small">
        <a href="/destinations">Destinations</a>
      </p>
      <div class="row wrap" style={{ alignItems: 'center', gap: '0.75rem' }}>
        <h1>{fn.name}</h1>
        <span class={`pill ${fn.enabled ? 'status-running' : 'status-draft'}`}>
          {fn.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </div>
      <p class="muted small">{template?.name ?? fn.template_id}</p>
      {error !== null && <ErrorNote error={error} />}
      <div class="row wrap" style={{ marginBottom: '1rem' }}>
        <button
          type="button"
          class={fn.enabled ? undefined : 'primary'}
          disabled={busy}
          onClick={() => change({ enabled: !fn.enabled })}
        >
          {fn.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          Delete
        </button>
      </div>
      <DeliveryCounts base={base} tick={tick} />
      <Logs base={base} tick={tick} />
      <section class="card" aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        {saved && (
          <p class="status ok" role="status">
            Saved.
          </p>
        )}
        {template ? (
          <DestinationForm
            key={fn.id}
            template={template}
            fn={fn}
            onSaved={() => {
              setSaved(true);
              void reload();
            }}
          />
        ) : (
          <div class="loading" aria-busy="true" />
        )}
      </section>
    </div>
  );
}

export function DestinationPage() {
  const { params } = useRoute();
  return params.id === 'new' ? <NewDestination /> : <SavedDestination id={params.id ?? ''} />;
}
