import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ApiFailure, get } from '../api';
import { ErrorNote } from '../components/error-note';
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

export function People() {
  const { team } = useSession();
  const [search, setSearch] = useState('');
  const [url, setUrl] = useState(`/api/projects/${team.id}/persons/?limit=50`);
  const { data: page, error, reload } = useResource<{ results: Person[]; next: string | null }>(url);
  const submit = (event: Event) => {
    event.preventDefault();
    const searched = `/api/projects/${team.id}/persons/?limit=50${search ? `&search=${encodeURIComponent(search)}` : ''}`;
    // The same search again asks again (people may have arrived since); a new one loads afresh.
    if (searched === url) void reload();
    else setUrl(searched);
  };
  const next = page?.next ? new URL(page.next, window.location.origin) : null;
  return (
    <div class="page">
      <h1>People</h1>
      <section class="card">
        <form class="row wrap" onSubmit={submit}>
          <label>
            Search by email, name or distinct id
            <input
              type="search"
              value={search}
              onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" class="primary">
            Search
          </button>
        </form>
        <ListTable
          items={page?.results ?? null}
          error={error}
          loading={<div class="skeleton" style={{ height: '160px', marginTop: '1rem' }} />}
          empty="Nobody matches."
          columns={['Person', 'Distinct ids', `First seen (${zoneLabel(team.timezone)})`]}
          rowKey={(p) => p.uuid}
          cells={(p) => (
            <>
              <td>
                <a href={`/people/${p.uuid}`}>{displayName(p)}</a>
              </td>
              <td class="ellipsis" style={{ maxWidth: '20rem' }}>
                {p.distinct_ids.join(', ')}
              </td>
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
    </div>
  );
}
