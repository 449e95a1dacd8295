import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { lazy } from 'preact-iso';
import { ApiFailure, api, type HogQLResult, runQuery } from '../api';
import { Chart } from '../components/chart';
import { DataTable } from '../components/data-table';
import { ErrorNote } from '../components/error-note';
import type { EditorHandle, QueryNotice, Vocabulary } from '../components/sql-editor';
import { useSession } from '../session';

// CodeMirror is the largest piece of the console: it loads when this page opens.
const SqlEditor = lazy(() => import('../components/sql-editor').then((m) => m.SqlEditor));

const STORAGE_KEY = 'burrow.sql.last';
const DEFAULT_QUERY = `SELECT event, count() AS total
FROM events
WHERE timestamp >= now() - INTERVAL 7 DAY
GROUP BY event
ORDER BY total DESC
LIMIT 100`;

const TABLES: Record<string, string[]> = {
  events: [
    'uuid',
    'event',
    'timestamp',
    'distinct_id',
    'person_id',
    'properties',
    'elements_chain',
    '$session_id',
    'person',
  ],
  persons: ['id', 'created_at', 'properties', 'is_identified'],
  sessions: [
    'session_id',
    '$start_timestamp',
    '$end_timestamp',
    '$session_duration',
    '$pageview_count',
    '$entry_current_url',
  ],
  person_distinct_ids: ['distinct_id', 'person_id'],
  groups: ['index', 'key', 'created_at', 'properties'],
};
const FUNCTIONS = [
  'count',
  'countIf',
  'uniq',
  'uniqIf',
  'sum',
  'avg',
  'min',
  'max',
  'quantile',
  'median',
  'toStartOfDay',
  'toStartOfHour',
  'toStartOfWeek',
  'toStartOfMonth',
  'toDate',
  'toDateTime',
  'now',
  'today',
  'dateDiff',
  'if',
  'multiIf',
  'coalesce',
  'lower',
  'upper',
  'length',
  'concat',
  'splitByChar',
  'extract',
  'round',
  'toString',
  'toInt',
  'toFloat',
  'arrayJoin',
  'groupArray',
  'argMax',
  'argMin',
  'formatDateTime',
];

interface Metadata {
  isValid: boolean;
  errors: QueryNotice[];
}

type Phase = { kind: 'idle' } | { kind: 'running'; rows: number } | { kind: 'done'; ms: number };

/**
 * A HogQL date or datetime as the project's wall clock, in seconds of a UTC axis. HogQL prints
 * times in the project's zone (`2026-11-26T00:00:00+14:00`); drawn as instants they would move to
 * the browser's zone, so the offset is dropped and the chart draws the axis in UTC (`wallClock`).
 */
function wallSeconds(value: string): number {
  const time = value.length > 10 ? value.slice(11, 19).padEnd(8, ':00') : '00:00:00';
  const wall = Date.parse(`${value.slice(0, 10)}T${time}Z`);
  return (Number.isNaN(wall) ? Date.parse(value) : wall) / 1000;
}

