import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, get } from '../api';
import { ErrorNote } from '../components/error-note';
import { ListTable } from '../components/list-table';
import { useList } from '../components/use-resource';
import { useSession } from '../session';

interface Condition {
  properties: { key: string; value: unknown; operator: string; type: string }[];
  rollout_percentage: number | null;
  variant?: string | null;
}
interface Flag {
  id: number;
  key: string;
  name: string;
  active: boolean;
  version?: number;
  filters: {
    groups: Condition[];
    multivariate?: { variants: { key: string; rollout_percentage: number }[] } | null;
    payloads?: Record<string, unknown>;
  };
  created_at: string;
}

const OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'gt',
  'lt',
  'is_set',
  'is_not_set',
];

export function Flags() {
  const { team } = useSession();
  const base = `/api/projects/${team.id}/feature_flags/`;
  const { list, error, setError, reload } = useList<Flag>(`${base}?limit=200`);
  const toggle = async (flag: Flag) => {
    try {
      await api('PATCH', `${base}${flag.id}/`, { active: !flag.active });
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    try {
      await api('POST', base, {
        key: data.get('key'),
        name: data.get('name') ?? '',
        active: true,
        filters: { groups: [{ properties: [], rollout_percentage: Number(data.get('rollout') ?? 100) }] },
      });
      form.reset();
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <h1>Feature flags</h1>
      <section class="card">
        <ListTable
          items={list}
          error={error}
          empty="No flags yet."
          columns={['Key', 'Name', 'Release', 'Active']}
          rowKey={(f) => f.id}
          cells={(f) => (
            <>
              <td>
                <a href={`/feature_flags/${f.id}`}>
                  <code>{f.key}</code>
                </a>
              </td>
              <td>{f.name}</td>
              <td>
                {f.filters.multivariate ? `${f.filters.multivariate.variants.length} variants · ` : ''}
                {f.filters.groups.length} condition{f.filters.groups.length === 1 ? '' : 's'}
              </td>
              <td>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={f.active}
                    onChange={() => toggle(f)}
                    aria-label={`${f.key} active`}
                  />
                  {f.active ? 'on' : 'off'}
                </label>
              </td>
            </>
          )}
        />
        <h3>New flag</h3>
        <form class="row wrap" onSubmit={create}>
          <label>
            Key
            <input name="key" required pattern="[A-Za-z0-9_\-]+" maxLength={400} placeholder="new-checkout" />
          </label>
          <label>
            Description
            <input name="name" maxLength={400} />
          </label>
          <label>
            Roll out to (%)
            <input name="rollout" type="number" min={0} max={100} value={100} />
          </label>
          <button type="submit" class="primary">
            Create flag
          </button>
        </form>
      </section>
    </div>
  );
}

export function FlagPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const url = `/api/projects/${team.id}/feature_flags/${encodeURIComponent(params.id ?? '')}/`;
  const [flag, setFlag] = useState<Flag | null>(null);
  const [draft, setDraft] = useState<Flag | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    get<Flag>(url).then((f) => {
      setFlag(f);
      setDraft(structuredClone(f));
    }, setError);
  }, [url]);
  if (!draft || !flag)
    return error ? <ErrorNote error={error} /> : <div class="skeleton" style={{ height: '240px' }} />;
  const set = (patch: Partial<Flag['filters']>) =>
    setDraft({ ...draft, filters: { ...draft.filters, ...patch } });
  const setGroup = (i: number, patch: Partial<Condition>) =>
    set({ groups: draft.filters.groups.map((g, j) => (j === i ? { ...g, ...patch } : g)) });
  const variants = draft.filters.multivariate?.variants ?? [];
  const setVariants = (next: { key: string; rollout_percentage: number }[]) =>
    set({ multivariate: next.length > 0 ? { variants: next } : null });
  const total = variants.reduce((a, v) => a + v.rollout_percentage, 0);
  const save = async () => {
    setError(null);
    setSaved(false);
    try {
      const next = await api<Flag>('PATCH', url, {
        name: draft.name,
        active: draft.active,
        filters: draft.filters,
        ...(flag.version !== undefined ? { version: flag.version } : {}),
      });
      setFlag(next);
      setDraft(structuredClone(next));
      setSaved(true);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <h1>
        <code>{flag.key}</code>
      </h1>
      <section class="card form">
        <label>
          Description
          <input
            value={draft.name}
            onInput={(e) => setDraft({ ...draft, name: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.active}
            onChange={() => setDraft({ ...draft, active: !draft.active })}
          />{' '}
          Active
        </label>
      </section>
      <section class="card">
        <h2>Conditions (the first that matches decides)</h2>
        {draft.filters.groups.map((g, i) => (
          <fieldset class="condition" key={i}>
            <legend>Condition {i + 1}</legend>
            {g.properties.map((p, j) => (
              <div class="row wrap" key={j}>
                <label>
                  Person property
                  <input
                    value={p.key}
                    onInput={(e) =>
                      setGroup(i, {
                        properties: g.properties.map((x, k) =>
                          k === j ? { ...x, key: (e.currentTarget as HTMLInputElement).value } : x,
                        ),
                      })
                    }
                  />
                </label>
                <label>
                  Operator
                  <select
                    value={p.operator}
                    onChange={(e) =>
                      setGroup(i, {
                        properties: g.properties.map((x, k) =>
                          k === j ? { ...x, operator: (e.currentTarget as HTMLSelectElement).value } : x,
                        ),
                      })
                    }
                  >
                    {OPERATORS.map((o) => (
                      <option key={o}>{o}</option>
                    ))}
                  </select>
                </label>
                <label>
                  Value
                  <input
                    value={Array.isArray(p.value) ? p.value.join(', ') : String(p.value ?? '')}
                    onInput={(e) =>
                      setGroup(i, {
                        properties: g.properties.map((x, k) =>
                          k === j ? { ...x, value: (e.currentTarget as HTMLInputElement).value } : x,
                        ),
                      })
                    }
                  />
                </label>
                <button
                  type="button"
                  class="link"
                  onClick={() => setGroup(i, { properties: g.properties.filter((_, k) => k !== j) })}
                >
                  Remove
                </button>
              </div>
            ))}
            <div class="row wrap">
              <button
                type="button"
                class="link"
                onClick={() =>
                  setGroup(i, {
                    properties: [
                      ...g.properties,
                      { key: 'email', operator: 'icontains', value: '', type: 'person' },
                    ],
                  })
                }
              >
                + Property
              </button>
              <label>
                Roll out to (%)
                <input
                  type="number"
                  min={0}
                  max={100}
                  value={g.rollout_percentage ?? 100}
                  onInput={(e) =>
                    setGroup(i, { rollout_percentage: Number((e.currentTarget as HTMLInputElement).value) })
                  }
                />
              </label>
              {draft.filters.groups.length > 1 && (
                <button
                  type="button"
                  class="link danger"
                  onClick={() => set({ groups: draft.filters.groups.filter((_, k) => k !== i) })}
                >
                  Remove condition
                </button>
              )}
            </div>
          </fieldset>
        ))}
        <button
          type="button"
          onClick={() =>
            set({ groups: [...draft.filters.groups, { properties: [], rollout_percentage: 100 }] })
          }
        >
          Add condition
        </button>
      </section>
      <section class="card">
        <h2>Variants</h2>
        {variants.length === 0 && (
          <p class="muted">
            A boolean flag. Add variants for an experiment (their shares must add up to 100%).
          </p>
        )}
        {variants.map((v, i) => (
          <div class="row wrap" key={i}>
            <label>
              Variant key
              <input
                value={v.key}
                onInput={(e) =>
                  setVariants(
                    variants.map((x, k) =>
                      k === i ? { ...x, key: (e.currentTarget as HTMLInputElement).value } : x,
                    ),
                  )
                }
              />
            </label>
            <label>
              Share (%)
              <input
                type="number"
                min={0}
                max={100}
                value={v.rollout_percentage}
                onInput={(e) =>
                  setVariants(
                    variants.map((x, k) =>
                      k === i
                        ? { ...x, rollout_percentage: Number((e.currentTarget as HTMLInputElement).value) }
                        : x,
                    ),
                  )
                }
              />
            </label>
            <button
              type="button"
              class="link"
              onClick={() => setVariants(variants.filter((_, k) => k !== i))}
            >
              Remove
            </button>
          </div>
        ))}
        <div class="row wrap">
          <button
            type="button"
            onClick={() =>
              setVariants([
                ...variants,
                { key: variants.length === 0 ? 'control' : `test-${variants.length}`, rollout_percentage: 0 },
              ])
            }
          >
            Add variant
          </button>
          {variants.length > 0 && (
            <span class={total === 100 ? 'muted' : 'danger'}>Shares add up to {total}%</span>
          )}
        </div>
      </section>
      {error !== null && <ErrorNote error={error} />}
      <div class="row">
        <button type="button" class="primary" onClick={save}>
          Save flag
        </button>
        {saved && <span role="status">Saved. SDKs see the change on their next /flags request.</span>}
      </div>
    </div>
  );
}
