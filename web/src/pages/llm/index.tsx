import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ErrorNote } from '../../components/error-note';
import { ListTable } from '../../components/list-table';
import { LlmDashboard, UncostedModels } from './dashboard';
import { useLlmQuery } from './use-llm-query';

interface Trace {
  id: string;
  createdAt: string;
  person: { distinct_id: string; properties: Record<string, unknown> };
  totalLatency: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  totalCost: number | null;
  traceName: string | null;
  errorCount: number | null;
  events: TraceEvent[];
}

interface TraceEvent {
  id: string;
  event: string;
  createdAt: string;
  properties: Record<string, unknown>;
}

const RANGES = { '-24h': 'Last 24 hours', '-7d': 'Last 7 days', '-30d': 'Last 30 days' };
const usd = (n: number | null) =>
  n === null ? '–' : `$${n < 0.01 && n > 0 ? n.toPrecision(2) : n.toFixed(2)}`;
const secs = (n: number | null) => (n === null ? '–' : `${n.toFixed(2)} s`);
const num = (n: number | null) => (n === null ? '–' : n.toLocaleString());

/** LLM traces, newest first (PostHog's TracesQuery), 50 at a time. */
export function LlmTraces() {
  const [after, setAfter] = useState<keyof typeof RANGES>('-7d');
  const [offset, setOffset] = useState(0);
  const { data, error } = useLlmQuery<{ results: Trace[]; hasMore: boolean }>({
    kind: 'TracesQuery',
    dateRange: { date_from: after },
    limit: 50,
    offset,
  });
  return (
    <div class="page">
      <h1>LLM analytics</h1>
      <section class="card">
        <div class="row wrap">
          <label>
            When{' '}
            <select
              value={after}
              onChange={(e) => {
                setOffset(0);
                setAfter((e.currentTarget as HTMLSelectElement).value as keyof typeof RANGES);
              }}
            >
              {Object.entries(RANGES).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
        </div>
      </section>
      <LlmDashboard after={after} />
      <UncostedModels />
      <h2>Traces</h2>
      {/* Wide on a phone: the table scrolls sideways within its card rather than losing columns. */}
      <section class="card" style={{ overflowX: 'auto' }} aria-label="Traces">
        <ListTable
          items={data?.results ?? null}
          error={error}
          loading={<div class="skeleton" style={{ height: '160px' }} />}
          empty="No LLM traces in this period. Send them with @posthog/ai or OpenTelemetry (docs/llm-analytics.md)."
          tableClass="events"
          columns={['Trace', 'Person', 'Latency', 'Tokens', 'Cost', 'Time']}
          rowKey={(t) => t.id}
          cells={(t) => (
            <>
              <td class="ellipsis" style={{ maxWidth: '18rem' }}>
                <a href={`/llm/${encodeURIComponent(t.id)}`}>{t.traceName || t.id}</a>
                {t.errorCount ? (
                  <span class="muted">
                    {' '}
                    · {t.errorCount} error{t.errorCount > 1 ? 's' : ''}
                  </span>
                ) : null}
              </td>
              <td class="ellipsis">{t.person.distinct_id}</td>
              <td>{secs(t.totalLatency)}</td>
              <td>
                {num(t.inputTokens)} → {num(t.outputTokens)}
              </td>
              <td>{usd(t.totalCost)}</td>
              <td>
                <time dateTime={t.createdAt}>{new Date(t.createdAt).toLocaleString()}</time>
              </td>
            </>
          )}
        />
        {(offset > 0 || data?.hasMore) && (
          <div class="row">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 50))}>
              Newer
            </button>
            <button type="button" disabled={!data?.hasMore} onClick={() => setOffset(offset + 50)}>
              Older
            </button>
          </div>
        )}
      </section>
    </div>
  );
}

/** Inputs and outputs are untrusted text: shown as text (never as markup), messages one by one. */
function Content({ value }: { value: unknown }) {
  if (value === undefined || value === null) return <span class="muted">none</span>;
  if (Array.isArray(value) && value.every((m) => m && typeof m === 'object' && 'role' in m)) {
    return (
      <div>
        {value.map((m: { role: unknown; content?: unknown }, i) => (
          <div key={i} style={{ marginBottom: '0.5rem' }}>
            <strong>{String(m.role)}</strong>
            <pre class="code small" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m, null, 2)}
            </pre>
          </div>
        ))}
      </div>
    );
  }
  return (
    <pre class="code small" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}

