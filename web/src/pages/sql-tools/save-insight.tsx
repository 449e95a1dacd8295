import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { useList } from '../../components/use-resource';

/**
 * Saves the query as PostHog saves a SQL insight (a HogQLQuery inside a DataVisualizationNode) and,
 * when a dashboard is chosen, puts it there as a tile through the insight's `dashboards`.
 */
export function SaveInsight({
  projectId,
  query,
  initialName = '',
  onError,
}: {
  projectId: number;
  query: () => string;
  initialName?: string;
  onError: (e: unknown) => void;
}) {
  const dashboards =
    useList<{ id: number; name: string | null }>(`/api/projects/${projectId}/dashboards/?limit=100`).list ??
    [];
  const [target, setTarget] = useState('');
  const [name, setName] = useState(initialName);
  // A saved insight opened later in the page names the form, unless something was typed.
  useEffect(() => {
    if (initialName) setName((typed) => typed || initialName);
  }, [initialName]);
  const [saved, setSaved] = useState<{ name: string; dashboard: { id: number; name: string } | null } | null>(
    null,
  );
  const save = async (event: Event) => {
    event.preventDefault();
    const dashboard = dashboards.find((d) => String(d.id) === target) ?? null;
    try {
      await api('POST', `/api/projects/${projectId}/insights/`, {
        name: name.trim(),
        saved: true,
        query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: query() } },
        ...(dashboard ? { dashboards: [dashboard.id] } : {}),
      });
      setSaved({
        name: name.trim(),
        dashboard: dashboard
          ? { id: dashboard.id, name: dashboard.name || `Dashboard ${dashboard.id}` }
          : null,
      });
    } catch (e) {
      onError(e);
    }
  };
  return (
    <form class="row wrap" onSubmit={save}>
      <label>
        Insight name
        <input
          name="name"
          required
          maxLength={400}
          placeholder="e.g. Signups by day"
          value={name}
          onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <label>
        Dashboard
        <select
          aria-label="Dashboard"
          value={target}
          onChange={(e) => setTarget((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">None (save only)</option>
          {dashboards.map((d) => (
            <option key={d.id} value={String(d.id)}>
              {d.name || `Dashboard ${d.id}`}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">{target ? 'Save and add to dashboard' : 'Save as insight'}</button>
      {saved && (
        <span role="status">
          Saved as “{saved.name}”
          {saved.dashboard ? (
            <>
              {' '}
              and added to <a href={`/dashboards/${saved.dashboard.id}`}>{saved.dashboard.name}</a>.
            </>
          ) : (
            ': it can now go on a dashboard.'
          )}
        </span>
      )}
    </form>
  );
}
