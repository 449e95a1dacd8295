import { useState } from 'preact/hooks';
import { api } from '../../api';
import { ErrorNote } from '../../components/error-note';
import { useList } from '../../components/use-resource';
import { useSession } from '../../session';
import { fromPropertyFilter, type PropertyFilter, toPropertyFilter } from '../insights/form';
import { describeFilter, PropertyFilters } from '../insights/property-filters';

type Kind = 'suppression_rules' | 'grouping_rules';
const KINDS: Record<Kind, { title: string; help: string }> = {
  suppression_rules: {
    title: 'Suppression rules',
    help: 'An exception matching one is dropped at capture (not stored).',
  },
  grouping_rules: {
    title: 'Grouping rules',
    help: 'Exceptions matching one form a single issue, whatever their stack.',
  },
};

interface Rule {
  id: string;
  filters: unknown;
  order_key: number;
  description?: string | null;
  matched_count?: number;
  issue?: { id: string; name: string | null } | null;
}

/** The leaf filters of a property group, as people read them (nested groups flattened). */
function describe(filters: unknown): string {
  const leaves: PropertyFilter[] = [];
  const walk = (g: unknown, depth: number) => {
    if (depth > 4 || !g || typeof g !== 'object') return;
    const values = (g as { values?: unknown }).values;
    if (Array.isArray(values)) {
      for (const v of values) walk(v, depth + 1);
      return;
    }
    const f = fromPropertyFilter(g);
    if (f) leaves.push(f);
  };
  walk(filters, 0);
  const type = (filters as { type?: string } | null)?.type === 'OR' ? ' or ' : ' and ';
  return leaves.length ? leaves.map((f) => describeFilter(f)).join(type) : 'every exception';
}

/** One kind of rule: its list in the order capture applies them, moves, delete. */
function RuleList({ kind, teamId }: { kind: Kind; teamId: number }) {
  const base = `/api/environments/${teamId}/error_tracking/${kind}/`;
  const { list, error, setError, reload } = useList<Rule>(`${base}?limit=200`);
  const [busy, setBusy] = useState(false);
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await fn();
      await reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  /** Swaps a rule with its neighbour: every rule of the kind gets its place as its order key. */
  const move = (from: number, to: number) =>
    act(async () => {
      const ids = (list ?? []).map((r) => r.id);
      const [id] = ids.splice(from, 1);
      ids.splice(to, 0, id as string);
      await api('PATCH', `${base}reorder/`, { orders: Object.fromEntries(ids.map((r, i) => [r, i])) });
    });
  const { title, help } = KINDS[kind];
  return (
    <div class="rule-block">
      <h3>{title}</h3>
      <p class="muted">{help} The first that matches applies.</p>
      {error ? <ErrorNote error={error} /> : null}
      {list === null ? (
        <div class="skeleton" style={{ height: '48px' }} />
      ) : list.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <ul class="rules" aria-label={title}>
          {list.map((r, i) => (
            <li key={r.id} class="row wrap">
              <span class="grow">
                <span class="muted">{i + 1}. </span>
                <code>{describe(r.filters)}</code>
                {r.description ? <span class="muted"> — {r.description}</span> : null}
                {kind === 'suppression_rules' ? (
                  <span class="muted"> · {(r.matched_count ?? 0).toLocaleString()} dropped</span>
                ) : r.issue ? (
                  <span class="muted">
                    {' '}
                    · <a href={`/errors/${r.issue.id}`}>{r.issue.name || 'issue'}</a>
                  </span>
                ) : null}
              </span>
              <span class="rule-actions">
                <button
                  type="button"
                  disabled={busy || i === 0}
                  aria-label={`Move rule ${i + 1} up`}
                  onClick={() => move(i, i - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  disabled={busy || i === list.length - 1}
                  aria-label={`Move rule ${i + 1} down`}
                  onClick={() => move(i, i + 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  aria-label={`Delete rule ${i + 1}`}
                  onClick={() => {
                    if (confirm(`Delete this rule (${describe(r.filters)})?`))
                      void act(() => api('DELETE', `${base}${r.id}/`));
                  }}
                >
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Grouping and suppression rules (PostHog's `error_tracking/*_rules`): listed in the order capture
 * applies them, created from property filters on the exception event, reordered, deleted.
 */
export function RulesSection() {
  const { team } = useSession();
  const [kind, setKind] = useState<Kind>('suppression_rules');
  const [filters, setFilters] = useState<PropertyFilter[]>([]);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  const [saving, setSaving] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaving(true);
    try {
      const body: Record<string, unknown> = {
        filters: { type: 'AND', values: filters.map(toPropertyFilter) },
      };
      if (kind === 'grouping_rules' && description.trim()) body.description = description.trim();
      await api('POST', `/api/environments/${team.id}/error_tracking/${kind}/`, body);
      setFilters([]);
      setDescription('');
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  return (
    <section class="card rule-block" aria-labelledby="rules-heading">
      <h2 id="rules-heading">Rules</h2>
      <RuleList key={`s${version}`} kind="suppression_rules" teamId={team.id} />
      <RuleList key={`g${version}`} kind="grouping_rules" teamId={team.id} />
      <form class="rule-block" onSubmit={create} aria-label="New rule">
        <h3>New rule</h3>
        <label>
          Kind{' '}
          <select
            class="rule-kind"
            value={kind}
            onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as Kind)}
          >
            <option value="suppression_rules">Suppress (drop at capture)</option>
            <option value="grouping_rules">Group into one issue</option>
          </select>
        </label>
        <PropertyFilters
          teamId={team.id}
          filters={filters}
          onChange={setFilters}
          label="the new rule"
          events={['$exception']}
        />
        {kind === 'grouping_rules' ? (
          <label>
            Description{' '}
            <input
              value={description}
              maxLength={1000}
              onInput={(e) => setDescription((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
        ) : null}
        {error ? <ErrorNote error={error} /> : null}
        <div class="row">
          <button type="submit" class="primary" disabled={saving || filters.length === 0}>
            Add rule
          </button>
        </div>
      </form>
    </section>
  );
}
