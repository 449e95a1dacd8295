import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { get } from '../api';
import { ErrorNote } from '../components/error-note';
import { ordered, sizeOf } from './dashboard/layout';
import { type Tile, TileView } from './dashboard/tile-view';
import './dashboard/dashboards.css';

interface Shared {
  type: 'dashboard' | 'insight';
  dashboard?: { name: string | null; description?: string; tiles: Tile[] };
  insight?: NonNullable<Tile['insight']>;
}

/**
 * What a share link opens, for anyone with it and no login: the dashboard (or insight) read from
 * the public `/shared/{token}.json`, without any of the editing tools.
 */
export function SharedView() {
  const { params } = useRoute();
  const [shared, setShared] = useState<Shared | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    get<Shared>(`/shared/${encodeURIComponent(params.token ?? '')}.json`).then(setShared, setError);
  }, [params.token]);
  if (error !== null)
    return (
      <main class="page shared">
        <ErrorNote error={error} />
      </main>
    );
  if (!shared) return <div class="loading" aria-busy="true" />;
  const tiles =
    shared.type === 'dashboard'
      ? ordered((shared.dashboard?.tiles ?? []).filter((t) => !t.deleted))
      : shared.insight
        ? [
            {
              id: 0,
              insight: shared.insight,
              text: null,
              last_refresh: null,
              layouts: { sm: { x: 0, y: 0, w: 12, h: 8 } },
            },
          ]
        : [];
  const title = shared.type === 'dashboard' ? shared.dashboard?.name : shared.insight?.name;
  return (
    <main class="page dashboard shared">
      <h1>{title || 'Shared from Burrow'}</h1>
      {shared.dashboard?.description && <p class="muted">{shared.dashboard.description}</p>}
      <ol class="tiles" aria-label="Tiles">
        {tiles.map((t) => {
          const { w, h } = sizeOf(t);
          const name = t.insight ? t.insight.name || t.insight.short_id : 'Text';
          return (
            <li class="card tile" key={t.id} style={{ '--w': w, '--h': h }} aria-label={name}>
              {t.insight && <h2 class="tile-title">{name}</h2>}
              <div class="tile-body">
                <TileView tile={t} height={Math.max(120, h * 56 - 40)} />
              </div>
            </li>
          );
        })}
      </ol>
    </main>
  );
}
