import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, get, type PropertyFilter } from '../api';
import { ErrorNote } from '../components/error-note';
import { Freshness, oldestRefresh } from '../components/freshness';
import { useList } from '../components/use-resource';
import { useSession } from '../session';
import { HEIGHTS, type Layouts, ordered, relayout, sizeOf, WIDTHS } from './dashboard/layout';
import { SharePanel } from './dashboard/share';
import { insightHref, type Tile, TileView } from './dashboard/tile-view';
import type { SavedInsight } from './insights';
import './dashboard/dashboards.css';

interface DashboardBasic {
  id: number;
  name: string | null;
  description: string;
  pinned: boolean;
}
interface Dashboard extends DashboardBasic {
  filters: { date_from?: string | null; date_to?: string | null; properties?: PropertyFilter[] | null };
  tiles: Tile[];
}

const RANGES: Record<string, string> = {
  '': 'Each insight’s own',
  '-24h': 'Last 24 hours',
  '-7d': 'Last 7 days',
  '-30d': 'Last 30 days',
  '-90d': 'Last 90 days',
  '-180d': 'Last 180 days',
};

// One grid row of a tile in pixels: PostHog's row height is about this at desktop width.
const ROW_PX = 56;

export function Dashboards() {
  const { team } = useSession();
  const base = `/api/projects/${team.id}/dashboards/`;
  const { list, error, setError, reload } = useList<DashboardBasic>(`${base}?limit=100`);
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    try {
      await api('POST', base, { name: new FormData(form).get('name') });
      form.reset();
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="page">
      <h1>Dashboards</h1>
      <section class="card">
        {error !== null && <ErrorNote error={error} />}
        {list?.length === 0 && (
          <p class="muted">No dashboards yet. Create one, then add saved insights and SQL queries to it.</p>
        )}
        <ul class="saved-list">
          {list?.map((d) => (
            <li key={d.id}>
              <a href={`/dashboards/${d.id}`}>{d.name || `Dashboard ${d.id}`}</a>
              {d.description && <span class="muted small"> {d.description}</span>}
            </li>
          ))}
        </ul>
        <form class="row wrap" onSubmit={create}>
          <label>
            Name
            <input name="name" required maxLength={400} />
          </label>
          <button type="submit" class="primary">
            New dashboard
          </button>
        </form>
      </section>
    </div>
  );
}

type Panel = null | 'rename' | 'share' | 'add';

