import { useEffect, useState } from 'preact/hooks';
import { runQuery } from '../api';
import { ListTable } from '../components/list-table';
import { PropertyTable } from '../components/property-table';
import { formatDateTime, zoneLabel } from '../components/time';
import { useSession } from '../session';

const RANGES = { '-1h': 'Last hour', '-24h': 'Last 24 hours', '-7d': 'Last 7 days', '-30d': 'Last 30 days' };
const COLUMNS = ['uuid', 'event', 'distinct_id', 'timestamp', 'properties.$current_url', 'properties'];

interface Filters {
  event: string;
  after: keyof typeof RANGES;
  key: string;
  value: string;
}

/** The query node the explorer runs: PostHog's EventsQuery, newest first, 100 at a time. */
export function eventsQuery(f: Filters, personId?: string) {
  return {
    kind: 'EventsQuery',
    select: COLUMNS,
    orderBy: ['timestamp DESC'],
    after: f.after,
    limit: 100,
    ...(f.event ? { event: f.event } : {}),
    ...(personId ? { personId } : {}),
    ...(f.key
      ? {
          properties: [{ type: 'event', key: f.key, value: f.value, operator: f.value ? 'exact' : 'is_set' }],
        }
      : {}),
  };
}

export function EventList({ query }: { query: object }) {
  const { team } = useSession();
  const [rows, setRows] = useState<unknown[][] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState<string | null>(null);
  const key = JSON.stringify(query);
  useEffect(() => {
    const controller = new AbortController();
    setRows(null);
    setError(null);
    runQuery<{ results: unknown[][] }>(team.id, query, {
      signal: controller.signal,
      refresh: 'force_blocking',
    }).then(
      (r) => setRows(r.results),
      (e) => (e as Error).name !== 'AbortError' && setError(e),
    );
    return () => controller.abort();
  }, [team.id, key]);
  return (
    <ListTable
      items={rows}
      error={error}
      loading={<div class="skeleton" style={{ height: '160px' }} />}
      empty="No events match."
      tableClass="events"
      columns={['Event', 'Person', 'URL', `Time (${zoneLabel(team.timezone)})`]}
      rowKey={(row) => String(row[0])}
      cells={([uuid, event, distinctId, timestamp, url]) => (
        <>
          <td>
            <button
              type="button"
              class="link"
              aria-expanded={open === String(uuid)}
              onClick={() => setOpen(open === String(uuid) ? null : String(uuid))}
            >
              {String(event)}
            </button>
          </td>
          <td class="ellipsis">{String(distinctId)}</td>
          <td class="ellipsis" style={{ maxWidth: '24rem' }}>
            {url ? String(url) : ''}
          </td>
          <td>
            <time dateTime={String(timestamp)}>{formatDateTime(String(timestamp), team.timezone)}</time>
          </td>
        </>
      )}
      detail={([uuid, , , , , properties]) =>
        open === String(uuid) && (
          <PropertyTable
            properties={
              (typeof properties === 'string' ? JSON.parse(properties) : properties) as Record<
                string,
                unknown
              >
            }
          />
        )
      }
    />
  );
}

export function Events() {
  const [filters, setFilters] = useState<Filters>({ event: '', after: '-24h', key: '', value: '' });
  const [draft, setDraft] = useState(filters);
  const apply = (event: Event) => {
    event.preventDefault();
    setFilters(draft);
  };
  return (
    <div class="page">
      <h1>Events</h1>
      <section class="card">
        <form class="row wrap" onSubmit={apply}>
          <label>
            Event
            <input
              value={draft.event}
              placeholder="Any event"
              onInput={(e) =>
                setDraft({ ...draft, event: (e.currentTarget as HTMLInputElement).value.trim() })
              }
            />
          </label>
          <label>
            When
            <select
              value={draft.after}
              onChange={(e) =>
                setDraft({
                  ...draft,
                  after: (e.currentTarget as HTMLSelectElement).value as Filters['after'],
                })
              }
            >
              {Object.entries(RANGES).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          <label>
            Property
            <input
              value={draft.key}
              placeholder="e.g. $browser"
              onInput={(e) => setDraft({ ...draft, key: (e.currentTarget as HTMLInputElement).value.trim() })}
            />
          </label>
          <label>
            equals
            <input
              value={draft.value}
              placeholder="(is set)"
              onInput={(e) => setDraft({ ...draft, value: (e.currentTarget as HTMLInputElement).value })}
            />
          </label>
          <button type="submit" class="primary">
            Apply
          </button>
        </form>
      </section>
      <section class="card">
        <EventList query={eventsQuery(filters)} />
      </section>
    </div>
  );
}
