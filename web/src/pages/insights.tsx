import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { ApiFailure, api, type RunProgress, runQuery } from '../api';
import { ErrorNote } from '../components/error-note';
import { Freshness, lastRefreshOf, useForcedRefresh } from '../components/freshness';
import { useHogQL } from '../components/use-query';
import { useList, useResource } from '../components/use-resource';
import { useSession } from '../session';
import { InsightEditor, normalise } from './insights/editor';
import {
  DEFAULT_FORM,
  formFromUrl,
  fromQuery,
  type InsightForm,
  type Kind,
  kindOf,
  toQuery,
} from './insights/form';
import { ResultView } from './insights/results';
import { SavedHeader } from './insights/saved-header';

// Other pages draw saved insights with the same pieces.
export { KINDS, type Kind, kindOf } from './insights/form';
export { duration, ResultView, readableLabel } from './insights/results';

export interface SavedInsight {
  id: number;
  short_id: string;
  name: string;
  description?: string | null;
  query: Record<string, unknown>;
  result?: unknown;
  last_refresh?: string | null;
}

export const isMissingResource = (e: unknown) => e instanceof ApiFailure && e.status === 404;

/** The insight a save or a duplicate just made, so its page can say so once. */
let justSaved: { shortId: string; name: string } | null = null;

/**
 * The form's state lives in the address as the query node (`?q=`), replaced rather than pushed so
 * Back leaves the insight instead of stepping through every edit; a reload reopens the form. The
 * router is told (same page, so nothing remounts), and an address this page did not write (a link
 * to the same page followed: the Insights menu item, a saved insight's own link) resets the form.
 */
function useUrlForm(initial: () => InsightForm | null, fallback: () => InsightForm | null) {
  const { query, path, route } = useLocation();
  const [form, setFormState] = useState<InsightForm | null>(() => initial() ?? fallback());
  const written = useRef<string | null>(query.q ?? null);
  useEffect(() => {
    const q = query.q ?? null;
    if (q === written.current) return;
    written.current = q;
    setFormState(formFromUrl(window.location.search) ?? fallback());
  }, [query.q]);
  /** Shows `next`; `inUrl` false leaves `?q=` out (a saved insight as saved). */
  const setForm = (next: InsightForm, inUrl = true) => {
    setFormState(next);
    const q = inUrl ? JSON.stringify(toQuery(next)) : null;
    if (q === written.current) return;
    written.current = q;
    route(q === null ? path : `${path}?q=${encodeURIComponent(q)}`, true);
  };
  return [form, setForm] as const;
}

/** Runs the form's query whenever it changes; the cleanup cancels the run it replaces. */
function useInsightRun(teamId: number, form: InsightForm) {
  const [result, setResult] = useState<{ kind: Kind; data: { results: unknown[] } } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const [running, setRunning] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const abort = useRef<AbortController | null>(null);
  const refresh = useForcedRefresh();
  const query = toQuery(form);
  const queryKey = JSON.stringify(query);
  // Starting runs from event handlers instead raced the mount's first run: under load that effect
  // fired after a quick first edit and ran the stale form over it.
  useEffect(() => {
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    setError(null);
    setProgress(null);
    runQuery<{ results: unknown[] }>(teamId, query, {
      signal: controller.signal,
      onProgress: setProgress,
      refresh: refresh.take(),
    })
      .then(
        (data) => setResult({ kind: form.kind, data }),
        (e) => (e as Error).name !== 'AbortError' && setError(e),
      )
      .finally(() => !controller.signal.aborted && setRunning(false));
    return () => controller.abort();
  }, [teamId, queryKey, attempt, refresh.attempt]);
  return {
    refresh,
    result,
    error,
    setError,
    progress,
    running,
    retry: () => setAttempt((n) => n + 1),
    cancel: () => {
      abort.current?.abort();
      setRunning(false);
    },
  };
}

