import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { get } from '../../api';
import { OPERATORS, type Operator, type PropertyFilter, VALUELESS } from './form';

let nextId = 0;
const useId = (prefix: string) => useMemo(() => `${prefix}-${++nextId}`, []);

/** The project's cohorts as "id\tname" (one fetch gives both), for pickers and chips. */
export const cohortOptions = (d: unknown) =>
  ((d as { results?: { id: number; name: string | null }[] }).results ?? []).map(
    (c) => `${c.id}\t${c.name || `Cohort ${c.id}`}`,
  );

/**
 * A filter as people read it: `plan = pro`, `$browser is set`. A cohort by its name: the one
 * saved with the filter, else the project's list (a saved insight's filter holds only the id).
 */
export function describeFilter(f: PropertyFilter, cohortNames?: ReadonlyMap<string, string>): string {
  if (f.type === 'cohort') {
    const name = f.name ?? cohortNames?.get(String(f.value)) ?? `#${f.value}`;
    return `${f.operator === 'is_not' ? 'not in' : 'in'} cohort ${name}`;
  }
  const who = f.type === 'person' ? 'person.' : '';
  const op = OPERATORS[f.operator].split(' ')[0];
  return VALUELESS.has(f.operator)
    ? `${who}${f.key} ${OPERATORS[f.operator].slice(2)}`
    : `${who}${f.key} ${op} ${f.value}`;
}

/**
 * The property filters of a series or of the whole insight: each filter a chip that reopens its
 * editor, and a button that opens a new one.
 */
