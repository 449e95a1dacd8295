import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorNote } from '../components/error-note';
import { ListTable } from '../components/list-table';
import { useList } from '../components/use-resource';
import { useSession } from '../session';

interface Run {
  id: string;
  status: string;
  data_interval_start: string | null;
  data_interval_end: string;
  records_completed: number | null;
  latest_error: string | null;
}
interface Export {
  id: string;
  name: string;
  model: string;
  interval: string;
  paused: boolean;
  destination: { type: string; config: Record<string, unknown> };
  latest_runs?: Run[];
}

const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'];
const EXAMPLES: Record<string, string> = {
  HTTP: JSON.stringify({ url: 'https://other-burrow.example/batch/', token: 'phc_...' }, null, 2),
  Postgres: JSON.stringify(
    {
      host: 'db.example.com',
      port: 5432,
      user: 'exporter',
      password: '',
      database: 'analytics',
      schema: 'public',
      table_name: 'events',
    },
    null,
    2,
  ),
  S3: JSON.stringify(
    {
      bucket_name: 'analytics',
      region: 'eu-west-1',
      prefix: 'events',
      aws_access_key_id: '',
      aws_secret_access_key: '',
      file_format: 'JSONLines',
      compression: 'gzip',
    },
    null,
    2,
  ),
  NoOp: '{}',
};

function Runs({ base, exportId }: { base: string; exportId: string }) {
  const { list, error } = useList<Run>(`${base}${exportId}/runs/?limit=20`);
  return (
    <ListTable
      items={list}
      error={error}
      loading={<p class="muted">Loading runs…</p>}
      empty="No runs yet."
      columns={['Window', 'Status', 'Rows', 'Error']}
      rowKey={(r) => r.id}
      cells={(r) => (
        <>
          <td>
            {r.data_interval_start ? new Date(r.data_interval_start).toLocaleString() : '…'} →{' '}
            {new Date(r.data_interval_end).toLocaleString()}
          </td>
          <td class={r.status.startsWith('Failed') ? 'danger' : ''}>{r.status}</td>
          <td>{r.records_completed ?? ''}</td>
          <td class="ellipsis" style={{ maxWidth: '20rem' }} title={r.latest_error ?? undefined}>
            {r.latest_error ?? ''}
          </td>
        </>
      )}
    />
  );
}

