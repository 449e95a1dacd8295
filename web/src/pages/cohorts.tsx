import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import { ErrorNote } from '../components/error-note';
import { ListTable } from '../components/list-table';
import { useList, useResource } from '../components/use-resource';
import { useSession } from '../session';

interface Cohort {
  id: number;
  name: string | null;
  is_static: boolean;
  count: number | null;
  is_calculating: boolean;
  last_calculation: string | null;
  errors_calculating: number;
}

/** Cohorts: who is in each, how fresh that is; new ones from a person property or a list of ids. */
export function Cohorts() {
  const { team } = useSession();
  const base = `/api/projects/${team.id}/cohorts/`;
  const { list, error, setError, reload } = useList<Cohort>(`${base}?limit=200`);
  const [kind, setKind] = useState<'property' | 'static'>('property');
  useEffect(() => {
    // Calculations run in the background: keep the counts current while any is running.
    const timer = setInterval(() => void reload(), 3000);
    return () => clearInterval(timer);
  }, [reload]);
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(null);
    try {
      if (kind === 'property') {
        await api('POST', base, {
          name: data.get('name'),
          filters: {
            properties: {
              type: 'AND',
              values: [{ type: 'person', key: data.get('key'), value: data.get('value'), operator: 'exact' }],
            },
          },
        });
      } else {
        const cohort = await api<{ id: number }>('POST', base, { name: data.get('name'), is_static: true });
        const ids = String(data.get('ids') ?? '')
          .split(/[\s,]+/)
          .filter(Boolean);
        if (ids.length > 0)
          await api('PATCH', `${base}${cohort.id}/add_persons_to_static_cohort/`, { distinct_ids: ids });
      }
      form.reset();
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <h1>Cohorts</h1>
      <section class="card">
        <ListTable
          items={list}
          error={error}
          empty="No cohorts yet."
          columns={['Name', 'Kind', 'People', 'Calculated']}
          rowKey={(c) => c.id}
          cells={(c) => (
            <>
              <td>
                <a href={`/cohorts/${c.id}`}>{c.name || `Cohort ${c.id}`}</a>
              </td>
              <td>{c.is_static ? 'static' : 'dynamic'}</td>
              <td>{c.count ?? '…'}</td>
              <td>
                {c.is_calculating
                  ? 'calculating…'
                  : c.errors_calculating > 0
                    ? 'failed'
                    : c.last_calculation
                      ? new Date(c.last_calculation).toLocaleString()
                      : 'not yet'}
              </td>
            </>
          )}
        />
        <h3>New cohort</h3>
        <form class="row wrap" onSubmit={create}>
          <label>
            Name
            <input name="name" required maxLength={400} />
          </label>
          <label>
            Members
            <select
              value={kind}
              onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as 'property' | 'static')}
            >
              <option value="property">with a person property</option>
              <option value="static">from a list of distinct ids</option>
            </select>
          </label>
          {kind === 'property' ? (
            <>
              <label>
                Property
                <input name="key" required placeholder="plan" />
              </label>
              <label>
                equals
                <input name="value" required placeholder="pro" />
              </label>
            </>
          ) : (
            <label>
              Distinct ids (comma or space separated)
              <input name="ids" placeholder="user-1, user-2" />
            </label>
          )}
          <button type="submit" class="primary">
            Create cohort
          </button>
        </form>
      </section>
    </div>
  );
}

interface Member {
  uuid: string;
  name?: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/** One cohort: who is in it (as calculated last), and deleting it. */
export function CohortPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const { route } = useLocation();
  const base = `/api/projects/${team.id}/cohorts/${encodeURIComponent(params.id ?? '')}/`;
  const cohort = useResource<Cohort>(base);
  const [url, setUrl] = useState(`${base}persons/?limit=100`);
  const members = useResource<{ results: Member[]; next: string | null }>(url);
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    const name = cohort.data?.name || `Cohort ${params.id}`;
    if (!confirm(`Delete the cohort "${name}"? Flags and insights using it stop matching anyone.`)) return;
    try {
      // PostHog deletes cohorts softly, with a PATCH; a DELETE is refused.
      await api('PATCH', base, { deleted: true });
      route('/cohorts');
    } catch (e) {
      setError(e);
    }
  };
  const c = cohort.data;
  const next = members.data?.next ? new URL(members.data.next, window.location.origin) : null;
  return (
    <div class="page">
      <h1>{c ? c.name || `Cohort ${c.id}` : 'Cohort'}</h1>
      {cohort.error !== null && <ErrorNote error={cohort.error} />}
      {c && (
        <p class="muted">
          {c.is_static ? 'Static' : 'Dynamic'} · {c.count ?? '…'} people ·{' '}
          {c.is_calculating ? 'calculating…' : c.last_calculation ? 'calculated' : 'not calculated yet'}
        </p>
      )}
      <section class="card">
        <h2>Members</h2>
        <ListTable
          items={members.data?.results ?? null}
          error={members.error}
          loading={<p class="muted">Loading…</p>}
          empty="Nobody is in this cohort (yet)."
          columns={['Person', 'Distinct ids']}
          rowKey={(m) => m.uuid}
          cells={(m) => (
            <>
              <td>
                <a href={`/people/${m.uuid}`}>
                  {m.name || String(m.properties.email ?? m.distinct_ids[0] ?? m.uuid)}
                </a>
              </td>
              <td class="ellipsis" style={{ maxWidth: '20rem' }}>
                {m.distinct_ids.join(', ')}
              </td>
            </>
          )}
        />
        {next && (
          <button type="button" onClick={() => setUrl(`${next.pathname}${next.search}`)}>
            Next page
          </button>
        )}
      </section>
      {error !== null && <ErrorNote error={error} />}
      <div class="row">
        <button type="button" class="danger" onClick={remove}>
          Delete cohort
        </button>
      </div>
    </div>
  );
}
