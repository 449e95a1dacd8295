import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../../api';
import { ErrorNote } from '../../components/error-note';

interface Sharing {
  enabled: boolean;
  access_token: string;
}

/** The page a share link opens: the console renders `/share/{token}` from `/shared/{token}.json`. */
export const shareUrl = (token: string) => `${location.origin}/share/${encodeURIComponent(token)}`;

/** Turn the dashboard's public link on or off (PostHog's sharing endpoint) and copy it. */
export function SharePanel({ url }: { url: string }) {
  const [sharing, setSharing] = useState<Sharing | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    get<Sharing>(`${url}sharing/`).then(setSharing, setError);
  }, [url]);
  const toggle = async (enabled: boolean) => {
    setError(null);
    setCopied(false);
    try {
      setSharing(await api<Sharing>('PATCH', `${url}sharing/`, { enabled }));
    } catch (e) {
      setError(e);
    }
  };
  const copy = async (link: string) => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      // Without clipboard access the link stays selected in its field for a manual copy.
      setCopied(false);
    }
  };
  if (error !== null) return <ErrorNote error={error} />;
  if (!sharing) return <p class="muted">Loading the share settings…</p>;
  const link = shareUrl(sharing.access_token);
  return (
    <div class="share-panel">
      <label class="check">
        <input
          type="checkbox"
          checked={sharing.enabled}
          onChange={(e) => toggle((e.currentTarget as HTMLInputElement).checked)}
        />
        Anyone with the link can view this dashboard (no login)
      </label>
      {sharing.enabled && (
        <div class="row wrap">
          <label class="grow">
            Share link
            <input
              readOnly
              value={link}
              aria-label="Share link"
              onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
            />
          </label>
          <button type="button" onClick={() => copy(link)}>
            Copy link
          </button>
          <a href={link} target="_blank" rel="noopener">
            Open
          </a>
          {copied && <span role="status">Copied.</span>}
        </div>
      )}
      {sharing.enabled && (
        <p class="muted small">
          Turning sharing off and on again makes a new link; the old one stops working.
        </p>
      )}
    </div>
  );
}
