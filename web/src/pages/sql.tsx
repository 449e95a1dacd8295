import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { lazy, useLocation } from 'preact-iso';
import { ApiFailure, api, get, type HogQLResult, runQuery } from '../api';
import { Chart } from '../components/chart';
import { DataTable } from '../components/data-table';
import { ErrorNote } from '../components/error-note';
import type { EditorHandle, QueryNotice, Vocabulary } from '../components/sql-editor';
import { useSession } from '../session';
import { sqlOf } from './dashboard/tile-view';
import { toCsv } from './sql-tools/csv';
import { download } from './sql-tools/download';
import { forget, type Ran, readHistory, remember } from './sql-tools/history';
import { SaveInsight } from './sql-tools/save-insight';
import { TableBrowser, useSchema } from './sql-tools/table-browser';
import './sql-tools/sql.css';

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
  const { team, me } = useSession();
  const { query: search } = useLocation();
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
  const schema = useSchema(team.id);
  const [history, setHistory] = useState<Ran[]>(() => readHistory(me.uuid, team.id));
  const [side, setSide] = useState<'tables' | 'history'>('tables');
  // A saved SQL insight opened from a dashboard tile: its query replaces the editor's.
  const [opened, setOpened] = useState<string | null>(null);
  const pending = useRef<string | null>(null);
  const insightParam = search.insight;
  useEffect(() => {
    if (!insightParam) return;
    get<{ results: { name: string; query: Record<string, unknown> }[] }>(
      `/api/projects/${team.id}/insights/?short_id=${encodeURIComponent(insightParam)}`,
    ).then((r) => {
      const found = r.results[0];
      const text = found ? sqlOf(found.query) : null;
      if (found && text !== null) {
        // The editor loads lazily: if it is not there yet it takes the text when ready.
        if (editor.current) editor.current.setValue(text);
        else pending.current = text;
        setOpened(found.name);
        void run(text);
      }
    }, setError);
  }, [insightParam, team.id]);
  // The schema's tables also feed the editor's completion.
  useEffect(() => {
    if (!schema.tables) return;
    vocabulary.current.tables = Object.fromEntries(schema.tables.map((t) => [t.name, Object.keys(t.fields)]));
  }, [schema.tables]);

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

  const run = async (text?: string) => {
    const query = text ?? editor.current?.value() ?? '';
    if (!query.trim() || phase.kind === 'running') return;
    localStorage.setItem(STORAGE_KEY, query);
    setHistory(remember(me.uuid, team.id, query));
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
  const initial = localStorage.getItem(STORAGE_KEY) ?? DEFAULT_QUERY;
  const exportCsv = () => {
    if (!result) return;
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    download(`burrow-sql-${stamp}.csv`, toCsv(result.columns, result.results));
  };
  const rerun = (query: string) => {
    editor.current?.setValue(query);
    void run(query);
  };

  return (
    <div class="page sql-page">
      <h1>SQL</h1>
      <div class="sql-layout">
        <aside class="card sql-side">
          <div
            class="tabs"
            role="tablist"
            aria-label="Tables and history"
            onKeyDown={(e) => {
              // Two tabs: either arrow goes to the other one, as the ARIA tabs pattern has it.
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              e.preventDefault();
              const next = side === 'tables' ? 'history' : 'tables';
              setSide(next);
              document.getElementById(`sql-tab-${next}`)?.focus();
            }}
          >
            <button
              type="button"
              role="tab"
              id="sql-tab-tables"
              tabIndex={side === 'tables' ? 0 : -1}
              aria-selected={side === 'tables'}
              aria-controls="sql-side-panel"
              onClick={() => setSide('tables')}
            >
              Tables
            </button>
            <button
              type="button"
              role="tab"
              id="sql-tab-history"
              tabIndex={side === 'history' ? 0 : -1}
              aria-selected={side === 'history'}
              aria-controls="sql-side-panel"
              onClick={() => setSide('history')}
            >
              History
            </button>
          </div>
          <div id="sql-side-panel" role="tabpanel" aria-labelledby={`sql-tab-${side}`}>
            {side === 'tables' ? (
              <TableBrowser
                tables={schema.tables}
                failed={schema.failed}
                onInsert={(text) => editor.current?.insert(text)}
              />
            ) : history.length === 0 ? (
              <p class="muted small">Queries you run appear here, the latest first.</p>
            ) : (
              <>
                <ol class="sql-history" aria-label="Query history">
                  {history.map((h) => (
                    <li key={h.at + h.query}>
                      <pre class="code small">{h.query}</pre>
                      <div class="row">
                        <span class="muted small">{new Date(h.at).toLocaleString()}</span>
                        <button type="button" class="link small" onClick={() => rerun(h.query)}>
                          Run again
                        </button>
                        <button
                          type="button"
                          class="link small"
                          onClick={() => editor.current?.setValue(h.query)}
                        >
                          Edit
                        </button>
                      </div>
                    </li>
                  ))}
                </ol>
                <button type="button" class="link small" onClick={() => setHistory(forget(me.uuid, team.id))}>
                  Clear history
                </button>
              </>
            )}
          </div>
        </aside>
        <div class="sql-main">
          <section class="card">
            {opened && <p class="muted small">Opened the saved insight “{opened}”.</p>}
            <SqlEditor
              initial={initial}
              vocabulary={() => vocabulary.current}
              onRun={() => run()}
              onReady={(handle) => {
                editor.current = handle;
                if (pending.current !== null) handle.setValue(pending.current);
                pending.current = null;
              }}
              check={check}
              onChange={() => {
                // An error belongs to the query that failed: once the text changes it is stale.
                setErrorAt(null);
                setError(null);
              }}
            />
            {typing && !(error instanceof ApiFailure && error.body.detail === typing.message) && (
              <p class="lint-status" role="status">
                <span aria-hidden="true">⚠ </span>
                {typing.message}
              </p>
            )}
            <div class="row">
              <button type="button" class="primary" onClick={() => run()} disabled={phase.kind === 'running'}>
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
              <div class="row wrap sql-result-head">
                <div class="tabs" role="tablist" aria-label="Result view">
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
                <button type="button" onClick={exportCsv}>
                  Export CSV
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
              <SaveInsight
                projectId={team.id}
                query={() => editor.current?.value() ?? ''}
                initialName={opened ?? ''}
                onError={setError}
              />
            </section>
          )}
        </div>
      </div>
    </div>
  );
}