function useEventNames(teamId: number) {
  const events = useHogQL(
    teamId,
    `SELECT event, count() AS c FROM events WHERE timestamp >= now() - INTERVAL 30 DAY GROUP BY event ORDER BY c DESC LIMIT 300`,
  );
  return (events.data?.results ?? []).map((r) => String(r[0]));
}

function useTeam() {
  const { team } = useSession();
  const testFilters = Array.isArray(team.test_account_filters) ? team.test_account_filters.length : 0;
  return { team, testFilters };
}

/** The editor, the answer and whatever the page adds below the answer (saving, dashboards). */
function Workbench({
  form,
  setForm,
  children,
}: {
  form: InsightForm;
  setForm: (f: InsightForm) => void;
  children?: preact.ComponentChildren;
}) {
  const { team, testFilters } = useTeam();
  const run = useInsightRun(team.id, form);
  const eventNames = useEventNames(team.id);
  return (
    <>
      <InsightEditor
        teamId={team.id}
        form={form}
        onChange={setForm}
        eventNames={eventNames}
        testFilters={testFilters}
      />
      <section class="card" aria-busy={run.running}>
        {run.running && (
          <p class="muted" role="status">
            Calculating…{run.progress?.rowsRead ? ` ${run.progress.rowsRead.toLocaleString()} rows read` : ''}{' '}
            <button type="button" class="link" onClick={run.cancel}>
              Cancel
            </button>
          </p>
        )}
        {run.error !== null && <ErrorNote error={run.error} retry={run.retry} />}
        {run.result && (
          <Freshness
            computedAt={lastRefreshOf(run.result.data)}
            busy={run.running}
            onRefresh={run.refresh.request}
          />
        )}
        {run.result && run.result.kind === form.kind && (
          <ResultView kind={run.result.kind} result={run.result.data} />
        )}
        {children}
      </section>
    </>
  );
}

