import { useEffect, useState } from 'preact/hooks';
import { api, type Team } from '../api';
import { ErrorNote } from '../components/error-note';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';

interface Storage {
  tables: Array<{ table: string; rows: number; estimated_bytes: number }>;
  estimated_bytes: number;
  oldest_event: string | null;
}

const TABLE_NAMES: Record<string, string> = {
  events: 'Events',
  sessions: 'Sessions',
  session_replay_events: 'Recordings (summaries)',
  session_replay_snapshots: 'Recordings (snapshots)',
  person: 'Persons',
  person_distinct_id2: 'Distinct ids',
  groups: 'Groups',
  cohort_people: 'Cohort members',
  logs: 'Logs',
};

const bytes = (n: number) => {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
};

interface Deletion {
  id: number;
  scope: 'events' | 'recordings';
  status: 'queued' | 'running' | 'done' | 'failed';
  persons: number;
  progress: number;
  rows_deleted: number;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

const STATUS: Record<Deletion['status'], string> = {
  queued: 'Waiting',
  running: 'Deleting',
  done: 'Done',
  failed: 'Failed',
};

/** Persons' data being deleted in the background, refreshed while any is unfinished. */
function Deletions() {
  const { team } = useSession();
  const list = useResource<{ count: number; results: Deletion[] }>(
    `/api/projects/${team.id}/data_deletions/?limit=20`,
  );
  const busy = list.data?.results.some((d) => d.status === 'queued' || d.status === 'running') ?? false;
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => void list.reload(), 2000);
    return () => clearInterval(timer);
  }, [busy, list.reload]);
  if (list.error !== null) return <ErrorNote error={list.error} />;
  if (!list.data || list.data.count === 0) return null;
  return (
    <section class="card" aria-labelledby="deletions-title">
      <h2 id="deletions-title">Deletions</h2>
      <p class="muted">
        Events and recordings of deleted persons are removed in the background. Anything captured after the
        request is kept.
      </p>
      <table class="simple stack">
        <thead>
          <tr>
            <th scope="col">Asked</th>
            <th scope="col">What</th>
            <th scope="col">Progress</th>
            <th scope="col" class="num">
              Rows deleted
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data.results.map((d) => (
            <tr key={d.id}>
              <td data-label="Asked">{new Date(d.created_at).toLocaleString()}</td>
              <td class="wrap">
                {d.scope === 'events' ? 'Events and recordings' : 'Recordings'} of {d.persons}{' '}
                {d.persons === 1 ? 'person' : 'persons'}
              </td>
              <td data-label="Progress">
                <progress value={d.progress} max={1} aria-label={`Deletion ${d.id}`} />{' '}
                <span>{STATUS[d.status]}</span>
                {d.error && <span class="muted"> · {d.error}</span>}
              </td>
              <td class="num" data-label="Rows deleted">
                {d.rows_deleted.toLocaleString()}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const RECORDING_PERIODS: Array<[string, string]> = [
  ['', 'Keep for ever'],
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['1y', '1 year'],
  ['5y', '5 years'],
];

/** Retention periods and the disk the project uses (docs/operations.md, "Retention"). */
export function DataRetention() {
  const { team, refresh } = useSession();
  const storage = useResource<Storage>(`/api/projects/${team.id}/storage/`);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const days = team.events_retention_days as number | null | undefined;
  const period = (team.session_recording_retention_period as string | null | undefined) ?? '';
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = String(form.get('days') ?? '').trim();
    setError(null);
    try {
      await api<Team>('PATCH', `/api/projects/${team.id}/`, {
        events_retention_days: text === '' ? null : Number(text),
        session_recording_retention_period: form.get('recordings') || null,
      });
      await refresh();
      void storage.reload();
      setSaved(true);
      setTimeout(() => setSaved(false), 2000);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <section class="card" aria-labelledby="retention-title">
        <h2 id="retention-title">Data retention</h2>
        <p class="muted">
          Older data disappears from every query as soon as you save, and is deleted from disk within the
          hour. Deleted data does not come back.
        </p>
        {/* Uncontrolled fields: a re-render (the disk table arriving) must not undo what is being
            typed; the key starts them afresh when the saved values change. */}
        <form class="form" onSubmit={submit} key={`${days ?? ''}-${period}`}>
          <label>
            Keep events for (days; empty keeps everything)
            <input
              name="days"
              type="number"
              min={1}
              max={36500}
              step={1}
              defaultValue={days === null || days === undefined ? '' : String(days)}
              inputMode="numeric"
            />
          </label>
          <label>
            Keep recordings for
            <select name="recordings">
              {RECORDING_PERIODS.map(([value, label]) => (
                <option key={value} value={value} selected={value === period}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {error !== null && <ErrorNote error={error} />}
          <div class="row">
            <button type="submit" class="primary">
              Save
            </button>
            {saved && <span role="status">Saved</span>}
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="storage-title">
        <h2 id="storage-title">Disk used</h2>
        {storage.error !== null && <ErrorNote error={storage.error} />}
        {storage.data === null && storage.error === null && <p class="muted">Measuring…</p>}
        {storage.data && (
          <>
            <p>
              About <strong>{bytes(storage.data.estimated_bytes)}</strong>
              {storage.data.oldest_event && (
                <> · oldest event {new Date(storage.data.oldest_event).toLocaleDateString()}</>
              )}
            </p>
            <table class="simple">
              <thead>
                <tr>
                  <th scope="col">Data</th>
                  <th scope="col" class="num">
                    Rows
                  </th>
                  <th scope="col" class="num">
                    Disk (estimated)
                  </th>
                </tr>
              </thead>
              <tbody>
                {storage.data.tables
                  .filter((t) => t.rows > 0)
                  .map((t) => (
                    <tr key={t.table}>
                      <th scope="row">{TABLE_NAMES[t.table] ?? t.table}</th>
                      <td class="num">{t.rows.toLocaleString()}</td>
                      <td class="num">{bytes(t.estimated_bytes)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
            <p class="muted">
              Tables hold every project's rows together; each project's share is estimated by rows.
            </p>
          </>
        )}
      </section>
      <Deletions />
    </>
  );
}