export function BatchExports() {
  const { team } = useSession();
  const base = `/api/projects/${team.id}/batch_exports/`;
  const { list, error, setError, reload } = useList<Export>(base);
  const [message, setMessage] = useState<string | null>(null);
  const [type, setType] = useState('HTTP');
  // What was typed for each destination type, kept across errors and type switches: the field was
  // once bound to the example and lost a typed token on any re-render.
  const [configs, setConfigs] = useState<Record<string, string>>(EXAMPLES);
  const [createError, setCreateError] = useState<unknown>(null);
  const [open, setOpen] = useState<string | null>(null);
  const act = async (fn: () => Promise<unknown>, done: string) => {
    setError(null);
    setMessage(null);
    try {
      await fn();
      setMessage(done);
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setCreateError(null);
    setMessage(null);
    let config: unknown;
    try {
      config = JSON.parse(configs[type] || '{}');
    } catch {
      setCreateError(new Error('The destination settings are not valid JSON.'));
      return;
    }
    try {
      await api('POST', base, {
        name: data.get('name'),
        model: data.get('model'),
        interval: data.get('interval'),
        destination: { type, config },
      });
    } catch (e) {
      // Everything typed stays as it was, so it can be corrected and sent again.
      setCreateError(e);
      return;
    }
    form.reset();
    setConfigs({ ...configs, [type]: EXAMPLES[type] ?? '{}' });
    setMessage('Export created.');
    await reload();
  };
  const backfill = (exp: Export) => {
    const days = Number(prompt('Backfill how many days back?', '1'));
    if (!days || days < 0) return;
    const end = new Date();
    const start = new Date(end.getTime() - days * 86_400_000);
    void act(
      () =>
        api('POST', `${base}${exp.id}/backfills/`, {
          start_at: start.toISOString(),
          end_at: end.toISOString(),
        }),
      `Backfill of ${days} day(s) started.`,
    );
  };
  return (
    <section class="card">
      <h2>Batch exports</h2>
      {message && <p role="status">{message}</p>}
      <ListTable
        items={list}
        error={error}
        empty="No exports yet."
        columns={['Name', 'Destination', 'Every', 'State']}
        actions
        rowKey={(e) => e.id}
        cells={(e) => (
          <>
            <td>
              <button
                type="button"
                class="link"
                aria-expanded={open === e.id}
                onClick={() => setOpen(open === e.id ? null : e.id)}
              >
                {e.name}
              </button>
            </td>
            <td>
              {e.destination.type} · {e.model}
            </td>
            <td>{e.interval}</td>
            <td>{e.paused ? 'paused' : 'running'}</td>
            <td class="nowrap">
              <button
                type="button"
                class="link"
                onClick={() =>
                  act(
                    () => api('POST', `${base}${e.id}/${e.paused ? 'unpause' : 'pause'}/`),
                    e.paused ? 'Resumed.' : 'Paused.',
                  )
                }
              >
                {e.paused ? 'Unpause' : 'Pause'}
              </button>
              <button
                type="button"
                class="link"
                onClick={() =>
                  act(
                    () => api('POST', `${base}${e.id}/run_test_step/`, { step: 0 }),
                    'Test passed: the destination answered.',
                  )
                }
              >
                Test
              </button>
              <button type="button" class="link" onClick={() => backfill(e)}>
                Backfill
              </button>
              <button
                type="button"
                class="link danger"
                onClick={() =>
                  confirm(`Delete "${e.name}"?`) && act(() => api('DELETE', `${base}${e.id}/`), 'Deleted.')
                }
              >
                Delete
              </button>
            </td>
          </>
        )}
        detail={(e) => open === e.id && <Runs base={base} exportId={e.id} />}
      />
      <h3>New export</h3>
      <form class="form" onSubmit={create}>
        <div class="row wrap">
          <label>
            Name
            <input name="name" required maxLength={200} />
          </label>
          <label>
            Data
            <select name="model">
              <option value="events">events</option>
              <option value="persons">persons</option>
              <option value="sessions">sessions</option>
            </select>
          </label>
          <label>
            Every
            <select name="interval">
              {INTERVALS.map((i) => (
                <option key={i}>{i}</option>
              ))}
            </select>
          </label>
          <label>
            Destination type
            <select value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              {Object.keys(EXAMPLES).map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
        </div>
        <label>
          Destination settings (JSON; secrets are stored encrypted and never shown again)
          <textarea
            name="config"
            rows={8}
            class="mono"
            spellcheck={false}
            value={configs[type]}
            onInput={(e) =>
              setConfigs({ ...configs, [type]: (e.currentTarget as HTMLTextAreaElement).value })
            }
          />
        </label>
        {createError !== null && <ErrorNote error={createError} />}
        <div class="row">
          <button type="submit" class="primary">
            Create export
          </button>
        </div>
      </form>
    </section>
  );
}

interface Domain {
  id: string;
  domain: string;
  is_verified: boolean;
  verification_challenge: string;
  jit_provisioning_enabled: boolean;
}

export function Domains() {
  const { me } = useSession();
  const base = `/api/organizations/${me.organization!.id}/domains/`;
  const { list, error, setError, reload } = useList<Domain>(base);
  const [message, setMessage] = useState<string | null>(null);
  const act = async (fn: () => Promise<unknown>, done: (() => string) | string) => {
    setError(null);
    setMessage(null);
    try {
      await fn();
      await reload();
      setMessage(typeof done === 'string' ? done : done());
    } catch (e) {
      setError(e);
    }
  };
  const add = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const domain = String(new FormData(form).get('domain') ?? '').trim();
    void act(
      () => api('POST', base, { domain }),
      `Added ${domain}: publish its TXT record, then verify.`,
    ).then(() => form.reset());
  };
  return (
    <section class="card">
      <h2>Domains</h2>
      <p class="muted">
        Verify a domain you own to let people with an address there join automatically (just-in-time
        provisioning).
      </p>
      {message && <p role="status">{message}</p>}
      {error !== null && <ErrorNote error={error} />}
      {list?.map((d) => (
        <div class="domain" key={d.id}>
          <div class="row wrap">
            <strong>{d.domain}</strong>
            <span class={d.is_verified ? 'status ok' : 'muted'}>
              {d.is_verified ? 'verified' : 'not verified'}
            </span>
            {!d.is_verified && (
              <button
                type="button"
                onClick={() => act(() => api('POST', `${base}${d.id}/verify/`), 'Checked the TXT record.')}
              >
                Verify
              </button>
            )}
            <label class="check">
              <input
                type="checkbox"
                checked={d.jit_provisioning_enabled}
                disabled={!d.is_verified}
                onChange={(e) =>
                  act(
                    () =>
                      api('PATCH', `${base}${d.id}/`, {
                        jit_provisioning_enabled: (e.currentTarget as HTMLInputElement).checked,
                      }),
                    'Saved.',
                  )
                }
              />
              Let people from this domain join
            </label>
            <button
              type="button"
              class="link danger"
              onClick={() =>
                confirm(`Remove ${d.domain}?`) && act(() => api('DELETE', `${base}${d.id}/`), 'Removed.')
              }
            >
              Remove
            </button>
          </div>
          {!d.is_verified && (
            <p class="small">
              Publish a TXT record <code>_posthog-challenge.{d.domain}</code> with the value{' '}
              <code>{d.verification_challenge}</code>.
            </p>
          )}
        </div>
      ))}
      <form class="row wrap" onSubmit={add}>
        <label>
          Domain
          <input name="domain" required placeholder="example.com" />
        </label>
        <button type="submit" class="primary">
          Add domain
        </button>
      </form>
    </section>
  );
}