function SavedList({ teamId, current }: { teamId: number; current?: string }) {
  // Only adds to the page: without it the editor still works, so its error is not shown.
  const list = useList<SavedInsight>(`/api/projects/${teamId}/insights/?saved=true&limit=50`).list ?? [];
  if (list.length === 0) return null;
  return (
    <section class="card">
      <h2>Saved insights</h2>
      <ul class="saved-list">
        {list.map((i) => (
          <li key={i.id}>
            <a href={`/insights/${i.short_id}`} aria-current={i.short_id === current ? 'page' : undefined}>
              {i.name || i.short_id}
            </a>{' '}
            <span class="muted small">{kindOf(i.query) ?? 'query'}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A new insight (`/insights`, `/insights/new`): the form, its answer and a name to save it under. */
export function Insights() {
  const { team, testFilters } = useTeam();
  const { route } = useLocation();
  // New insights start with the project's default for the test-account toggle; a link or a
  // reload brings its own form.
  const [urlForm, setForm] = useUrlForm(
    () => formFromUrl(window.location.search),
    () => ({
      ...DEFAULT_FORM,
      filterTestAccounts: testFilters > 0 && team.test_account_filters_default_checked === true,
    }),
  );
  const form = urlForm ?? DEFAULT_FORM;
  const [error, setError] = useState<unknown>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '');
    try {
      const insight = await api<{ short_id: string; name: string }>(
        'POST',
        `/api/projects/${team.id}/insights/`,
        {
          name,
          query: { kind: 'InsightVizNode', source: toQuery(form) },
          saved: true,
        },
      );
      justSaved = { shortId: insight.short_id, name: insight.name };
      route(`/insights/${insight.short_id}`);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <h1>Insights</h1>
      <Workbench form={form} setForm={setForm}>
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
        </form>
        {error !== null && <ErrorNote error={error} />}
      </Workbench>
      <SavedList teamId={team.id} />
    </div>
  );
}

/** A saved insight (`/insights/{short_id}`): edit, rename, describe, duplicate, delete. */
export function InsightPage() {
  const { params } = useRoute();
  const shortId = params.shortId ?? '';
  const { team } = useTeam();
  const found = useResource<{ results: SavedInsight[] }>(
    `/api/projects/${team.id}/insights/?short_id=${encodeURIComponent(shortId)}`,
  );
  const insight = found.data?.results[0] ?? null;
  if (found.error) return <ErrorNote error={found.error} retry={found.reload} />;
  if (!found.data) return <div class="loading" aria-busy="true" />;
  if (!insight)
    return <ErrorNote error={new ApiFailure(404, { detail: `There is no insight ${shortId}.` })} />;
  return <SavedInsightEditor key={insight.id} insight={insight} reload={found.reload} />;
}

function SavedInsightEditor({ insight, reload }: { insight: SavedInsight; reload: () => Promise<unknown> }) {
  const { team } = useTeam();
  const savedForm = fromQuery(insight.query);
  const savedKey = savedForm ? JSON.stringify(toQuery(savedForm)) : '';
  // What the URL carries wins over the saved query: it is this tab's unsaved editing.
  const [form, setUrlForm] = useUrlForm(
    () => formFromUrl(window.location.search),
    () => (savedForm ? normalise(savedForm) : null),
  );
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState<string | null>(() => {
    const note =
      justSaved?.shortId === insight.short_id ? `Saved as “${justSaved.name}” (${insight.short_id})` : null;
    justSaved = null;
    return note;
  });
  const dirty = form !== null && JSON.stringify(toQuery(form)) !== savedKey;
  const setForm = (next: InsightForm) => {
    setStatus(null);
    setUrlForm(next, JSON.stringify(toQuery(next)) !== savedKey);
  };
  const patch = async (body: Record<string, unknown>, done: string) => {
    try {
      await api('PATCH', `/api/projects/${team.id}/insights/${insight.id}/`, body);
      setError(null);
      setStatus(done);
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <SavedHeader insight={insight} onPatch={patch} onError={setError} form={form} />
      {error !== null && <ErrorNote error={error} />}
      {form ? (
        <Workbench form={form} setForm={setForm}>
          <div class="row wrap">
            {dirty && (
              <>
                <span class="muted">Unsaved changes</span>
                <button
                  type="button"
                  class="primary"
                  onClick={() =>
                    patch(
                      { query: { kind: 'InsightVizNode', source: toQuery(form) } },
                      'Changes saved.',
                    ).then(() => setUrlForm(form, false))
                  }
                >
                  Save changes
                </button>
                <button
                  type="button"
                  onClick={() => {
                    if (savedForm) setForm(normalise(savedForm));
                  }}
                >
                  Discard changes
                </button>
              </>
            )}
            {status && <span role="status">{status}</span>}
            <AddToDashboard teamId={team.id} insightId={insight.id} onError={setError} />
          </div>
        </Workbench>
      ) : (
        <p class="muted">
          This insight is a {kindOf(insight.query) ?? 'query'} the form does not edit; open it on a dashboard
          or in SQL.
        </p>
      )}
      <SavedList teamId={team.id} current={insight.short_id} />
    </div>
  );
}

function AddToDashboard({
  teamId,
  insightId,
  onError,
}: {
  teamId: number;
  insightId: number;
  onError: (e: unknown) => void;
}) {
  const dashboards =
    useList<{ id: number; name: string | null }>(`/api/projects/${teamId}/dashboards/?limit=100`).list ?? [];
  const [added, setAdded] = useState<string | null>(null);
  if (dashboards.length === 0) return null;
  const add = async (dashboardId: number) => {
    try {
      await api('PATCH', `/api/projects/${teamId}/insights/${insightId}/`, { dashboards: [dashboardId] });
      setAdded(dashboards.find((d) => d.id === dashboardId)?.name ?? 'the dashboard');
    } catch (e) {
      onError(e);
    }
  };
  return (
    <>
      <label>
        Add to dashboard
        <select value="" onChange={(e) => add(Number((e.currentTarget as HTMLSelectElement).value))}>
          <option value="">Choose…</option>
          {dashboards.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name || `Dashboard ${d.id}`}
            </option>
          ))}
        </select>
      </label>
      {added && <span role="status">Added to {added}.</span>}
    </>
  );
}
