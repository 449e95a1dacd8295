import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { SCOPE_OBJECTS } from '../../../src/domain/scopes';
import { api, type Page, type PropertyFilter, type Team } from '../api';
import { ErrorNote } from '../components/error-note';
import { ListTable, SimpleTable } from '../components/list-table';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';
import { DataRetention } from './settings-data';
import { BatchExports, Domains } from './settings-exports';

function Project() {
  const { team, refresh } = useSession();
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setError(null);
    try {
      await api<Team>('PATCH', `/api/projects/${team.id}/`, {
        name: form.get('name'),
        timezone: form.get('timezone'),
        session_recording_opt_in: form.get('recording') === 'on',
      });
      await refresh();
      setSaved(true);
      setTimeout(() => setSaved(false), 2000);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card">
      <h2>Project</h2>
      {/* Uncontrolled fields: a re-render (the session refreshing the project) must not undo what
          is being typed; the key starts them afresh when the saved values change. */}
      <form
        class="form"
        onSubmit={submit}
        key={`${team.name}\u0000${team.timezone}\u0000${team.session_recording_opt_in}`}
      >
        <label>
          Name
          <input name="name" required defaultValue={team.name} maxLength={200} />
        </label>
        <label>
          Time zone
          <input name="timezone" required defaultValue={team.timezone} list="timezones" />
          <datalist id="timezones">
            {Intl.supportedValuesOf?.('timeZone').map((tz) => (
              <option key={tz} value={tz} />
            ))}
          </datalist>
        </label>
        <label class="check">
          <input name="recording" type="checkbox" defaultChecked={team.session_recording_opt_in} /> Record
          sessions (posthog-js starts recording on its next page load)
        </label>
        <label>
          Project token (public, for SDKs)
          <input
            readOnly
            value={team.api_token}
            onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          />
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
  );
}

// The operators a test-account filter usually needs, in PostHog's names.
const OPERATORS: Record<string, string> = {
  not_icontains: 'does not contain',
  icontains: 'contains',
  is_not: 'is not',
  exact: 'is',
  not_regex: 'does not match regex',
  regex: 'matches regex',
  is_set: 'is set',
  is_not_set: 'is not set',
};
const NO_VALUE = new Set(['is_set', 'is_not_set']);
// PostHog stores a list for equality operators and a string for the others.
const LIST_VALUE = new Set(['exact', 'is_not']);

interface FilterRow {
  type: 'event' | 'person';
  key: string;
  operator: string;
  value: string;
  /** A filter this form does not edit (HogQL, cohort, another operator): kept exactly as saved. */
  raw?: PropertyFilter;
}

const editable = (f: PropertyFilter) =>
  (f.type === 'event' || f.type === 'person') &&
  typeof f.key === 'string' &&
  String(f.operator ?? 'exact') in OPERATORS &&
  (f.value === undefined ||
    f.value === null ||
    typeof f.value === 'string' ||
    (Array.isArray(f.value) && f.value.every((v) => typeof v === 'string')));

const toRow = (f: PropertyFilter): FilterRow =>
  editable(f)
    ? {
        type: f.type as FilterRow['type'],
        key: f.key,
        operator: String(f.operator ?? 'exact'),
        value: Array.isArray(f.value) ? f.value.join(', ') : String(f.value ?? ''),
      }
    : { type: 'event', key: '', operator: '', value: '', raw: f };

const toFilter = (r: FilterRow): PropertyFilter =>
  r.raw ?? {
    key: r.key.trim(),
    type: r.type,
    operator: r.operator,
    ...(NO_VALUE.has(r.operator)
      ? {}
      : {
          value: LIST_VALUE.has(r.operator)
            ? r.value
                .split(',')
                .map((v) => v.trim())
                .filter(Boolean)
            : r.value,
        }),
  };

/**
 * The project's test-account filters (PostHog's `test_account_filters`): events matching them
 * count as real users; insights with "Filter out test accounts" leave the rest out.
 */
