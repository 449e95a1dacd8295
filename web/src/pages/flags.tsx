import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, get } from '../api';
import { ErrorNote } from '../components/error-note';
import { freshHogql } from '../components/fresh-hogql';
import { ListTable } from '../components/list-table';
import { useList } from '../components/use-resource';
import { useSession } from '../session';

interface Condition {
  properties: { key: string; value: unknown; operator?: string; type: string }[];
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

interface CohortOption {
  id: number;
  name: string | null;
}

/**
 * How often SDKs asked for this flag: posthog-js sends `$feature_flag_called` the first time a page
 * reads a flag's value, with the value it got, so these counts are exposures, not users.
 */
function FlagUsage({ projectId, flagKey }: { projectId: number; flagKey: string }) {
  const [rows, setRows] = useState<[string, number, number][] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    const key = flagKey.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
    freshHogql(
      projectId,
      `SELECT toString(properties.$feature_flag_response) AS value, count() AS calls, count(DISTINCT person_id) AS persons FROM events WHERE event = '$feature_flag_called' AND properties.$feature_flag = '${key}' AND timestamp > now() - INTERVAL 30 DAY GROUP BY value ORDER BY calls DESC LIMIT 50`,
      controller.signal,
    ).then(
      (r) => setRows(r.results as [string, number, number][]),
      (e) => (e as Error).name !== 'AbortError' && setError(e),
    );
    return () => controller.abort();
  }, [projectId, flagKey]);
  const total = rows?.reduce((sum, r) => sum + Number(r[1]), 0) ?? 0;
  return (
    <section class="card" style={{ marginTop: '1rem' }}>
      <h2>Usage (last 30 days)</h2>
      {error !== null && <ErrorNote error={error} />}
      {rows === null && error === null && <p class="muted">Counting…</p>}
      {rows && (
        <p role="status">
          Called {total} time{total === 1 ? '' : 's'} (<code>$feature_flag_called</code> events).
        </p>
      )}
      <ListTable
        items={rows && rows.length > 0 ? rows : null}
        columns={['Value', 'Calls', 'Persons']}
        rowKey={(r) => r[0]}
        cells={(r) => (
          <>
            <td>
              <code>{r[0] === '' ? '(none)' : r[0]}</code>
            </td>
            <td>{r[1]}</td>
            <td>{r[2]}</td>
          </>
        )}
      />
    </section>
  );
}

/** A payload per value (`true` for a boolean flag, each variant's key otherwise), edited as JSON. */
function payloadText(value: unknown) {
  // Stored as JSON text, as PostHog's UI sends payloads; older ones may be plain JSON values.
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export function FlagPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const { route } = useLocation();
  const cohorts = useList<CohortOption>(`/api/projects/${team.id}/cohorts/?limit=200`);
  const [payloads, setPayloads] = useState<Record<string, string>>({});
  const url = `/api/projects/${team.id}/feature_flags/${encodeURIComponent(params.id ?? '')}/`;
  const [flag, setFlag] = useState<Flag | null>(null);
  const [draft, setDraft] = useState<Flag | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    get<Flag>(url).then((f) => {
      setFlag(f);
      setDraft(structuredClone(f));
      setPayloads(
        Object.fromEntries(Object.entries(f.filters.payloads ?? {}).map(([k, v]) => [k, payloadText(v)])),
      );
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
  const payloadKeys = variants.length > 0 ? variants.map((v) => v.key) : ['true'];
  const save = async () => {
    setError(null);
    setSaved(false);
    // Only the payloads of values the flag has now; an empty field means no payload.
    const parsed: Record<string, unknown> = {};
    for (const key of payloadKeys) {
      const text = payloads[key]?.trim();
      if (!text) continue;
      try {
        JSON.parse(text);
        parsed[key] = text;
      } catch {
        setError(new Error(`The payload of "${key}" is not valid JSON.`));
        return;
      }
    }
    try {
      const next = await api<Flag>('PATCH', url, {
        name: draft.name,
        active: draft.active,
        filters: { ...draft.filters, payloads: parsed },
        ...(flag.version !== undefined ? { version: flag.version } : {}),
      });
      setFlag(next);
      setDraft(structuredClone(next));
      setSaved(true);
    } catch (e) {
      setError(e);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the flag "${flag.key}"? SDKs get no value for it from then on.`)) return;
    setError(null);
    try {
      await api('DELETE', url);
      route('/feature_flags');
    } catch (e) {
      setError(e);
    }
  };
  const cohortName = (id: unknown) => {
    const c = cohorts.list?.find((x) => String(x.id) === String(id));
    return c ? c.name || `Cohort ${c.id}` : `Cohort ${String(id)}`;
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
            {g.properties.map((p, j) =>
              p.type === 'cohort' ? (
                <div class="row wrap" key={j}>
                  <label>
                    In cohort
                    <select
                      value={String(p.value)}
                      onChange={(e) =>
                        setGroup(i, {
                          properties: g.properties.map((x, k) =>
                            k === j
                              ? { ...x, value: Number((e.currentTarget as HTMLSelectElement).value) }
                              : x,
                          ),
                        })
                      }
                    >
                      {!cohorts.list?.some((c) => String(c.id) === String(p.value)) && (
                        <option value={String(p.value)}>{cohortName(p.value)}</option>
                      )}
                      {cohorts.list?.map((c) => (
                        <option key={c.id} value={String(c.id)}>
                          {c.name || `Cohort ${c.id}`}
                        </option>
                      ))}
                    </select>
                  </label>
                  <button
                    type="button"
                    class="link"
                    onClick={() => setGroup(i, { properties: g.properties.filter((_, k) => k !== j) })}
                  >
                    Remove
                  </button>
                </div>
              ) : (
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
              ),
            )}
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
              <button
                type="button"
                class="link"
                disabled={!cohorts.list?.length}
                title={cohorts.list?.length ? undefined : 'No cohorts yet: make one under Cohorts'}
                onClick={() =>
                  setGroup(i, {
                    properties: [
                      ...g.properties,
                      { key: 'id', type: 'cohort', value: cohorts.list?.[0]?.id ?? 0 },
                    ],
                  })
                }
              >
                + Cohort
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
      <section class="card form">
        <h2>Payloads</h2>
        <p class="muted small">
          JSON that SDKs hand over with the flag's value (<code>getFeatureFlagPayload</code>); leave empty for
          none.
        </p>
        {payloadKeys.map((key) => (
          <label key={key}>
            <span>
              Payload for <code>{key}</code>
            </span>
            <textarea
              class="mono"
              rows={3}
              spellcheck={false}
              value={payloads[key] ?? ''}
              placeholder='{"button": "Buy now"}'
              onInput={(e) =>
                setPayloads({ ...payloads, [key]: (e.currentTarget as HTMLTextAreaElement).value })
              }
            />
          </label>
        ))}
      </section>
      {error !== null && <ErrorNote error={error} />}
      <div class="row wrap">
        <button type="button" class="primary" onClick={save}>
          Save flag
        </button>
        {saved && <span role="status">Saved. SDKs see the change on their next /flags request.</span>}
        <button type="button" class="danger push-right" onClick={remove}>
          Delete flag
        </button>
      </div>
      <FlagUsage projectId={team.id} flagKey={flag.key} />
    </div>
  );
}
