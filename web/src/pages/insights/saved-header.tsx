import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../../api';
import { useSession } from '../../session';
import type { SavedInsight } from '../insights';
import { type InsightForm, toQuery } from './form';

/**
 * A saved insight's name and description, and what can be done to it as a whole: rename,
 * duplicate (with the form as it is now), delete (asked twice, in the page rather than a browser
 * dialog, so it reads the same everywhere and works from the keyboard).
 */
export function SavedHeader({
  insight,
  form,
  onPatch,
  onError,
}: {
  insight: SavedInsight;
  form: InsightForm | null;
  onPatch: (body: Record<string, unknown>, done: string) => Promise<void>;
  onError: (e: unknown) => void;
}) {
  const { team } = useSession();
  const { route } = useLocation();
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const renameButton = useRef<HTMLButtonElement>(null);
  const base = `/api/projects/${team.id}/insights/`;
  const name = insight.name || `Insight ${insight.short_id}`;

  const duplicate = async () => {
    try {
      const copy = await api<{ short_id: string }>('POST', base, {
        name: `${name} (copy)`,
        description: insight.description ?? '',
        query: form ? { kind: 'InsightVizNode', source: toQuery(form) } : insight.query,
        saved: true,
      });
      route(`/insights/${copy.short_id}`);
    } catch (e) {
      onError(e);
    }
  };
  const remove = async () => {
    try {
      await api('PATCH', `${base}${insight.id}/`, { deleted: true });
      route('/insights');
    } catch (e) {
      onError(e);
    }
  };
  const stopRenaming = () => {
    setRenaming(false);
    requestAnimationFrame(() => renameButton.current?.focus());
  };

  return (
    <header class="insight-head-wrap">
      <div class="insight-head">
        {renaming ? (
          <form
            class="row wrap"
            onKeyDown={(e) => e.key === 'Escape' && stopRenaming()}
            onSubmit={async (e) => {
              e.preventDefault();
              const next = String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '').trim();
              if (next) await onPatch({ name: next }, `Renamed to “${next}”.`);
              stopRenaming();
            }}
          >
            <label>
              Insight name
              {/* biome-ignore lint/a11y/noAutofocus: the field the Rename button opened */}
              <input name="name" required maxLength={400} defaultValue={insight.name} autoFocus />
            </label>
            <button type="submit" class="primary">
              Save name
            </button>
            <button type="button" onClick={stopRenaming}>
              Cancel
            </button>
          </form>
        ) : (
          <h1 tabIndex={-1}>{name}</h1>
        )}
        <div class="actions">
          {!renaming && (
            <button type="button" ref={renameButton} onClick={() => setRenaming(true)}>
              Rename
            </button>
          )}
          <button type="button" onClick={duplicate}>
            Duplicate
          </button>
          <button type="button" class="danger" aria-expanded={confirming} onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      </div>
      {confirming && (
        <div class="notice row wrap" role="alertdialog" aria-label="Delete this insight?">
          <span>Delete “{name}”? Dashboards showing it lose its tile.</span>
          <button type="button" class="danger" onClick={remove}>
            Delete insight
          </button>
          {/* biome-ignore lint/a11y/noAutofocus: the safe choice takes the focus */}
          <button type="button" autoFocus onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      )}
      <p class="muted small">
        {insight.short_id} · <a href="/insights">New insight</a>
      </p>
      <label class="description">
        Description
        <textarea
          key={insight.description ?? ''}
          defaultValue={insight.description ?? ''}
          maxLength={400}
          placeholder="What this insight answers, for whoever opens it next"
          onChange={(e) => {
            const next = (e.currentTarget as HTMLTextAreaElement).value;
            if (next !== (insight.description ?? ''))
              void onPatch({ description: next }, 'Description saved.');
          }}
        />
      </label>
    </header>
  );
}
