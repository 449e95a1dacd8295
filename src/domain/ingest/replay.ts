import { formatTimestamp } from '../../store/events/insert.js';
import type { ReplayEventRow, SnapshotRow } from '../../store/events/rows.js';
import { SLICE_MS, slicer } from '../slices.js';
import type { CaptureEvent } from './rows.js';

// rrweb's numbering: event types, incremental sources and mouse interactions.
const META = 4;
const INCREMENTAL = 3;
const PLUGIN = 6;
const MOUSE_INTERACTION = 2;
const INPUT = 5;
const CLICK = 2;
/** Sources that mean a person is doing something (mouse, scroll, input, touch). */
const ACTIVE_SOURCES = new Set([1, 2, 3, 5, 6]);
/** Gaps between activity longer than this are idle time. Active time is summed per received batch
 * (as PostHog does), so a gap that spans two batches is not counted. */
const ACTIVE_GAP_MS = 5000;

interface RrwebEvent {
  type?: number;
  timestamp?: number;
  data?: { source?: number; type?: number; href?: string; plugin?: string; payload?: { level?: string } };
}

const isRrweb = (v: unknown): v is RrwebEvent => !!v && typeof v === 'object';

/** One `$snapshot` event's rrweb data as stored rows plus a summary for `session_replay_events`. */
function summarise(
  teamId: number,
  e: CaptureEvent,
): { snapshot: SnapshotRow; summary: ReplayEventRow } | null {
  const p = e.properties;
  const sessionId = typeof p.$session_id === 'string' ? p.$session_id : '';
  if (!sessionId) return null;
  const raw = p.$snapshot_data;
  const items = (Array.isArray(raw) ? raw : [raw]).filter(isRrweb);
  const times = items.map((i) => i.timestamp).filter((t): t is number => typeof t === 'number');
  const first = times.length ? Math.min(...times) : Date.parse(e.timestamp);
  const last = times.length ? Math.max(...times) : first;
  const summary: Required<Omit<ReplayEventRow, 'first_url' | 'urls'>> &
    Pick<ReplayEventRow, 'first_url' | 'urls'> = {
    team_id: teamId,
    session_id: sessionId,
    distinct_id: e.distinctId,
    first_timestamp: formatTimestamp(first),
    last_timestamp: formatTimestamp(last),
    urls: [],
    click_count: 0,
    keypress_count: 0,
    mouse_activity_count: 0,
    active_milliseconds: 0,
    console_log_count: 0,
    console_warn_count: 0,
    console_error_count: 0,
    size: 0,
    event_count: items.length,
    message_count: 1,
    snapshot_source: typeof p.$snapshot_source === 'string' ? p.$snapshot_source : 'web',
  };
  const activity: number[] = [];
  for (const item of items) {
    const d = item.data ?? {};
    if (item.type === META && typeof d.href === 'string') summary.urls?.push(d.href);
    if (item.type === INCREMENTAL) {
      if (d.source === MOUSE_INTERACTION) summary.mouse_activity_count += 1;
      if (d.source === MOUSE_INTERACTION && d.type === CLICK) summary.click_count += 1;
      if (d.source === INPUT) summary.keypress_count += 1;
      if (ACTIVE_SOURCES.has(d.source ?? -1) && typeof item.timestamp === 'number')
        activity.push(item.timestamp);
    }
    if (item.type === PLUGIN && d.plugin === 'rrweb/console@1') {
      const level = d.payload?.level;
      if (level === 'warn') summary.console_warn_count += 1;
      else if (level === 'error') summary.console_error_count += 1;
      else summary.console_log_count += 1;
    }
  }
  activity.sort((a, b) => a - b);
  for (let i = 1; i < activity.length; i++) {
    const gap = (activity[i] as number) - (activity[i - 1] as number);
    if (gap <= ACTIVE_GAP_MS) summary.active_milliseconds += gap;
  }
  const data = JSON.stringify(items);
  summary.size = Buffer.byteLength(data);
  summary.first_url = summary.urls?.[0] ?? (typeof p.$current_url === 'string' ? p.$current_url : undefined);
  const snapshot: SnapshotRow = {
    team_id: teamId,
    session_id: sessionId,
    window_id: typeof p.$window_id === 'string' ? p.$window_id : '',
    timestamp: formatTimestamp(first),
    source: summary.snapshot_source,
    data,
  };
  return { snapshot, summary };
}

export const isSnapshot = (e: CaptureEvent) => e.event === '$snapshot' || e.event === '$snapshot_items';

/**
 * Recording rows for the `$snapshot` events of one request (events without a session are dropped),
 * pausing between events: each may hold megabytes of rrweb data to re-encode.
 */
export async function replayRows(teamId: number, events: CaptureEvent[]) {
  const snapshots: SnapshotRow[] = [];
  const summaries: ReplayEventRow[] = [];
  const pause = slicer(SLICE_MS, teamId);
  for (const e of events) {
    const rows = summarise(teamId, e);
    await pause();
    if (!rows) continue;
    snapshots.push(rows.snapshot);
    summaries.push(rows.summary);
  }
  return { snapshots, summaries };
}
