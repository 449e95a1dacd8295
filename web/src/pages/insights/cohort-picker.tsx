import { cohortOptions, useSuggestions } from './property-filters';

/**
 * The cohorts a trend is broken down by: a multiple select (keyboard: arrows, Shift/Ctrl+Space)
 * of the project's cohorts plus "All users"; the value is the ids joined with commas.
 */
export function CohortPicker({
  teamId,
  value,
  onChange,
}: {
  teamId: number;
  value: string;
  onChange: (next: string) => void;
}) {
  const cohorts = useSuggestions(`/api/projects/${teamId}/cohorts/?limit=200`, cohortOptions);
  const chosen = new Set(value.split(',').filter(Boolean));
  const options = [['all', 'All users'], ...cohorts.map((c) => c.split('\t'))] as [string, string][];
  // A saved choice stays an option (and selected) until the list arrives, and if it is not in it:
  // otherwise the next change would silently drop it.
  for (const id of chosen)
    if (!options.some(([o]) => o === id))
      options.push([id, cohorts.length ? `Cohort ${id} (deleted?)` : `Cohort ${id}…`]);
  return (
    <label class="cohort-picker">
      Breakdown by cohorts
      <select
        multiple
        size={Math.min(5, options.length)}
        onChange={(e) =>
          onChange([...(e.currentTarget as HTMLSelectElement).selectedOptions].map((o) => o.value).join(','))
        }
      >
        {options.map(([id, name]) => (
          <option key={id} value={id} selected={chosen.has(id)}>
            {name}
          </option>
        ))}
      </select>
      {cohorts.length === 0 && (
        <span class="muted small">
          No cohorts yet: <a href="/cohorts">create one</a>
        </span>
      )}
    </label>
  );
}
