import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { ApiFailure, api, get } from '../api';
import { ErrorNote } from '../components/error-note';
import { freshHogql } from '../components/fresh-hogql';
import { ListTable } from '../components/list-table';
import { PropertyTable } from '../components/property-table';
import { formatDate, formatDateTime, zoneLabel } from '../components/time';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';
import { EventList, eventsQuery } from './events';

export interface Person {
  id: string;
  uuid: string;
  name?: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
}

const displayName = (p: Person) =>
  p.name || String(p.properties.email ?? p.properties.name ?? p.distinct_ids[0] ?? p.uuid);

/** "5 minutes ago": how long since a moment, the same whatever the time zone. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, (now - new Date(iso).getTime()) / 1000);
  const units: [number, string][] = [
    [86_400 * 365, 'year'],
    [86_400 * 30, 'month'],
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(seconds / size);
    if (n >= 1) return `${n} ${name}${n > 1 ? 's' : ''} ago`;
  }
  return 'just now';
}

/**
 * When each person last sent an event (the last 365 days), in one HogQL query for the page shown.
 * Persons carry no such field, so it is read from their events as PostHog's list does.
 */
function useLastSeen(projectId: number, uuids: string[]) {
  const [seen, setSeen] = useState<Record<string, string | null>>({});
  const key = uuids.join(',');
  useEffect(() => {
    if (uuids.length === 0) return;
    const controller = new AbortController();
    const list = uuids.map((u) => `'${u.replace(/[^0-9a-f-]/gi, '')}'`).join(', ');
    freshHogql(
      projectId,
      `SELECT toString(person_id), max(timestamp) FROM events WHERE timestamp > now() - INTERVAL 365 DAY AND toString(person_id) IN (${list}) GROUP BY person_id`,
      controller.signal,
    ).then(
      (r) => {
        const found: Record<string, string | null> = Object.fromEntries(uuids.map((u) => [u, null]));
        for (const [id, at] of r.results) found[String(id)] = String(at);
        setSeen(found);
      },
      () => undefined,
    );
    return () => controller.abort();
  }, [projectId, key]);
  return seen;
}

const OPERATORS: [string, string][] = [
  ['icontains', 'contains'],
  ['exact', 'equals'],
  ['is_not', 'is not'],
  ['is_set', 'is set'],
  ['is_not_set', 'is not set'],
];

/** PostHog's `properties` list filter for a person property, as the persons API takes it. */
function propertyFilter(key: string, operator: string, value: string): string {
  const valueless = operator === 'is_set' || operator === 'is_not_set';
  return JSON.stringify([{ key, type: 'person', operator, ...(valueless ? {} : { value }) }]);
}

