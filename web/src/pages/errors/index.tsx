import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, runQuery } from '../../api';
import { Chart } from '../../components/chart';
import { ErrorNote } from '../../components/error-note';
import { ListTable } from '../../components/list-table';
import { useSession } from '../../session';
import { AffectedSessions } from './affected';
import { RulesSection } from './rules';

interface Issue {
  id: string;
  name: string | null;
  description: string | null;
  status: string;
  first_seen: string;
  last_seen: string;
  assignee: { type: string; id: number | string } | null;
  aggregations?: {
    occurrences: number;
    sessions: number;
    users: number;
    volumeRange: number[];
    volume_buckets?: { label: string; value: number }[];
  };
  first_event?: { uuid: string; timestamp: string; properties: string } | null;
  last_event?: { uuid: string; timestamp: string; properties: string } | null;
}

interface Frame {
  source: string | null;
  line: number | null;
  column: number | null;
  resolved_name: string | null;
  mangled_name: string;
  in_app: boolean;
  resolve_failure?: string | null;
  context?: { before: Ctx[]; line: Ctx; after: Ctx[] };
}
interface Ctx {
  number: number;
  line: string;
}

const STATUSES = ['active', 'resolved', 'suppressed', 'archived', 'all'] as const;
const RANGES = { '-24h': 'Last 24 hours', '-7d': 'Last 7 days', '-30d': 'Last 30 days' };

