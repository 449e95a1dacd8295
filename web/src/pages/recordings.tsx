import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, get, type HogQLResult } from '../api';
import { ErrorNote } from '../components/error-note';
import { ListTable } from '../components/list-table';
import { type ConsoleLine, consoleLines, decompress, type RRWebEvent } from '../components/replay';
import { formatDateTime, zoneLabel } from '../components/time';
import { useList } from '../components/use-resource';
import { useSession } from '../session';
import { duration } from './insights';

interface Recording {
  id: string;
  distinct_id: string;
  start_time: string;
  recording_duration: number;
  active_seconds: number;
  click_count: number;
  console_error_count: number;
  start_url: string | null;
  viewed: boolean;
  person: { name?: string; distinct_ids?: string[] } | null;
}
interface Playlist {
  short_id: string;
  name: string;
  derived_name?: string | null;
  type: string;
}

const RANGES = {
  '-24h': 'Last 24 hours',
  '-3d': 'Last 3 days',
  '-7d': 'Last 7 days',
  '-30d': 'Last 30 days',
  '-90d': 'Last 90 days',
};

export function Recordings() {
  const { team } = useSession();
  const [range, setRange] = useState<keyof typeof RANGES>('-7d');
  const [minDuration, setMinDuration] = useState(0);
  const [playlist, setPlaylist] = useState('');
  // Without its playlists (not loaded yet, or failed) the page still lists all recordings.
  const { list: playlists } = useList<Playlist>(
    `/api/environments/${team.id}/session_recording_playlists/?limit=100`,
  );
  const params = new URLSearchParams({ date_from: range, limit: '100' });
  if (minDuration > 0)
    params.set(
      'duration',
      JSON.stringify([{ type: 'recording', key: 'duration', operator: 'gt', value: minDuration }]),
    );
  const { list, error } = useList<Recording>(
    playlist
      ? `/api/environments/${team.id}/session_recording_playlists/${playlist}/recordings/?limit=100`
      : `/api/environments/${team.id}/session_recordings/?${params}`,
  );
  return (
    <div class="page">
      <h1>Recordings</h1>
      <section class="card">
        <div class="row wrap">
          <label>
            Playlist
            <select
              value={playlist}
              onChange={(e) => setPlaylist((e.currentTarget as HTMLSelectElement).value)}
            >
              <option value="">All recordings</option>
              {playlists?.map((p) => (
                <option key={p.short_id} value={p.short_id}>
                  {p.name || p.derived_name || p.short_id}
                </option>
              ))}
            </select>
          </label>
          <label>
            Date range
            <select
              value={range}
              disabled={!!playlist}
              onChange={(e) => setRange((e.currentTarget as HTMLSelectElement).value as keyof typeof RANGES)}
            >
              {Object.entries(RANGES).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          <label>
            Longer than (seconds)
            <input
              type="number"
              min={0}
              value={minDuration}
              disabled={!!playlist}
              onChange={(e) => setMinDuration(Number((e.currentTarget as HTMLInputElement).value) || 0)}
            />
          </label>
        </div>
        <ListTable
          items={list}
          error={error}
          loading={<div class="skeleton" style={{ height: '120px', marginTop: '1rem' }} />}
          empty="No recordings here. Turn recording on in Settings → Project; posthog-js records on its next page load."
          tableClass="clickable"
          columns={[
            'Person',
            `Start (${zoneLabel(team.timezone)})`,
            'Duration',
            'Active',
            'Clicks',
            'Errors',
            'First URL',
          ]}
          rowKey={(r) => r.id}
          rowClass={(r) => (r.viewed ? 'viewed' : '')}
          cells={(r) => (
            <>
              <td>
                <a href={`/recordings/${encodeURIComponent(r.id)}`}>{r.person?.name ?? r.distinct_id}</a>
              </td>
              <td>{formatDateTime(r.start_time, team.timezone)}</td>
              <td>{duration(r.recording_duration)}</td>
              <td>{duration(r.active_seconds)}</td>
              <td>{r.click_count}</td>
              <td class={r.console_error_count ? 'danger' : ''}>{r.console_error_count}</td>
              <td class="ellipsis" style={{ maxWidth: '20rem' }}>
                {r.start_url ?? ''}
              </td>
            </>
          )}
        />
      </section>
    </div>
  );
}

interface Player {
  play(offset?: number): void;
  pause(): void;
  getCurrentTime(): number;
  getMetaData(): { startTime: number; endTime: number; totalTime: number };
  setConfig(config: { speed: number }): void;
  destroy(): void;
  on(event: string, handler: (payload: unknown) => void): void;
  iframe: HTMLIFrameElement;
}

/** Blocks per snapshot request: PostHog's (and Burrow's) cap for a logged-in user. */
const BLOCKS_PER_REQUEST = 100;

/** Fetches every blob_v2 block of a recording, in time order, as plain rrweb events. */
async function loadSnapshots(projectId: number, id: string, signal: AbortSignal): Promise<RRWebEvent[]> {
  const base = `/api/environments/${projectId}/session_recordings/${encodeURIComponent(id)}/snapshots/`;
  const { sources } = await get<{ sources: { source: string; blob_key: string }[] }>(base, signal);
  const keys = sources.filter((s) => s.source === 'blob_v2').map((s) => s.blob_key);
  const events: RRWebEvent[] = [];
  for (let i = 0; i < keys.length; i += BLOCKS_PER_REQUEST) {
    const range = keys.slice(i, i + BLOCKS_PER_REQUEST);
    const query = `source=blob_v2&start_blob_key=${range[0]}&end_blob_key=${range[range.length - 1]}`;
    const res = await fetch(`${base}?${query}`, { signal, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`Snapshot data could not be read (${res.status}).`);
    for (const line of (await res.text()).split('\n')) {
      if (!line.trim()) continue;
      const [, event] = JSON.parse(line) as [string, RRWebEvent];
      events.push(await decompress(event));
    }
  }
  return events.sort((a, b) => a.timestamp - b.timestamp);
}

export function RecordingPlayer() {
  const { team } = useSession();
  const { params } = useRoute();
  const id = params.id ?? '';
  const stage = useRef<HTMLDivElement>(null);
  const player = useRef<Player | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [meta, setMeta] = useState<{ startTime: number; totalTime: number } | null>(null);
  const [time, setTime] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [logs, setLogs] = useState<ConsoleLine[]>([]);
  const [events, setEvents] = useState<unknown[][]>([]);

  useEffect(() => {
    const controller = new AbortController();
    const cleanup: (() => void)[] = [];
    let timer = 0;
    (async () => {
      try {
        const [snapshots, { Replayer }] = await Promise.all([
          loadSnapshots(team.id, id, controller.signal),
          import('@rrweb/replay'),
          import('@rrweb/replay/dist/style.css'),
        ]);
        if (snapshots.length < 2) throw new Error('This recording has no playable data yet.');
        const replayer = new Replayer(snapshots as never, {
          root: stage.current!,
          skipInactive: true,
          showWarning: false,
          mouseTail: false,
          UNSAFE_replayCanvas: false,
        }) as unknown as Player;
        player.current = replayer;
        replayer.on('finish', () => setPlaying(false));
        // The recorded viewport is scaled to the card's width, so any screen shows the whole page.
        const fitToStage = () => {
          const frame = replayer.iframe;
          const host = stage.current;
          if (!frame || !host) return;
          const width = Number(frame.width) || frame.clientWidth;
          const height = Number(frame.height) || frame.clientHeight;
          if (!width) return;
          const scale = Math.min(1, host.clientWidth / width);
          const wrapper = host.firstElementChild as HTMLElement | null;
          if (wrapper) wrapper.style.transform = `scale(${scale})`;
          host.style.height = `${Math.round(height * scale)}px`;
        };
        replayer.on('resize', fitToStage);
        window.addEventListener('resize', fitToStage);
        cleanup.push(() => window.removeEventListener('resize', fitToStage));
        fitToStage();
        const m = replayer.getMetaData();
        setMeta({ startTime: m.startTime, totalTime: m.totalTime });
        setLogs(consoleLines(snapshots));
        setLoading(false);
        // Before the first play rrweb reports a meaningless offset: keep the position inside the recording.
        timer = window.setInterval(
          () => setTime(Math.max(0, Math.min(replayer.getCurrentTime(), m.totalTime))),
          200,
        );
        void api(
          'GET',
          `/api/environments/${team.id}/session_recordings/${encodeURIComponent(id)}/?save_view=1`,
        ).catch(() => undefined);
      } catch (e) {
        if ((e as Error).name !== 'AbortError') {
          setError(e);
          setLoading(false);
        }
      }
    })();
    api<HogQLResult>('POST', `/api/environments/${team.id}/query/`, {
      query: {
        kind: 'HogQLQuery',
        query:
          'SELECT event, timestamp, properties.$current_url FROM events WHERE $session_id = {session} ORDER BY timestamp LIMIT 500',
        values: { session: id },
      },
    }).then(
      (r) => setEvents(r.results),
      () => undefined,
    );
    return () => {
      controller.abort();
      clearInterval(timer);
      for (const fn of cleanup) fn();
      player.current?.destroy();
      player.current = null;
    };
  }, [team.id, id]);

  const toggle = () => {
    const p = player.current;
    if (!p) return;
    if (playing) p.pause();
    else p.play(time >= (meta?.totalTime ?? 0) ? 0 : time);
    setPlaying(!playing);
  };
  const seek = (offset: number) => {
    const p = player.current;
    if (!p) return;
    const at = Math.max(0, Math.min(offset, meta?.totalTime ?? 0));
    if (playing) p.play(at);
    else p.pause();
    if (!playing) {
      p.play(at);
      p.pause();
    }
    setTime(at);
  };
  const at = (timestamp: number) => timestamp - (meta?.startTime ?? timestamp);

  return (
    <div class="page">
      <h1>Recording</h1>
      <div class="player-layout">
        <section class="card player">
          {error !== null && <ErrorNote error={error} />}
          {loading && (
            <p class="muted" role="status">
              Loading the recording…
            </p>
          )}
          <div class="stage" ref={stage} />
          {meta && (
            <div class="controls row">
              <button type="button" class="primary" onClick={toggle} aria-label={playing ? 'Pause' : 'Play'}>
                {playing ? 'Pause' : 'Play'}
              </button>
              <input
                type="range"
                aria-label="Position"
                min={0}
                max={meta.totalTime}
                value={time}
                onInput={(e) => seek(Number((e.currentTarget as HTMLInputElement).value))}
              />
              <span class="muted nowrap">
                {duration(time / 1000)} / {duration(meta.totalTime / 1000)}
              </span>
              <select
                aria-label="Speed"
                value={speed}
                onChange={(e) => {
                  const s = Number((e.currentTarget as HTMLSelectElement).value);
                  setSpeed(s);
                  player.current?.setConfig({ speed: s });
                }}
              >
                {[0.5, 1, 2, 4, 8].map((s) => (
                  <option key={s} value={s}>
                    {s}×
                  </option>
                ))}
              </select>
            </div>
          )}
        </section>
        <aside class="card side">
          <h2>Events</h2>
          {events.length === 0 && <p class="muted">No events in this session.</p>}
          <ul class="timeline">
            {events.map(([event, timestamp, url], i) => {
              const offset = at(Date.parse(String(timestamp)));
              return (
                <li key={i}>
                  <button
                    type="button"
                    class="link"
                    onClick={() => seek(offset)}
                    title={url ? String(url) : undefined}
                  >
                    <span class="muted">{duration(Math.max(0, offset) / 1000)}</span> {String(event)}
                  </button>
                </li>
              );
            })}
          </ul>
          <h2>Console</h2>
          {logs.length === 0 && <p class="muted">Nothing was logged.</p>}
          <ul class="timeline console">
            {logs.map((l, i) => (
              <li key={i} class={`level-${l.level}`}>
                <button type="button" class="link" onClick={() => seek(at(l.timestamp))}>
                  <span class="muted">{duration(Math.max(0, at(l.timestamp)) / 1000)}</span> [{l.level}]{' '}
                  {l.text}
                </button>
              </li>
            ))}
          </ul>
        </aside>
      </div>
    </div>
  );
}