export function People() {
  const { team } = useSession();
  const base = `/api/projects/${team.id}/persons/?limit=50`;
  const [search, setSearch] = useState('');
  const [property, setProperty] = useState({ key: '', operator: 'icontains', value: '' });
  const [url, setUrl] = useState(base);
  const { data: page, error, reload } = useResource<{ results: Person[]; next: string | null }>(url);
  const keys = useResource<{ results: { name: string }[] }>(
    `/api/projects/${team.id}/property_definitions/?type=person&limit=200`,
  );
  const lastSeen = useLastSeen(team.id, page?.results.map((p) => p.uuid) ?? []);
  const submit = (event: Event) => {
    event.preventDefault();
    const params = new URLSearchParams();
    if (search) params.set('search', search);
    if (property.key)
      params.set('properties', propertyFilter(property.key, property.operator, property.value));
    const searched = `${base}${params.size ? `&${params}` : ''}`;
    // The same search again asks again (people may have arrived since); a new one loads afresh.
    if (searched === url) void reload();
    else setUrl(searched);
  };
  const valueless = property.operator === 'is_set' || property.operator === 'is_not_set';
  const next = page?.next ? new URL(page.next, window.location.origin) : null;
  return (
    <div class="page">
      <h1>People</h1>
      <section class="card">
        <form class="row wrap" onSubmit={submit} aria-label="Find people">
          <label>
            Search by email, name or distinct id
            <input
              type="search"
              value={search}
              onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <fieldset class="filter-row">
            <legend class="sr-only">Person property filter</legend>
            <label>
              Property
              <input
                list="person-property-keys"
                value={property.key}
                placeholder="e.g. plan"
                onInput={(e) =>
                  setProperty({ ...property, key: (e.currentTarget as HTMLInputElement).value })
                }
              />
              <datalist id="person-property-keys">
                {keys.data?.results.map((d) => (
                  <option key={d.name} value={d.name} />
                ))}
              </datalist>
            </label>
            <label>
              Operator
              <select
                value={property.operator}
                onChange={(e) =>
                  setProperty({ ...property, operator: (e.currentTarget as HTMLSelectElement).value })
                }
              >
                {OPERATORS.map(([op, label]) => (
                  <option key={op} value={op}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            {!valueless && (
              <label>
                Value
                <input
                  value={property.value}
                  onInput={(e) =>
                    setProperty({ ...property, value: (e.currentTarget as HTMLInputElement).value })
                  }
                />
              </label>
            )}
          </fieldset>
          <button type="submit" class="primary">
            Search
          </button>
        </form>
        <ListTable
          items={page?.results ?? null}
          error={error}
          loading={<div class="skeleton" style={{ height: '160px', marginTop: '1rem' }} />}
          empty="Nobody matches."
          columns={['Person', 'Distinct ids', 'Last seen', `First seen (${zoneLabel(team.timezone)})`]}
          rowKey={(p) => p.uuid}
          cells={(p) => (
            <>
              <td>
                <a href={`/people/${p.uuid}`}>{displayName(p)}</a>
              </td>
              <td class="ellipsis" style={{ maxWidth: '20rem' }}>
                {p.distinct_ids.join(', ')}
              </td>
              <td>{p.uuid in lastSeen ? ago(lastSeen[p.uuid]) : '…'}</td>
              <td>{formatDate(p.created_at, team.timezone)}</td>
            </>
          )}
        />
        {next && (
          <button type="button" onClick={() => setUrl(`${next.pathname}${next.search}`)}>
            Next page
          </button>
        )}
      </section>
    </div>
  );
}

/** Deleting a person, with PostHog's choice of also deleting their events. */
function DeletePerson({ person }: { person: Person }) {
  const { team } = useSession();
  const { route } = useLocation();
  const [withEvents, setWithEvents] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    const what = withEvents ? ' and all their events' : '';
    if (!confirm(`Delete ${displayName(person)}${what}? This cannot be undone.`)) return;
    setError(null);
    try {
      await api(
        'DELETE',
        `/api/projects/${team.id}/persons/${person.uuid}/${withEvents ? '?delete_events=true' : ''}`,
      );
      route('/people');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card" style={{ marginTop: '1rem' }}>
      <h2>Delete this person</h2>
      <p class="muted small">Their distinct ids are freed: new events from them make a new person.</p>
      <div class="row wrap">
        <label class="check">
          <input
            type="checkbox"
            checked={withEvents}
            onChange={(e) => setWithEvents((e.currentTarget as HTMLInputElement).checked)}
          />
          Also delete their events
        </label>
        <button type="button" class="danger" onClick={remove}>
          Delete person
        </button>
      </div>
      {error !== null && <ErrorNote error={error} />}
    </section>
  );
}

interface RecordingRow {
  id: string;
  start_time: string;
  recording_duration: number;
}

export function PersonPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const [person, setPerson] = useState<Person | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [recordings, setRecordings] = useState<RecordingRow[]>([]);
  useEffect(() => {
    get<Person>(`/api/projects/${team.id}/persons/${encodeURIComponent(params.id ?? '')}/`).then(
      setPerson,
      setError,
    );
    get<{ results: RecordingRow[] }>(
      `/api/environments/${team.id}/session_recordings/?person_uuid=${encodeURIComponent(params.id ?? '')}&date_from=-90d&limit=20`,
    ).then(
      (r) => setRecordings(r.results),
      () => undefined,
    );
  }, [team.id, params.id]);
  if (error)
    return (
      <ErrorNote
        error={
          error instanceof ApiFailure && error.status === 404
            ? new Error('This person does not exist (any more).')
            : error
        }
      />
    );
  if (!person) return <div class="skeleton" style={{ height: '240px' }} />;
  return (
    <div class="page">
      <h1>{displayName(person)}</h1>
      <PersonLastSeen projectId={team.id} uuid={person.uuid} />
      <div class="grid two">
        <section class="card">
          <h2>Properties</h2>
          <PropertyTable properties={person.properties} />
        </section>
        <section class="card">
          <h2>Distinct ids</h2>
          <ul>
            {person.distinct_ids.map((d) => (
              <li key={d}>
                <code>{d}</code>
              </li>
            ))}
          </ul>
          <h2>Recordings</h2>
          {recordings.length === 0 && <p class="muted">No recordings in the last 90 days.</p>}
          <ul>
            {recordings.map((r) => (
              <li key={r.id}>
                <a href={`/recordings/${encodeURIComponent(r.id)}`}>
                  {formatDateTime(r.start_time, team.timezone)} {zoneLabel(team.timezone)}
                </a>
              </li>
            ))}
          </ul>
        </section>
      </div>
      <section class="card" style={{ marginTop: '1rem' }}>
        <h2>Events</h2>
        <EventList query={eventsQuery({ event: '', after: '-30d', key: '', value: '' }, person.uuid)} />
      </section>
      <DeletePerson person={person} />
    </div>
  );
}

function PersonLastSeen({ projectId, uuid }: { projectId: number; uuid: string }) {
  const seen = useLastSeen(projectId, [uuid]);
  return <p class="muted">{uuid in seen ? `Last seen ${ago(seen[uuid])}` : 'Last seen …'}</p>;
}