function useIssues(query: object) {
  const { team } = useSession();
  const [data, setData] = useState<{ results: Issue[]; hasMore: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(query);
  useEffect(() => {
    const controller = new AbortController();
    setData(null);
    setError(null);
    runQuery<{ results: Issue[]; hasMore: boolean }>(
      team.id,
      { kind: 'ErrorTrackingQuery', ...query },
      { signal: controller.signal, refresh: 'force_blocking' },
    ).then(setData, (e) => {
      if ((e as Error).name !== 'AbortError') setError(e);
    });
    return () => controller.abort();
  }, [team.id, key, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

/** Volume over the range as a small bar chart (the numbers are in its label). */
function Sparkline({ values }: { values: number[] }) {
  const max = Math.max(1, ...values);
  const w = 4;
  return (
    <svg
      class="sparkline"
      width={values.length * w}
      height={20}
      role="img"
      aria-label={`Occurrences over time: ${values.join(', ')}`}
    >
      {values.map((v, i) => (
        <rect
          key={i}
          x={i * w}
          y={20 - (v / max) * 20}
          width={w - 1}
          height={(v / max) * 20}
          fill="currentColor"
        />
      ))}
    </svg>
  );
}

/** Issues by volume (PostHog's ErrorTrackingQuery), with status tabs and search. */
export function ErrorsPage() {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('active');
  const [after, setAfter] = useState<keyof typeof RANGES>('-7d');
  const [search, setSearch] = useState('');
  const [typed, setTyped] = useState('');
  const { data, error } = useIssues({
    status,
    dateRange: { date_from: after },
    orderBy: 'occurrences',
    volumeResolution: 20,
    withAggregations: true,
    ...(search ? { searchQuery: search } : {}),
    limit: 100,
  });
  return (
    <div class="page">
      <h1>Errors</h1>
      <section class="card">
        <div class="tabs" role="tablist" aria-label="Status">
          {STATUSES.map((s) => (
            <button
              key={s}
              type="button"
              role="tab"
              aria-selected={status === s}
              onClick={() => setStatus(s)}
            >
              {s[0]?.toUpperCase()}
              {s.slice(1)}
            </button>
          ))}
        </div>
        <form
          class="row wrap"
          onSubmit={(e) => {
            e.preventDefault();
            setSearch(typed.trim());
          }}
        >
          <label>
            Search{' '}
            <input
              type="search"
              value={typed}
              maxLength={200}
              onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <label>
            When{' '}
            <select
              value={after}
              onChange={(e) => setAfter((e.currentTarget as HTMLSelectElement).value as keyof typeof RANGES)}
            >
              {Object.entries(RANGES).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Search</button>
        </form>
      </section>
      <section class="card" style={{ overflowX: 'auto' }}>
        <ListTable
          items={data?.results ?? null}
          error={error}
          loading={<div class="skeleton" style={{ height: '160px' }} />}
          empty="No issues here. posthog-js and posthog-node send exceptions (docs/error-tracking.md)."
          tableClass="events"
          columns={['Issue', 'Volume', 'Occurrences', 'Users', 'Last seen']}
          rowKey={(i) => i.id}
          cells={(i) => (
            <>
              <td class="ellipsis" style={{ maxWidth: '22rem' }}>
                <a href={`/errors/${i.id}`}>{i.name || 'Error'}</a>
                <div class="muted ellipsis">{i.description}</div>
              </td>
              <td>
                <Sparkline values={i.aggregations?.volumeRange ?? []} />
              </td>
              <td>{i.aggregations?.occurrences.toLocaleString()}</td>
              <td>{i.aggregations?.users.toLocaleString()}</td>
              <td>
                <time dateTime={i.last_seen}>{new Date(i.last_seen).toLocaleString()}</time>
              </td>
            </>
          )}
        />
      </section>
      <RulesSection />
    </div>
  );
}

function frameTitle(f: Frame): string {
  const where = [f.source ?? '?', f.line, f.column].filter((x) => x !== null && x !== undefined).join(':');
  return `${f.resolved_name ?? f.mangled_name} (${where})`;
}

/** Buckets of the occurrences chart per range: hours for a day, days otherwise. */
const CHART_BUCKETS: Record<keyof typeof RANGES, number> = { '-24h': 24, '-7d': 7, '-30d': 30 };

/** The issue's occurrences per hour (last day) or per day, over a range the user picks. */
function OccurrencesChart({ id }: { id: string }) {
  const [range, setRange] = useState<keyof typeof RANGES>('-7d');
  const { data, error } = useIssues({
    issueId: id,
    dateRange: { date_from: range },
    volumeResolution: CHART_BUCKETS[range],
    withAggregations: true,
  });
  const buckets = data?.results[0]?.aggregations?.volume_buckets ?? [];
  const total = buckets.reduce((sum, b) => sum + b.value, 0);
  return (
    <section class="card occurrences">
      <div class="row wrap">
        <h2>Occurrences</h2>
        <label>
          Period{' '}
          <select
            value={range}
            onChange={(e) => setRange((e.currentTarget as HTMLSelectElement).value as keyof typeof RANGES)}
          >
            {Object.entries(RANGES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {data ? (
          <span class="muted">
            {total} in the {RANGES[range].toLowerCase()}, per {range === '-24h' ? 'hour' : 'day'}
          </span>
        ) : null}
      </div>
      {error ? (
        <ErrorNote error={error} />
      ) : !data ? (
        <div class="skeleton" style={{ height: '200px' }} />
      ) : (
        <Chart
          kind="bars"
          height={200}
          title={`Occurrences per ${range === '-24h' ? 'hour' : 'day'}, ${RANGES[range].toLowerCase()}`}
          x={buckets.map((b) => Math.floor(Date.parse(b.label) / 1000))}
          series={[{ label: 'Occurrences', values: buckets.map((b) => b.value) }]}
        />
      )}
    </section>
  );
}

/** One issue: status and assignment, its volume and its stack trace (in-app frames first). */
export function ErrorIssuePage() {
  const { params } = useRoute();
  const { team, me } = useSession();
  const id = params.id ?? '';
  const { data, error, reload } = useIssues({
    issueId: id,
    dateRange: { date_from: '-30d' },
    volumeResolution: 30,
    withAggregations: true,
    withFirstEvent: true,
    withLastEvent: true,
  });
  const [saveError, setSaveError] = useState<unknown>(null);
  const issue = data?.results[0];
  // PostHog's @me has the numeric user id; the console's type leaves it out.
  const myId = (me as unknown as { id?: number }).id;
  const change = async (body: object) => {
    setSaveError(null);
    try {
      await api('PATCH', `/api/environments/${team.id}/error_tracking/issues/${id}/`, body);
      reload();
    } catch (e) {
      setSaveError(e);
    }
  };
  if (error) return <ErrorNote error={error} />;
  if (!data) return <div class="skeleton" style={{ height: '160px' }} />;
  if (!issue) return <p class="page">No occurrences of this issue in the last 30 days.</p>;
  const sample = JSON.parse(issue.last_event?.properties ?? issue.first_event?.properties ?? '{}') as {
    $exception_list?: { type: string; value: string; stacktrace?: { frames: Frame[] } }[];
  };
  return (
    <div class="page">
      <h1>{issue.name || 'Error'}</h1>
      <p class="muted">{issue.description}</p>
      <section class="card row wrap">
        <label>
          Status{' '}
          <select
            value={issue.status}
            onChange={(e) => change({ status: (e.currentTarget as HTMLSelectElement).value })}
          >
            {STATUSES.filter((s) => s !== 'all').map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {myId !== undefined || issue.assignee ? (
          <button
            type="button"
            onClick={() => change({ assignee: issue.assignee ? null : { type: 'user', id: myId } })}
          >
            {issue.assignee ? 'Unassign' : 'Assign to me'}
          </button>
        ) : null}
        <span>
          {issue.aggregations?.occurrences} occurrences · {issue.aggregations?.users} users ·{' '}
          {issue.aggregations?.sessions} sessions
        </span>
        <Sparkline values={issue.aggregations?.volumeRange ?? []} />
        {saveError ? <ErrorNote error={saveError} /> : null}
      </section>
      <OccurrencesChart id={issue.id} />
      {(sample.$exception_list ?? []).map((e, n) => {
        const frames = [...(e.stacktrace?.frames ?? [])].reverse();
        const ordered = [...frames.filter((f) => f.in_app), ...frames.filter((f) => !f.in_app)];
        return (
          <section class="card" key={n}>
            <h2>
              {e.type}: {e.value}
            </h2>
            <ol class="stack">
              {ordered.map((f, i) => (
                <li key={i} class={f.in_app ? '' : 'muted'}>
                  <code>{frameTitle(f)}</code>
                  {f.resolve_failure ? <span class="muted"> · {f.resolve_failure}</span> : null}
                  {f.context ? (
                    <pre class="context">
                      {[...f.context.before, f.context.line, ...f.context.after].map((c) => (
                        <div key={c.number} class={c.number === f.context?.line.number ? 'current' : ''}>
                          {String(c.number).padStart(5)} {c.line}
                        </div>
                      ))}
                    </pre>
                  ) : null}
                </li>
              ))}
            </ol>
          </section>
        );
      })}
      <AffectedSessions projectId={team.id} issueId={issue.id} />
    </div>
  );
}
