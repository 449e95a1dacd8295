import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiFailure, api } from '../api';
import { ErrorNote } from '../components/error-note';

/** Only same-site paths are followed after login, so a crafted link cannot send people elsewhere. */
export const safeNext = (next: string | undefined) =>
  next?.startsWith('/') && !next.startsWith('//') ? next : '/';

export function Login() {
  const { query, route } = useLocation();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/login/', { email: form.get('email'), password: form.get('password') });
      route(safeNext(query.next), true);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="auth-page">
      <form class="card auth-card" onSubmit={submit}>
        <h1>
          <img src="/favicon.svg" alt="" width={28} height={28} /> Log in to Burrow
        </h1>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error !== null && <ErrorNote error={error} />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        <p class="muted small">
          First time? Set the owner's password with <code>npx burrow password</code> in the server's folder.
          {error instanceof ApiFailure && error.status === 429 ? ' Too many attempts: wait a moment.' : ''}
        </p>
      </form>
    </div>
  );
}
