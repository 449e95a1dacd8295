import { useMemo, useState } from 'preact/hooks';
import { Chart } from '../components/chart';
import { ErrorNote } from '../components/error-note';
import { formatTimeOfDay, zoneLabel } from '../components/time';
import { useHogQL } from '../components/use-query';
import { useSession } from '../session';
import { WebAnalytics } from './web-analytics/index';

const DAYS = 30;
// Home is where a new user checks that their first events arrived: never show a cached "nothing".
const FRESH = { refresh: 'force_blocking' } as const;

/** Today's date where the project is (its `timezone` setting), as YYYY-MM-DD. */
export function todayIn(timezone: string, now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The `count` calendar days up to `last` (YYYY-MM-DD), oldest first: date arithmetic, no clock. */
export function daysUpTo(last: string, count: number): string[] {
  const end = Date.parse(`${last}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(end - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

function EventsPerDay({ projectId, timezone }: { projectId: number; timezone: string }) {
  // HogQL converts timestamps (and now()) to the project's time zone, so `day` is a day there, the
  // same days a daily Trends insight shows.
  const { data, error, run } = useHogQL(
    projectId,
    `SELECT toStartOfDay(timestamp) AS day, count() AS events FROM events
     WHERE timestamp >= toStartOfDay(now()) - INTERVAL ${DAYS - 1} DAY GROUP BY day ORDER BY day`,
    FRESH,
  );
  // Every day of the range gets a bar, so quiet days show as zero rather than disappearing. Days are
  // labelled as dates rather than placed on a time axis, which would draw in the browser's zone.
  const chart = useMemo(() => {
    if (!data) return null;
    // A day comes back as the zone's midnight with its offset (2025-06-15T00:00:00-07:00).
    const counts = new Map(data.results.map((r) => [String(r[0]).slice(0, 10), Number(r[1])]));
    const days = daysUpTo(todayIn(timezone), DAYS);
    const label = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
    return {
      x: days.map((_, i) => i),
      labels: days.map((d) => label.format(new Date(`${d}T00:00:00Z`))),
      series: [{ label: 'Events', values: days.map((d) => counts.get(d) ?? 0) }],
      days,
    };
  }, [data, timezone]);
  return (
    <section class="card">
      <h2>Events per day</h2>
      {error ? <ErrorNote error={error} retry={run} /> : null}
      {chart ? (
        <>
          <Chart
            x={chart.x}
            labels={chart.labels}
            series={chart.series}
            kind="bars"
            title={`Events per day, last ${DAYS} days (${timezone})`}
          />
          <p class="muted small">Days in the project's time zone, {timezone}.</p>
          {/* The canvas says nothing to a screen reader: the same numbers as a table (in a box,
              because a table grows to its rows whatever its height). */}
          <div class="sr-only">
            <table aria-label="Events per day">
              <tbody>
                {chart.days.map((d, i) => (
                  <tr key={d}>
                    <th scope="row">
                      <time dateTime={d}>{chart.labels[i]}</time>
                    </th>
                    <td>{chart.series[0]?.values[i]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : (
        !error && <div class="skeleton" style={{ height: '260px' }} />
      )}
    </section>
  );
}

function TopEvents({ projectId }: { projectId: number }) {
  const { data, error, run } = useHogQL(
    projectId,
    `SELECT event, count() AS total FROM events WHERE timestamp >= now() - INTERVAL 7 DAY
     GROUP BY event ORDER BY total DESC LIMIT 10`,
    FRESH,
  );
  const max = Math.max(1, ...(data?.results ?? []).map((r) => Number(r[1])));
  return (
    <section class="card">
      <h2>Top events, 7 days</h2>
      {error ? <ErrorNote error={error} retry={run} /> : null}
      {data && data.results.length === 0 && <p class="muted">No events in the last 7 days.</p>}
      <ol class="bars-list">
        {data?.results.map(([event, total]) => (
          <li key={String(event)}>
            <span class="bar" style={{ width: `${(Number(total) / max) * 100}%` }} />
            <span class="label">{String(event)}</span>
            <span class="value">{Number(total).toLocaleString()}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function LiveFeed({ projectId, timezone }: { projectId: number; timezone: string }) {
  const { data, error, run } = useHogQL(
    projectId,
    `SELECT event, distinct_id, timestamp, properties.$current_url AS url FROM events
     ORDER BY timestamp DESC LIMIT 20`,
    { every: 5000, refresh: 'force_blocking' },
  );
  return (
    <section class="card">
      <h2>
        Live events <span class="live-dot" aria-hidden="true" />
        <span class="muted small zone">{zoneLabel(timezone)}</span>
      </h2>
      {error ? <ErrorNote error={error} retry={run} /> : null}
      {data && data.results.length === 0 && <p class="muted">No events yet. Send one with the snippet.</p>}
      <ul class="feed" aria-live="polite">
        {data?.results.map(([event, distinctId, timestamp, url], i) => (
          <li key={`${String(timestamp)}-${i}`}>
            <strong>{String(event)}</strong>
            <span class="muted">{String(distinctId)}</span>
            {url ? <span class="muted ellipsis">{String(url)}</span> : null}
            <time class="muted" dateTime={String(timestamp)}>
              {formatTimeOfDay(String(timestamp), timezone)}
            </time>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Snippet({ projectId, token }: { projectId: number; token: string }) {
  const host = window.location.origin;
  const [copied, setCopied] = useState(false);
  const [since] = useState(() => new Date().toISOString().slice(0, 19).replace('T', ' '));
  const check = useHogQL(
    projectId,
    `SELECT count(), max(timestamp) FROM events WHERE timestamp >= now() - INTERVAL 1 HOUR`,
    { every: 4000, refresh: 'force_blocking' },
  );
  const html = `<script src="${host}/static/array.js"></script>
<script>
  posthog.init('${token}', { api_host: '${host}', person_profiles: 'identified_only' })
</script>`;
  const copy = async () => {
    await navigator.clipboard.writeText(html);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  const recent = Number(check.data?.results[0]?.[0] ?? 0);
  return (
    <section class="card">
      <h2>Send events</h2>
      <p class="muted">Paste this into your site's &lt;head&gt;. The SDK loads from this server.</p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways on narrow screens, so keyboards must reach it */}
      <pre class="code" tabIndex={0}>
        {html}
      </pre>
      <div class="row">
        <button type="button" class="nowrap" onClick={copy}>
          {copied ? 'Copied' : 'Copy snippet'}
        </button>
        <span class="muted small">Or from npm (posthog-js), in your app's code:</span>
      </div>
      <pre class="code small">{`posthog.init('${token}', { api_host: '${host}' })`}</pre>
      <p class={`status ${recent > 0 ? 'ok' : 'waiting'}`} role="status" data-since={since}>
        {!check.data
          ? 'Checking for events…'
          : recent > 0
            ? `Events are arriving: ${recent.toLocaleString()} in the last hour.`
            : 'Waiting for the first event…'}
      </p>
    </section>
  );
}

/** A site's project: most of its last 7 days' events are pageviews and pageleaves. */
export const SITE_SQL = `SELECT countIf(event IN ('$pageview', '$pageleave')), count() FROM events
     WHERE timestamp >= now() - INTERVAL 7 DAY`;

export function Home() {
  const { team } = useSession();
  const site = useHogQL(team.id, SITE_SQL);
  const [pages, all] = (site.data?.results[0] ?? [0, 0]).map(Number);
  const isSite = (all ?? 0) > 0 && (pages ?? 0) * 2 > (all ?? 0);
  return (
    <div class="page">
      <h1>{team.name}</h1>
      {/* A website's project opens on its web analytics; the project's activity follows. */}
      {isSite ? (
        <>
          <section aria-label="Web analytics" class="wa-home">
            <h2>
              <a href="/web">Web analytics</a>
            </h2>
            <WebAnalytics />
          </section>
          <h2>All events</h2>
        </>
      ) : null}
      <div class="grid two">
        <EventsPerDay projectId={team.id} timezone={team.timezone} />
        <TopEvents projectId={team.id} />
      </div>
      <div class="grid two">
        <LiveFeed projectId={team.id} timezone={team.timezone} />
        <Snippet projectId={team.id} token={team.api_token} />
      </div>
    </div>
  );
}