interface Node {
  event: TraceEvent;
  children: Node[];
}

/** The trace as a tree: each event under the event whose `$ai_span_id` is its `$ai_parent_id`. */
function treeOf(events: TraceEvent[], traceId: string): Node[] {
  const nodes = events.map((event) => ({ event, children: [] as Node[] }));
  const bySpan = new Map<string, Node>();
  for (const n of nodes) {
    const span = n.event.properties.$ai_span_id ?? n.event.properties.$ai_generation_id;
    if (typeof span === 'string' && n.event.event !== '$ai_trace') bySpan.set(span, n);
  }
  // Events without a parent span hang under the trace's own event, when it sent one.
  const top = nodes.find((n) => n.event.event === '$ai_trace');
  const roots: Node[] = top ? [top] : [];
  for (const n of nodes) {
    if (n === top) continue;
    const parent = n.event.properties.$ai_parent_id;
    const host = typeof parent === 'string' && parent !== traceId ? bySpan.get(parent) : undefined;
    if (host && host !== n) host.children.push(n);
    else (top?.children ?? roots).push(n);
  }
  return roots;
}

function label(e: TraceEvent): string {
  const p = e.properties;
  const name = p.$ai_span_name ?? p.$ai_model ?? e.event;
  return `${e.event.replace('$ai_', '')} · ${String(name)}`;
}

function Tree({
  nodes,
  selected,
  select,
}: {
  nodes: Node[];
  selected: string | null;
  select: (id: string) => void;
}) {
  return (
    <ul class="tree" style={{ listStyle: 'none', paddingLeft: '1rem', margin: 0 }}>
      {nodes.map((n) => (
        <li key={n.event.id}>
          <button
            type="button"
            class="link"
            aria-current={selected === n.event.id ? 'true' : undefined}
            style={{ fontWeight: selected === n.event.id ? 600 : undefined, textAlign: 'left' }}
            onClick={() => select(n.event.id)}
          >
            {label(n.event)}
          </button>
          {typeof n.event.properties.$ai_latency === 'number' && (
            <span class="muted"> {secs(n.event.properties.$ai_latency as number)}</span>
          )}
          {n.event.properties.$ai_is_error === true && <span class="muted"> · error</span>}
          {n.children.length > 0 && <Tree nodes={n.children} selected={selected} select={select} />}
        </li>
      ))}
    </ul>
  );
}

/** One trace (PostHog's TraceQuery): its tree of spans and generations, and the chosen one's input and output. */
export function LlmTracePage() {
  const { params } = useRoute();
  const traceId = decodeURIComponent(params.id ?? '');
  const { data, error } = useLlmQuery<{ results: Trace[] }>({ kind: 'TraceQuery', traceId });
  const [selected, setSelected] = useState<string | null>(null);
  const trace = data?.results[0];
  const chosen = trace?.events.find((e) => e.id === selected) ?? trace?.events[0];
  return (
    <div class="page">
      <p>
        <a href="/llm">← LLM analytics</a>
      </p>
      <h1 class="ellipsis">{trace?.traceName || traceId}</h1>
      {error ? <ErrorNote error={error} /> : null}
      {data && !trace && <p class="muted">No trace with this id.</p>}
      {trace && (
        <>
          <p class="muted">
            {trace.person.distinct_id} · {secs(trace.totalLatency)} · {num(trace.inputTokens)} →{' '}
            {num(trace.outputTokens)} tokens · {usd(trace.totalCost)}
          </p>
          <div class="grid two">
            <section class="card" aria-label="Spans and generations">
              <Tree
                nodes={treeOf(trace.events, trace.id)}
                selected={chosen?.id ?? null}
                select={setSelected}
              />
            </section>
            {chosen && (
              <section class="card" aria-label="Details">
                <h2>{label(chosen)}</h2>
                {chosen.properties.$ai_error ? <Content value={chosen.properties.$ai_error} /> : null}
                <h3>Input</h3>
                <Content value={chosen.properties.$ai_input ?? chosen.properties.$ai_input_state} />
                <h3>Output</h3>
                <Content value={chosen.properties.$ai_output_choices ?? chosen.properties.$ai_output_state} />
              </section>
            )}
          </div>
        </>
      )}
    </div>
  );
}