function TestAccounts() {
  const { team, me, refresh } = useSession();
  const [rows, setRows] = useState<FilterRow[]>(() => (team.test_account_filters ?? []).map(toRow));
  const [byDefault, setByDefault] = useState(team.test_account_filters_default_checked === true);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const domain = me.email.includes('@') ? me.email.slice(me.email.indexOf('@')) : '';
  const set = (i: number, patch: Partial<FilterRow>) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api<Team>('PATCH', `/api/projects/${team.id}/`, {
        test_account_filters: rows.map(toFilter),
        test_account_filters_default_checked: byDefault,
      });
      await refresh();
      setSaved(true);
      setTimeout(() => setSaved(false), 2000);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card" id="test-accounts" aria-labelledby="test-accounts-title">
      <h2 id="test-accounts-title">Test accounts</h2>
      <p class="muted small">
        With "Filter out test accounts" on, an insight counts only events that pass every filter below: for
        example, person email does not contain your company's domain, or host is not localhost.
      </p>
      <form class="form wide" onSubmit={submit}>
        {rows.length === 0 && <p class="muted">No filters yet.</p>}
        {rows.map((r, i) =>
          r.raw ? (
            <div class="filter-row" key={i}>
              <code class="ellipsis">{JSON.stringify(r.raw)}</code>
              <span class="muted small">kept as saved (edit it through the API)</span>
              <button
                type="button"
                class="link danger"
                aria-label={`Remove filter ${i + 1}`}
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </div>
          ) : (
            <fieldset class="filter-row" key={i}>
              <legend class="sr-only">Filter {i + 1}</legend>
              <label>
                Of
                <select
                  value={r.type}
                  onChange={(e) =>
                    set(i, { type: (e.currentTarget as HTMLSelectElement).value as FilterRow['type'] })
                  }
                >
                  <option value="person">Person property</option>
                  <option value="event">Event property</option>
                </select>
              </label>
              <label>
                Property
                <input
                  required
                  value={r.key}
                  maxLength={400}
                  placeholder={r.type === 'person' ? 'email' : '$host'}
                  onInput={(e) => set(i, { key: (e.currentTarget as HTMLInputElement).value })}
                />
              </label>
              <label>
                Operator
                <select
                  value={r.operator}
                  onChange={(e) => set(i, { operator: (e.currentTarget as HTMLSelectElement).value })}
                >
                  {Object.entries(OPERATORS).map(([v, l]) => (
                    <option key={v} value={v}>
                      {l}
                    </option>
                  ))}
                </select>
              </label>
              {!NO_VALUE.has(r.operator) && (
                <label>
                  Value{LIST_VALUE.has(r.operator) ? 's (comma separated)' : ''}
                  <input
                    required
                    value={r.value}
                    maxLength={1000}
                    onInput={(e) => set(i, { value: (e.currentTarget as HTMLInputElement).value })}
                  />
                </label>
              )}
              <button
                type="button"
                class="link danger"
                aria-label={`Remove filter ${i + 1}`}
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
              >
                Remove
              </button>
            </fieldset>
          ),
        )}
        <div class="row wrap">
          <button
            type="button"
            onClick={() =>
              setRows([...rows, { type: 'person', key: 'email', operator: 'not_icontains', value: '' }])
            }
          >
            Add filter
          </button>
          {domain && !rows.some((r) => r.value === domain) && (
            <button
              type="button"
              class="link"
              onClick={() =>
                setRows([...rows, { type: 'person', key: 'email', operator: 'not_icontains', value: domain }])
              }
            >
              Add "email does not contain {domain}"
            </button>
          )}
        </div>
        <label class="check">
          <input
            type="checkbox"
            checked={byDefault}
            onChange={(e) => setByDefault((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          Filter out test accounts by default on new insights
        </label>
        {error !== null && <ErrorNote error={error} />}
        <div class="row">
          <button type="submit" class="primary">
            Save test account filters
          </button>
          {saved && <span role="status">Saved</span>}
        </div>
      </form>
    </section>
  );
}

interface Key {
  id: string;
  label: string;
  mask_value: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  value?: string;
}

// The server's own list of scope objects (a constant, not a call into the server).
const READ_ALL = SCOPE_OBJECTS.map((object) => `${object}:read`);
const SCOPE_PRESETS: Record<string, string[]> = {
  'Read everything': READ_ALL,
  'Full access': ['*'],
  'Run queries only': ['query:read'],
};

function describeScopes(scopes: string[]) {
  if (scopes.includes('*')) return 'Full access';
  if (READ_ALL.every((s) => scopes.includes(s))) return 'Read everything';
  return scopes.join(', ');
}

function ApiKeys() {
  const keys = useResource<Key[] | Page<Key>>('/api/personal_api_keys/');
  const [created, setCreated] = useState<Key | null>(null);
  const [error, setError] = useState<unknown>(null);
  const list = Array.isArray(keys.data) ? keys.data : (keys.data?.results ?? []);
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(null);
    try {
      const key = await api<Key>('POST', '/api/personal_api_keys/', {
        label: data.get('label'),
        scopes: SCOPE_PRESETS[String(data.get('preset'))] ?? READ_ALL,
      });
      setCreated(key);
      form.reset();
      await keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  const revoke = async (key: Key) => {
    if (!confirm(`Revoke "${key.label}"? Anything using it stops working.`)) return;
    try {
      await api('DELETE', `/api/personal_api_keys/${key.id}/`);
      await keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card">
      <h2>Personal API keys</h2>
      {created?.value && (
        <div class="notice" role="status">
          <p>Copy the key now: it is shown only once.</p>
          <input
            readOnly
            value={created.value}
            aria-label="New API key"
            onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <form class="row wrap" onSubmit={create}>
        <label>
          Label
          <input name="label" required maxLength={40} placeholder="e.g. dashboard script" />
        </label>
        <label>
          Access
          <select name="preset">
            {Object.keys(SCOPE_PRESETS).map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
      {(error ?? keys.error) !== null && <ErrorNote error={error ?? keys.error} />}
      <SimpleTable
        items={list}
        columns={['Label', 'Key', 'Scopes', 'Last used']}
        actions
        tableClass="stack"
        rowKey={(k) => k.id}
        cells={(k) => (
          <>
            <td data-label="Label">{k.label}</td>
            <td data-label="Key">
              <code>{k.mask_value}</code>
            </td>
            <td data-label="Scopes" class="wrap">
              {describeScopes(k.scopes)}
            </td>
            <td data-label="Last used">
              {k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'}
            </td>
            <td class="row-actions">
              <button
                type="button"
                class="link danger"
                onClick={() => revoke(k)}
                aria-label={`Revoke ${k.label}`}
              >
                Revoke
              </button>
            </td>
          </>
        )}
      />
      {keys.data && list.length === 0 && <p class="muted">No keys yet.</p>}
    </section>
  );
}

interface Member {
  id: string;
  level: number;
  user: { uuid: string; email: string; first_name: string };
  joined_at: string;
}
interface Invite {
  id: string;
  target_email: string;
  level: number;
  is_expired: boolean;
  emailing_attempt_made: boolean;
  created_at: string;
  /** Only in the answer to creating an invite that no email carried. */
  invite_url?: string;
}
const LEVELS: Record<number, string> = { 1: 'Member', 8: 'Admin', 15: 'Owner' };

/** What the person inviting sees after an invite: mailed, or the link to hand over themselves. */
function InviteResult({ invite, onDone }: { invite: Invite; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  if (!invite.invite_url)
    return (
      <p role="status" class="notice">
        Invite sent to {invite.target_email} by email.
      </p>
    );
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(invite.invite_url ?? '');
      setCopied(true);
    } catch {
      // Without clipboard access (an http:// address), the field stays selected for Ctrl+C.
      document.querySelector<HTMLInputElement>('#invite-link')?.select();
    }
  };
  return (
    <div class="notice invite-link" role="status">
      <p>
        No email was sent: this server has no mail server configured (<code>SMTP_URL</code>). Send{' '}
        {invite.target_email} this link yourself; it is shown only now.
      </p>
      <div class="row wrap">
        <input
          id="invite-link"
          readOnly
          value={invite.invite_url}
          aria-label={`Invite link for ${invite.target_email}`}
          onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          class="grow"
        />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy link'}
        </button>
        <button type="button" class="link" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function Members() {
  const { me } = useSession();
  const org = me.organization!;
  const myLevel = org.membership_level ?? 0;
  const canManage = myLevel >= 8;
  const members = useResource<Page<Member>>(`/api/organizations/${org.id}/members/?limit=200`);
  const invites = useResource<Page<Invite>>(`/api/organizations/${org.id}/invites/?limit=200`);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<Invite | null>(null);
  const invite = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(null);
    setCreated(null);
    try {
      setCreated(
        await api<Invite>('POST', `/api/organizations/${org.id}/invites/`, {
          target_email: data.get('email'),
          level: Number(data.get('level')),
        }),
      );
      form.reset();
      await invites.reload();
    } catch (e) {
      setError(e);
    }
  };
  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      await members.reload();
      await invites.reload();
    } catch (e) {
      setError(e);
    }
  };
  const setLevel = (m: Member, level: number) =>
    act(() => api('PATCH', `/api/organizations/${org.id}/members/${m.user.uuid}/`, { level }));
  const remove = (m: Member) => {
    if (!confirm(`Remove ${m.user.email} from ${org.name}? Their access ends at once.`)) return;
    return act(() => api('DELETE', `/api/organizations/${org.id}/members/${m.user.uuid}/`));
  };
  const cancelInvite = (id: string) =>
    act(() => api('DELETE', `/api/organizations/${org.id}/invites/${id}/`));
  // The server decides; the page offers only what it would allow (your level or lower, not yourself).
  const editable = (m: Member) => canManage && m.user.uuid !== me.uuid && m.level <= myLevel;
  const levelChoices = Object.entries(LEVELS).filter(([level]) => Number(level) <= myLevel);
  return (
    <section class="card">
      <h2>Members of {org.name}</h2>
      {members.error !== null && <ErrorNote error={members.error} />}
      <SimpleTable
        items={members.data?.results ?? []}
        columns={['Email', 'Name', 'Level', 'Joined']}
        actions
        tableClass="stack"
        rowKey={(m) => m.id}
        cells={(m) => (
          <>
            <td data-label="Email">{m.user.email}</td>
            <td data-label="Name">{m.user.first_name}</td>
            <td data-label="Level">
              {editable(m) ? (
                <select
                  aria-label={`Level of ${m.user.email}`}
                  value={String(m.level)}
                  onChange={(e) => setLevel(m, Number((e.currentTarget as HTMLSelectElement).value))}
                >
                  {levelChoices.map(([level, name]) => (
                    <option key={level} value={level}>
                      {name}
                    </option>
                  ))}
                </select>
              ) : (
                (LEVELS[m.level] ?? m.level)
              )}
            </td>
            <td data-label="Joined">{new Date(m.joined_at).toLocaleDateString()}</td>
            <td class="row-actions">
              {editable(m) && m.level < 15 && (
                <button
                  type="button"
                  class="link danger"
                  onClick={() => remove(m)}
                  aria-label={`Remove ${m.user.email}`}
                >
                  Remove
                </button>
              )}
              {m.user.uuid === me.uuid && <span class="muted">you</span>}
            </td>
          </>
        )}
      />
      <h3>Invite someone</h3>
      <form class="row wrap" onSubmit={invite}>
        <label>
          Email
          <input name="email" type="email" required />
        </label>
        <label>
          Level
          <select name="level">
            <option value="1">Member</option>
            {myLevel >= 8 && <option value="8">Admin</option>}
          </select>
        </label>
        <button type="submit" class="primary">
          Send invite
        </button>
      </form>
      {created && <InviteResult invite={created} onDone={() => setCreated(null)} />}
      {error !== null && <ErrorNote error={error} />}
      <ListTable
        items={invites.data?.results ?? null}
        columns={['Invited', 'Level', 'Status']}
        actions
        tableClass="stack"
        rowKey={(i) => i.id}
        cells={(i) => (
          <>
            <td data-label="Invited">{i.target_email}</td>
            <td data-label="Level">{LEVELS[i.level] ?? i.level}</td>
            <td data-label="Status">
              {i.is_expired
                ? 'expired'
                : i.emailing_attempt_made
                  ? 'pending, emailed'
                  : 'pending, link not emailed'}
            </td>
            <td class="row-actions">
              <button
                type="button"
                class="link danger"
                onClick={() => cancelInvite(i.id)}
                aria-label={`Cancel the invite of ${i.target_email}`}
              >
                Cancel
              </button>
            </td>
          </>
        )}
      />
    </section>
  );
}

function Password() {
  const { me, refresh } = useSession();
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(null);
    try {
      await api('PATCH', '/api/users/@me/', {
        password: data.get('password'),
        ...(me.has_password ? { current_password: data.get('current') } : {}),
      });
      form.reset();
      setDone(true);
      await refresh();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="card">
      <h2>Your password</h2>
      <form class="form" onSubmit={submit}>
        {me.has_password && (
          <label>
            Current password
            <input name="current" type="password" autoComplete="current-password" required />
          </label>
        )}
        <label>
          New password
          <input name="password" type="password" autoComplete="new-password" minLength={8} required />
        </label>
        {error !== null && <ErrorNote error={error} />}
        <div class="row">
          <button type="submit" class="primary">
            Change password
          </button>
          {done && <span role="status">Password changed. Other sessions were logged out.</span>}
        </div>
      </form>
    </section>
  );
}

const SECTIONS = [
  {
    id: 'project',
    label: 'Project',
    component: () => (
      <>
        <Project />
        <TestAccounts />
      </>
    ),
  },
  { id: 'data', label: 'Data', component: DataRetention },
  { id: 'keys', label: 'API keys', component: ApiKeys },
  { id: 'members', label: 'Members', component: Members },
  { id: 'exports', label: 'Batch exports', component: BatchExports },
  { id: 'domains', label: 'Domains', component: Domains },
  { id: 'account', label: 'Account', component: Password },
];

export function Settings() {
  const { params } = useRoute();
  const current = SECTIONS.find((s) => s.id === params.section) ?? SECTIONS[0]!;
  const Section = current.component;
  return (
    <div class="page">
      <h1>Settings</h1>
      <nav class="subnav" aria-label="Settings sections" data-arrow-nav>
        {SECTIONS.map((s) => (
          <a key={s.id} href={`/settings/${s.id}`} aria-current={s.id === current.id ? 'page' : undefined}>
            {s.label}
          </a>
        ))}
      </nav>
      <Section />
    </div>
  );
}
