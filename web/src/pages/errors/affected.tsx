import { useEffect, useState } from 'preact/hooks';
import { api, type HogQLResult } from '../../api';
import { ListTable } from '../../components/list-table';

interface Affected {
  session: string;
  personId: string;
  distinctId: string;
  occurrences: number;
  lastSeen: string;
  recorded: boolean;
}

/** How many sessions the page lists: the most recent ones, enough to find a recording to watch. */
const LIMIT = 50;

/**
 * The issue's occurrences by session and person, most recent first, over the range the issue's
 * aggregations use (90 days), each linking to the person and, where one was kept, the recording.
 */
const AFFECTED = `
SELECT e.$session_id AS session, e.person_id, any(e.distinct_id), count(), max(e.timestamp),
  session IN (SELECT session_id FROM raw_session_replay_events WHERE min_first_timestamp > now() - INTERVAL 91 DAY)
FROM events AS e
WHERE e.event = '$exception' AND e.properties.$exception_issue_id = {issue}
  AND e.timestamp > now() - INTERVAL 90 DAY
GROUP BY session, e.person_id
ORDER BY max(e.timestamp) DESC
LIMIT ${LIMIT}`;

export function AffectedSessions({ projectId, issueId }: { projectId: number; issueId: string }) {
  const [items, setItems] = useState<Affected[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    setItems(null);
    api<HogQLResult>(
      'POST',
      `/api/environments/${projectId}/query/`,
      { query: { kind: 'HogQLQuery', query: AFFECTED, values: { issue: issueId } } },
      { signal: controller.signal },
    ).then(
      (r) =>
        setItems(
          r.results.map(([session, personId, distinctId, occurrences, lastSeen, recorded]) => ({
            session: String(session ?? ''),
            personId: String(personId ?? ''),
            distinctId: String(distinctId ?? ''),
            occurrences: Number(occurrences),
            lastSeen: String(lastSeen),
            recorded: Boolean(recorded),
          })),
        ),
      (e) => {
        if ((e as Error).name !== 'AbortError') setError(e);
      },
    );
    return () => controller.abort();
  }, [projectId, issueId]);
  return (
    <section class="card" style={{ overflowX: 'auto' }} aria-labelledby="affected-heading">
      <h2 id="affected-heading">Affected users and sessions</h2>
      <ListTable
        items={items}
        error={error}
        loading={<div class="skeleton" style={{ height: '80px' }} />}
        empty="No occurrences in the last 90 days."
        tableClass="events"
        columns={['Person', 'Session', 'Occurrences', 'Last seen']}
        rowKey={(a) => `${a.session}/${a.personId}`}
        cells={(a) => (
          <>
            <td class="ellipsis" style={{ maxWidth: '16rem' }}>
              {a.personId ? (
                <a href={`/people/${encodeURIComponent(a.personId)}`}>{a.distinctId || a.personId}</a>
              ) : (
                a.distinctId
              )}
            </td>
            <td class="ellipsis" style={{ maxWidth: '16rem' }}>
              {!a.session ? (
                <span class="muted">No session</span>
              ) : a.recorded ? (
                <a
                  href={`/recordings/${encodeURIComponent(a.session)}`}
                  aria-label={`Watch the recording of session ${a.session}`}
                >
                  ▶ {a.session}
                </a>
              ) : (
                <span title="No recording was kept for this session">
                  {a.session} <span class="muted">(no recording)</span>
                </span>
              )}
            </td>
            <td>{a.occurrences.toLocaleString()}</td>
            <td>
              <time dateTime={a.lastSeen}>{new Date(a.lastSeen).toLocaleString()}</time>
            </td>
          </>
        )}
      />
      {items?.length === LIMIT ? <p class="muted">The {LIMIT} most recent sessions.</p> : null}
    </section>
  );
}