export function PropertyFilters({
  teamId,
  filters,
  onChange,
  label,
  events,
}: {
  teamId: number;
  filters: PropertyFilter[];
  onChange: (next: PropertyFilter[]) => void;
  /** What the filters belong to, for screen readers ("series 1", "the insight"). */
  label: string;
  /** The events the filters apply to, so their properties are suggested first. */
  events: string[];
}) {
  // -1: a new filter; an index: that filter; null: closed.
  const [editing, setEditing] = useState<number | null>(null);
  const hasCohort = filters.some((f) => f.type === 'cohort' && !f.name);
  const cohortList = useSuggestions(
    hasCohort ? `/api/projects/${teamId}/cohorts/?limit=200` : null,
    cohortOptions,
  );
  const cohortNames = useMemo(
    () => new Map(cohortList.map((c) => c.split('\t') as [string, string])),
    [cohortList],
  );
  const opener = useRef<HTMLButtonElement | null>(null);
  const close = () => {
    setEditing(null);
    // Back where the person was, so Escape does not lose their place on the page.
    requestAnimationFrame(() => opener.current?.focus());
  };
  return (
    <div class="filters">
      {filters.map((f, i) => (
        <span class="chip" key={`${f.key}-${i}`}>
          <button
            type="button"
            class="link"
            aria-label={`Edit filter ${describeFilter(f, cohortNames)} on ${label}`}
            onClick={(e) => {
              opener.current = e.currentTarget as HTMLButtonElement;
              setEditing(i);
            }}
          >
            {describeFilter(f, cohortNames)}
          </button>
          <button
            type="button"
            class="link"
            aria-label={`Remove filter ${describeFilter(f)} on ${label}`}
            onClick={() => onChange(filters.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </span>
      ))}
      <button
        type="button"
        class="link"
        aria-expanded={editing === -1}
        aria-label={`Add filter to ${label}`}
        onClick={(e) => {
          opener.current = e.currentTarget as HTMLButtonElement;
          setEditing(-1);
        }}
      >
        + Filter
      </button>
      {editing !== null && (
        <FilterEditor
          teamId={teamId}
          initial={editing >= 0 ? filters[editing] : undefined}
          events={events}
          label={label}
          onCancel={close}
          onApply={(f) => {
            onChange(editing >= 0 ? filters.map((g, j) => (j === editing ? f : g)) : [...filters, f]);
            close();
          }}
        />
      )}
    </div>
  );
}

function FilterEditor({
  teamId,
  initial,
  events,
  label,
  onApply,
  onCancel,
}: {
  teamId: number;
  initial?: PropertyFilter;
  events: string[];
  label: string;
  onApply: (f: PropertyFilter) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<PropertyFilter>(
    initial ?? { key: '', type: 'event', operator: 'exact', value: '' },
  );
  const keysId = useId('filter-keys');
  const keyInput = useRef<HTMLInputElement>(null);
  useEffect(() => keyInput.current?.focus(), []);
  const keys = useSuggestions(
    // Properties seen on the filtered events sort first, as in PostHog's picker.
    draft.type === 'cohort'
      ? null
      : `/api/projects/${teamId}/property_definitions/?type=${draft.type}&limit=50&search=${encodeURIComponent(draft.key)}${
          draft.type === 'event' && events.length
            ? `&event_names=${encodeURIComponent(JSON.stringify(events))}`
            : ''
        }`,
    (d) => ((d as { results?: { name: string }[] }).results ?? []).map((r) => r.name),
  );
  const values = useSuggestions(
    draft.key && draft.type !== 'cohort'
      ? `/api/projects/${teamId}/${draft.type === 'person' ? 'persons' : 'events'}/values/?key=${encodeURIComponent(draft.key)}`
      : null,
    (d) => (Array.isArray(d) ? (d as { name: unknown }[]).map((r) => String(r.name)) : []),
  );
  const shown = values
    .filter((v) => v.toLowerCase().includes(draft.value.toLowerCase()) && v !== draft.value)
    .slice(0, 8);
  const set = (patch: Partial<PropertyFilter>) => setDraft({ ...draft, ...patch });
  const cohort = draft.type === 'cohort';
  // The project's cohorts as "id\tname", fetched only once "Cohort" is chosen.
  const cohorts = useSuggestions(cohort ? `/api/projects/${teamId}/cohorts/?limit=200` : null, (d) =>
    ((d as { results?: { id: number; name: string | null }[] }).results ?? []).map(
      (c) => `${c.id}\t${c.name || `Cohort ${c.id}`}`,
    ),
  ).map((c) => c.split('\t') as [string, string]);
  return (
    <div class="popover" role="dialog" aria-label={`Property filter on ${label}`}>
      <form
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          }
        }}
        onSubmit={(e) => {
          e.preventDefault();
          if (cohort) {
            if (draft.value)
              onApply({ ...draft, key: 'id', name: cohorts.find(([id]) => id === draft.value)?.[1] });
          } else if (draft.key.trim()) onApply({ ...draft, key: draft.key.trim() });
        }}
      >
        <div class="row wrap">
          <label>
            Property type
            <select
              value={draft.type}
              onChange={(e) => {
                const type = (e.currentTarget as HTMLSelectElement).value as PropertyFilter['type'];
                set(type === 'cohort' ? { type, key: 'id', operator: 'exact', value: '' } : { type });
              }}
            >
              <option value="event">Event property</option>
              <option value="person">Person property</option>
              <option value="cohort">Cohort</option>
            </select>
          </label>
          {cohort ? (
            <>
              <label>
                Membership
                <select
                  value={draft.operator}
                  onChange={(e) =>
                    set({ operator: (e.currentTarget as HTMLSelectElement).value as Operator })
                  }
                >
                  <option value="exact">in</option>
                  <option value="is_not">not in</option>
                </select>
              </label>
              <label>
                Cohort
                <select
                  required
                  aria-label="Cohort"
                  value={draft.value}
                  onChange={(e) => set({ value: (e.currentTarget as HTMLSelectElement).value })}
                >
                  <option value="">Choose a cohort</option>
                  {cohorts.map(([id, name]) => (
                    <option key={id} value={id}>
                      {name}
                    </option>
                  ))}
                </select>
              </label>
            </>
          ) : (
            <>
              <label>
                Property
                <input
                  ref={keyInput}
                  list={keysId}
                  required
                  value={draft.key}
                  autoComplete="off"
                  onInput={(e) => set({ key: (e.currentTarget as HTMLInputElement).value })}
                />
                <datalist id={keysId}>
                  {keys.map((k) => (
                    <option key={k} value={k} />
                  ))}
                </datalist>
              </label>
              <label>
                Operator
                <select
                  value={draft.operator}
                  onChange={(e) =>
                    set({ operator: (e.currentTarget as HTMLSelectElement).value as Operator })
                  }
                >
                  {Object.entries(OPERATORS).map(([v, l]) => (
                    <option key={v} value={v}>
                      {l}
                    </option>
                  ))}
                </select>
              </label>
              {!VALUELESS.has(draft.operator) && (
                <label>
                  Value
                  <input
                    value={draft.value}
                    autoComplete="off"
                    onInput={(e) => set({ value: (e.currentTarget as HTMLInputElement).value })}
                  />
                </label>
              )}
            </>
          )}
        </div>
        {!cohort && !VALUELESS.has(draft.operator) && shown.length > 0 && (
          <fieldset class="suggestions">
            <legend class="muted small">Suggested values</legend>
            {shown.map((v) => (
              <button type="button" key={v} class="chip" onClick={() => set({ value: v })}>
                {v || '(empty)'}
              </button>
            ))}
          </fieldset>
        )}
        <div class="row">
          <button type="submit">Apply filter</button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <span class="muted small">Esc closes</span>
        </div>
      </form>
    </div>
  );
}

/**
 * Suggestions from the definitions Burrow keeps; a failed lookup only means no suggestions, the
 * filter can still be typed.
 */
export function useSuggestions(path: string | null, pick: (data: unknown) => string[]): string[] {
  const [list, setList] = useState<string[]>([]);
  useEffect(() => {
    if (!path) return setList([]);
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        get<unknown>(path, controller.signal).then(
          (d) => setList(pick(d)),
          () => undefined,
        ),
      120,
    );
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [path]);
  return list;
}
