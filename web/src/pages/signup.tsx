import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, get } from '../api';
import { ErrorNote } from '../components/error-note';

interface InvitePreview {
  id: string;
  target_email: string;
  first_name: string;
  organization_name: string;
}

/** An invite link opens here: the invitee names themselves, picks a password and is logged in. */
export function Signup() {
  const { params } = useRoute();
  const { query, route } = useLocation();
  const inviteId = params.inviteId ?? '';
  // The emailed link carries the token in the fragment (never sent to servers); ?token= works too.
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? query.token ?? '';
  const [invite, setInvite] = useState<InvitePreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    get<InvitePreview>(`/api/signup/${encodeURIComponent(inviteId)}/`).then(setInvite, setError);
  }, [inviteId]);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/api/signup/${encodeURIComponent(inviteId)}/`, {
        first_name: form.get('first_name'),
        password: form.get('password'),
        ...(token ? { token } : {}),
      });
      route('/', true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="auth-page">
      <form class="card auth-card" onSubmit={submit}>
        <h1>Join {invite?.organization_name ?? 'Burrow'}</h1>
        {invite && <p class="muted">Invited as {invite.target_email}</p>}
        <label>
          Your name
          <input name="first_name" autoComplete="given-name" required value={invite?.first_name ?? ''} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="new-password" minLength={8} required />
        </label>
        {error !== null && <ErrorNote error={error} />}
        <button type="submit" class="primary" disabled={busy || !invite}>
          {busy ? 'Joining…' : 'Create account'}
        </button>
      </form>
    </div>
  );
}