export function DashboardPage() {
  const { team } = useSession();
  const { params } = useRoute();
  const { route } = useLocation();
  const projectBase = `/api/projects/${team.id}`;
  const url = `${projectBase}/dashboards/${encodeURIComponent(params.id ?? '')}/`;
  const [dashboard, setDashboardState] = useState<Dashboard | null>(null);
  // The newest answer, for edits made before the page re-rendered with it (see `patch`).
  const latest = useRef<Dashboard | null>(null);
  const setDashboard = (d: Dashboard) => {
    latest.current = d;
    setDashboardState(d);
  };
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [panel, setPanel] = useState<Panel>(null);
  // What the last action did, said once in a live region (moves and resizes have no other echo).
  const [said, setSaid] = useState('');
  const load = useCallback(
    async (refresh: string) => {
      setBusy(true);
      setError(null);
      try {
        setDashboard(await get<Dashboard>(`${url}?refresh=${refresh}`));
      } catch (e) {
        setError(e);
      } finally {
        setBusy(false);
      }
    },
    [url],
  );
  useEffect(() => {
    void load('blocking');
  }, [load]);

  /**
   * Edits run one after another, each built from the dashboard as the previous one left it: two
   * quick changes (a width, then a height) built from the same stale render would have the second
   * PATCH put the first one's tile layout back.
   */
  const patch = (
    body: Record<string, unknown> | ((d: Dashboard) => Record<string, unknown>),
    refresh = 'blocking',
  ) => {
    const run = async () => {
      try {
        const current = latest.current;
        if (!current) return false;
        await api('PATCH', url, typeof body === 'function' ? body(current) : body);
        await load(refresh);
        return true;
      } catch (e) {
        setError(e);
        return false;
      }
    };
    const done = queue.current.then(run);
    queue.current = done;
    return done;
  };

  if (!dashboard)
    return error ? <ErrorNote error={error} /> : <div class="skeleton" style={{ height: '300px' }} />;
  const name = dashboard.name || `Dashboard ${dashboard.id}`;
  const tiles = ordered(dashboard.tiles.filter((t) => !t.deleted));
  const onBoard = new Set(tiles.map((t) => t.insight?.id).filter((id): id is number => id !== undefined));

  const setRange = (dateFrom: string) =>
    patch(
      (d) => ({ filters: { ...d.filters, date_from: dateFrom || null, date_to: null } }),
      'force_blocking',
    );
  const setProperty = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const key = String(data.get('key') ?? '').trim();
    const value = String(data.get('value') ?? '');
    const properties = key ? [{ key, value, operator: 'exact', type: 'event' }] : [];
    await patch((d) => ({ filters: { ...d.filters, properties } }), 'force_blocking');
  };
  const arrange = async (change: { id: number; delta?: number; w?: number; h?: number }, message: string) => {
    const layouts = (d: Dashboard): { tiles: { id: number; layouts: Layouts }[] } => ({
      tiles: relayout(ordered(d.tiles.filter((t) => !t.deleted)), change),
    });
    if (!(await patch(layouts))) return;
    setSaid(message);
    // Reordering moves the tile's DOM node, which drops focus: put it back on the same control
    // (or the other arrow when the tile reached an end), so repeated moves need no mouse.
    if (change.delta)
      requestAnimationFrame(() => {
        const mine = [...document.querySelectorAll<HTMLButtonElement>(`[data-tile="${change.id}"] .move`)];
        const wanted = mine.find((b) => b.dataset.delta === String(change.delta) && !b.disabled);
        (wanted ?? mine.find((b) => !b.disabled))?.focus();
      });
  };
  const remove = async (tile: Tile, title: string) => {
    if (await patch({ tiles: [{ id: tile.id, deleted: true }] }))
      setSaid(`Removed “${title}” from the dashboard.`);
  };
  const rename = async (event: Event) => {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '').trim();
    if (await patch({ name: value })) {
      setPanel(null);
      setSaid(`Renamed to “${value}”.`);
    }
  };
  const destroy = async () => {
    if (!confirm(`Delete the dashboard “${name}”? Its insights stay.`)) return;
    try {
      await api('DELETE', url);
      route('/dashboards');
    } catch (e) {
      setError(e);
    }
  };
  const addText = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const body = String(new FormData(form).get('body') ?? '');
    if (await patch({ tiles: [{ text: { body } }] })) form.reset();
  };
  const toggle = (p: Panel) => setPanel(panel === p ? null : p);
  const property = dashboard.filters.properties?.[0];

  return (
    <div class="page dashboard">
      <div class="row wrap dashboard-head">
        <h1>{name}</h1>
        <div class="row wrap">
          <button type="button" aria-expanded={panel === 'add'} onClick={() => toggle('add')}>
            Add insight
          </button>
          <button type="button" aria-expanded={panel === 'rename'} onClick={() => toggle('rename')}>
            Rename
          </button>
          <button type="button" aria-expanded={panel === 'share'} onClick={() => toggle('share')}>
            Share
          </button>
          <button type="button" class="danger" onClick={destroy}>
            Delete
          </button>
        </div>
      </div>
      {panel === 'rename' && (
        <form class="card row wrap" onSubmit={rename}>
          <label class="grow">
            Dashboard name
            <input name="name" required maxLength={400} defaultValue={dashboard.name ?? ''} />
          </label>
          <button type="submit" class="primary">
            Save name
          </button>
          <button type="button" onClick={() => setPanel(null)}>
            Cancel
          </button>
        </form>
      )}
      {panel === 'share' && (
        <section class="card" aria-label="Share">
          <SharePanel url={url} />
        </section>
      )}
      {panel === 'add' && (
        <AddInsight
          projectBase={projectBase}
          dashboardId={dashboard.id}
          exclude={onBoard}
          onAdded={async (title) => {
            setPanel(null);
            await load('blocking');
            setSaid(`Added “${title}”.`);
          }}
        />
      )}
      <section class="card row wrap dashboard-filters" aria-busy={busy} aria-label="Filters for every tile">
        <label>
          Date range for every tile
          <select
            value={dashboard.filters.date_from ?? ''}
            onChange={(e) => setRange((e.currentTarget as HTMLSelectElement).value)}
          >
            {Object.entries(RANGES).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
            {dashboard.filters.date_from && !(dashboard.filters.date_from in RANGES) && (
              <option value={dashboard.filters.date_from}>{dashboard.filters.date_from}</option>
            )}
          </select>
        </label>
        {/* Uncontrolled, so a re-render mid-typing keeps what was typed; a new saved filter resets it. */}
        <form class="row wrap" onSubmit={setProperty} key={JSON.stringify(property ?? null)}>
          <label>
            Event property
            <input
              name="key"
              maxLength={400}
              defaultValue={property?.key ?? ''}
              placeholder="e.g. $browser"
            />
          </label>
          <label>
            equals
            <input name="value" maxLength={1000} defaultValue={String(property?.value ?? '')} />
          </label>
          <button type="submit">Apply filter</button>
          {property && (
            <button
              type="button"
              onClick={() => patch((d) => ({ filters: { ...d.filters, properties: [] } }), 'force_blocking')}
            >
              Clear filter
            </button>
          )}
        </form>
        <Freshness
          what="Oldest tile computed"
          computedAt={oldestRefresh(tiles.map((t) => t.insight?.last_refresh ?? t.last_refresh))}
          busy={busy}
          onRefresh={() => load('force_blocking')}
        />
      </section>
      {error !== null && <ErrorNote error={error} />}
      <p class="sr-only" role="status">
        {said}
      </p>
      {tiles.length === 0 && (
        <p class="muted">No tiles yet: use “Add insight” to put a saved insight or SQL query here.</p>
      )}
      <ol class="tiles" aria-label="Tiles">
        {tiles.map((t, i) => {
          const { w, h } = sizeOf(t);
          const title = t.insight ? t.insight.name || t.insight.short_id : 'Text';
          return (
            <li
              class="card tile"
              key={t.id}
              data-tile={t.id}
              style={{ '--w': w, '--h': h }}
              aria-label={title}
            >
              <div class="tile-head">
                {t.insight ? (
                  <h2>
                    <a href={insightHref(t.insight)}>{title}</a>
                  </h2>
                ) : (
                  <h2 class="muted small">Text</h2>
                )}
                <div class="tile-tools">
                  <button
                    type="button"
                    class="move"
                    data-delta="-1"
                    aria-label={`Move “${title}” up`}
                    title="Move up"
                    disabled={i === 0}
                    onClick={() => arrange({ id: t.id, delta: -1 }, `Moved “${title}” to place ${i}.`)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    class="move"
                    data-delta="1"
                    aria-label={`Move “${title}” down`}
                    title="Move down"
                    disabled={i === tiles.length - 1}
                    onClick={() => arrange({ id: t.id, delta: 1 }, `Moved “${title}” to place ${i + 2}.`)}
                  >
                    ↓
                  </button>
                  <select
                    aria-label={`Width of “${title}”`}
                    value={String(w)}
                    onChange={(e) => {
                      const value = Number((e.currentTarget as HTMLSelectElement).value);
                      void arrange({ id: t.id, w: value }, `“${title}” is now ${WIDTHS[value] ?? value}.`);
                    }}
                  >
                    {!(w in WIDTHS) && <option value={String(w)}>{w} columns</option>}
                    {Object.entries(WIDTHS).map(([v, l]) => (
                      <option key={v} value={v}>
                        {l}
                      </option>
                    ))}
                  </select>
                  <select
                    aria-label={`Height of “${title}”`}
                    value={String(h)}
                    onChange={(e) => {
                      const value = Number((e.currentTarget as HTMLSelectElement).value);
                      void arrange({ id: t.id, h: value }, `“${title}” is now ${HEIGHTS[value] ?? value}.`);
                    }}
                  >
                    {!(h in HEIGHTS) && <option value={String(h)}>{h} rows</option>}
                    {Object.entries(HEIGHTS).map(([v, l]) => (
                      <option key={v} value={v}>
                        {l}
                      </option>
                    ))}
                  </select>
                  <button
                    type="button"
                    aria-label={`Remove “${title}”`}
                    title="Remove"
                    onClick={() => remove(t, title)}
                  >
                    ✕
                  </button>
                </div>
              </div>
              <div class="tile-body">
                <TileView tile={t} height={Math.max(120, h * ROW_PX - 40)} />
              </div>
            </li>
          );
        })}
      </ol>
      <form class="row wrap card" style={{ marginTop: '1rem' }} onSubmit={addText}>
        <label class="grow">
          Text tile
          <input
            name="body"
            required
            maxLength={4000}
            placeholder="A note for everyone who opens this dashboard"
          />
        </label>
        <button type="submit">Add text</button>
      </form>
    </div>
  );
}

/**
 * Any saved insight, SQL ones too, goes on the dashboard as PostHog's frontend puts it there: the
 * insight's `dashboards` gains this dashboard (the server makes the tile).
 */
function AddInsight({
  projectBase,
  dashboardId,
  exclude,
  onAdded,
}: {
  projectBase: string;
  dashboardId: number;
  exclude: Set<number>;
  onAdded: (title: string) => Promise<void>;
}) {
  const { list, error, setError } = useList<SavedInsight & { dashboards?: number[] }>(
    `${projectBase}/insights/?saved=true&limit=200`,
  );
  const choices = (list ?? []).filter((i) => !exclude.has(i.id));
  const add = async (event: Event) => {
    event.preventDefault();
    const id = Number(new FormData(event.currentTarget as HTMLFormElement).get('insight'));
    const insight = choices.find((i) => i.id === id);
    if (!insight) return;
    try {
      await api('PATCH', `${projectBase}/insights/${id}/`, {
        dashboards: [...new Set([...(insight.dashboards ?? []), dashboardId])],
      });
      await onAdded(insight.name || insight.short_id);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form class="card row wrap" onSubmit={add} aria-label="Add insight">
      {error !== null && <ErrorNote error={error} />}
      {list && choices.length === 0 ? (
        <p class="muted">
          Every saved insight is already here. Save one from <a href="/insights">Insights</a> or{' '}
          <a href="/sql">SQL</a>.
        </p>
      ) : (
        <>
          <label class="grow">
            Saved insight
            <select name="insight" required>
              {choices.map((i) => (
                <option key={i.id} value={String(i.id)}>
                  {i.name || i.short_id}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={!list}>
            Add to dashboard
          </button>
        </>
      )}
    </form>
  );
}