/** Numeric columns after the first become series; the first column is the axis. */
function chartOf(result: HogQLResult) {
  if (result.results.length === 0 || result.columns.length < 2) return null;
  const numeric = result.columns
    .map((name, i) => ({ name, i }))
    .slice(1)
    .filter(({ i }) =>
      result.results.every((r) => r[i] === null || typeof r[i] === 'number' || !Number.isNaN(Number(r[i]))),
    );
  if (numeric.length === 0) return null;
  const first = result.results.map((r) => r[0]);
  const isTime = first.every(
    (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && /^\d{4}-\d\d-\d\d/.test(v),
  );
  const rows = result.results.slice(0, 5000);
  return {
    x: isTime ? rows.map((r) => wallSeconds(String(r[0]))) : rows.map((_, i) => i),
    wallClock: isTime,
    labels: isTime ? undefined : rows.map((r) => String(r[0])),
    series: numeric.slice(0, 8).map(({ name, i }) => ({
      label: name,
      values: rows.map((r) => (r[i] === null ? null : Number(r[i]))),
    })),
    kind: isTime ? ('line' as const) : ('bars' as const),
  };
}

export function Sql() {
  const { team } = useSession();
  const base = `/api/environments/${team.id}/query`;
  const editor = useRef<EditorHandle | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [result, setResult] = useState<HogQLResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Where a failed run's error is in the query, as text beside the underline.
  const [errorAt, setErrorAt] = useState<{ line: number; column: number } | null>(null);
  // The latest check while typing: its first error is shown under the editor.
  const [typing, setTyping] = useState<QueryNotice | null>(null);
  const [view, setView] = useState<'table' | 'chart'>('table');
  const vocabulary = useRef<Vocabulary>({
    tables: TABLES,
    functions: FUNCTIONS,
    eventNames: [],
    propertyNames: [],
  });
  const abort = useRef<AbortController | null>(null);

  // Event and property names for autocomplete come from the data itself.
  useEffect(() => {
    api<HogQLResult>('POST', `${base}/`, {
      query: {
        kind: 'HogQLQuery',
        query: `SELECT event, count() AS c FROM events WHERE timestamp >= now() - INTERVAL 30 DAY GROUP BY event ORDER BY c DESC LIMIT 200`,
      },
    })
      .then((r) => {
        vocabulary.current.eventNames = r.results.map((row) => String(row[0]));
      })
      .catch(() => undefined);
    api<HogQLResult>('POST', `${base}/`, {
      query: {
        kind: 'HogQLQuery',
        query: `SELECT DISTINCT arrayJoin(JSONExtractKeys(properties)) AS k FROM events WHERE timestamp >= now() - INTERVAL 7 DAY LIMIT 500`,
      },
    })
      .then((r) => {
        vocabulary.current.propertyNames = r.results.map((row) => String(row[0]));
      })
      .catch(() => undefined);
    return () => abort.current?.abort();
  }, [team.id]);

  // PostHog's editor asks HogQLMetadata while the user types: errors come with their span.
  const check = async (query: string): Promise<QueryNotice[]> => {
    if (!query.trim()) {
      setTyping(null);
      return [];
    }
    try {
      const meta = await api<Metadata>('POST', `${base}/`, {
        query: { kind: 'HogQLMetadata', language: 'hogQL', query },
      });
      setTyping(meta.errors[0] ?? null);
      return meta.errors;
    } catch {
      // A failed check is not an error in the query; running it will say what is wrong.
      setTyping(null);
      return [];
    }
  };

  const run = async () => {
    const query = editor.current?.value() ?? '';
    if (!query.trim() || phase.kind === 'running') return;
    localStorage.setItem(STORAGE_KEY, query);
    setError(null);
    setErrorAt(null);
    const controller = new AbortController();
    abort.current = controller;
    const started = performance.now();
    setPhase({ kind: 'running', rows: 0 });
    try {
      const data = await runQuery(
        team.id,
        { kind: 'HogQLQuery', query },
        {
          refresh: 'force_async',
          signal: controller.signal,
          onProgress: (p) => setPhase({ kind: 'running', rows: p.rowsRead }),
        },
      );
      setResult(data);
      setPhase({ kind: 'done', ms: performance.now() - started });
    } catch (e) {
      setPhase({ kind: 'idle' });
      setResult(null);
      setError((e as Error).name === 'AbortError' ? new Error('Query cancelled.') : e);
      // The error body names no position: the same check as while typing finds the span.
      if (e instanceof ApiFailure && e.status === 400) {
        const notices = await check(query);
        if (editor.current?.value() === query) setErrorAt(editor.current.markErrors(notices));
      }
    }
  };

  const cancel = () => abort.current?.abort();

  const chart = useMemo(() => (result ? chartOf(result) : null), [result]);
  const [savedAs, setSavedAs] = useState<string | null>(null);
  // Saved as PostHog saves a SQL insight: the query inside a DataVisualizationNode.
  const saveAsInsight = async (event: Event) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '');
    try {
      await api('POST', `/api/projects/${team.id}/insights/`, {
        name,
        saved: true,
        query: {
          kind: 'DataVisualizationNode',
          source: { kind: 'HogQLQuery', query: editor.current?.value() ?? '' },
        },
      });
      setSavedAs(name);
    } catch (e) {
      setError(e);
    }
  };
  const initial = localStorage.getItem(STORAGE_KEY) ?? DEFAULT_QUERY;

  return (
    <div class="page">
      <h1>SQL</h1>
      <section class="card">
        <SqlEditor
          initial={initial}
          vocabulary={() => vocabulary.current}
          onRun={run}
          onReady={(handle) => {
            editor.current = handle;
          }}
          check={check}
          onChange={() => setErrorAt(null)}
        />
        {typing && !(error instanceof ApiFailure && error.body.detail === typing.message) && (
          <p class="lint-status" role="status">
            <span aria-hidden="true">⚠ </span>
            {typing.message}
          </p>
        )}
        <div class="row">
          <button type="button" class="primary" onClick={run} disabled={phase.kind === 'running'}>
            Run <kbd>Ctrl</kbd>+<kbd>Enter</kbd>
          </button>
          {phase.kind === 'running' && (
            <>
              <button type="button" onClick={cancel}>
                Cancel
              </button>
              <span class="muted" role="status">
                Running… {phase.rows > 0 ? `${phase.rows.toLocaleString()} rows read` : ''}
              </span>
            </>
          )}
          {phase.kind === 'done' && result && (
            <span class="muted" role="status">
              {result.results.length.toLocaleString()} rows in {Math.round(phase.ms)} ms
              {result.is_cached ? ' (cached)' : ''}
            </span>
          )}
        </div>
        {error !== null && (
          <ErrorNote
            error={error}
            where={
              errorAt
                ? `Underlined in the query at line ${errorAt.line}, column ${errorAt.column}.`
                : undefined
            }
          />
        )}
      </section>
      {result && (
        <section class="card">
          <div class="tabs" role="tablist">
            <button
              type="button"
              role="tab"
              aria-selected={view === 'table'}
              onClick={() => setView('table')}
            >
              Table
            </button>
            <button
              type="button"
              role="tab"
              aria-selected={view === 'chart'}
              disabled={!chart}
              title={chart ? undefined : 'A chart needs a numeric column after the first'}
              onClick={() => setView('chart')}
            >
              Chart
            </button>
          </div>
          {view === 'table' || !chart ? (
            result.results.length === 0 ? (
              <p class="muted">The query returned no rows.</p>
            ) : (
              <DataTable columns={result.columns} rows={result.results} />
            )
          ) : (
            <Chart {...chart} title="Query results chart" height={320} />
          )}
          <form class="row wrap" onSubmit={saveAsInsight}>
            <label>
              Name
              <input name="name" required maxLength={400} placeholder="e.g. Signups by day" />
            </label>
            <button type="submit">Save as insight</button>
            {savedAs && <span role="status">Saved as “{savedAs}”: it can now go on a dashboard.</span>}
          </form>
        </section>
      )}
    </div>
  );
}
