import { useEffect, useState } from 'preact/hooks';
import { get } from '../../api';
import { useSession } from '../../session';

/** The project's event names, for the filter's suggestions. */
function useEventNames() {
  const { team } = useSession();
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    get<{ results: Array<{ name: string }> }>(`/api/projects/${team.id}/event_definitions/?limit=500`).then(
      (r) => setNames(r.results.map((d) => d.name)),
      () => setNames([]),
    );
  }, [team.id]);
  return names;
}

/** The events a destination runs on, by name (none: every event), with the project's names suggested. */
export function EventsFilter({ events, onChange }: { events: string[]; onChange: (e: string[]) => void }) {
  const names = useEventNames();
  const [draft, setDraft] = useState('');
  const add = () => {
    const name = draft.trim();
    if (name && !events.includes(name)) onChange([...events, name]);
    setDraft('');
  };
  return (
    <div class="events-filter">
      {events.length === 0 ? (
        <p class="muted small">Every event: add event names to run only on those.</p>
      ) : (
        <ul class="chips" aria-label="Events it runs on">
          {events.map((e) => (
            <li key={e} class="chip">
              <code>{e}</code>
              <button
                type="button"
                class="link"
                aria-label={`Remove event ${e}`}
                onClick={() => onChange(events.filter((x) => x !== e))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="row wrap">
        <label>
          Event name
          <input
            list="destination-event-names"
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter adds the event rather than submitting the whole form.
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
        </label>
        <datalist id="destination-event-names">
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <button type="button" onClick={add} disabled={!draft.trim()}>
          Add event
        </button>
      </div>
    </div>
  );
}
