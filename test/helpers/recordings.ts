import type { Harness } from './harness.js';

/** A crafted recording as posthog-js would send it to `/s/`: one `$snapshot` batch of rrweb events. */
export interface CraftedRecording {
  sessionId: string;
  distinctId: string;
  /** Epoch ms of the first rrweb event. */
  start: number;
  durationMs: number;
  url?: string;
  clicks?: number;
  keypresses?: number;
  console?: Array<'log' | 'warn' | 'error'>;
  source?: 'web' | 'mobile';
  windowId?: string;
}

/** rrweb events: a Meta with the URL, a full snapshot, clicks and inputs a second apart, console logs. */
export function rrwebEvents(r: CraftedRecording): unknown[] {
  const t = r.start;
  const out: unknown[] = [
    { type: 4, timestamp: t, data: { href: r.url ?? 'https://shop.test/', width: 1280, height: 720 } },
    {
      type: 2,
      timestamp: t + 1,
      data: { node: { type: 0, childNodes: [] }, initialOffset: { top: 0, left: 0 } },
    },
  ];
  let at = t + 1000;
  for (let i = 0; i < (r.clicks ?? 0); i++, at += 1000) {
    out.push({ type: 3, timestamp: at, data: { source: 2, type: 2, id: 1, x: 10, y: 10 } });
  }
  for (let i = 0; i < (r.keypresses ?? 0); i++, at += 1000) {
    out.push({ type: 3, timestamp: at, data: { source: 5, text: `k${i}`, isChecked: false, id: 2 } });
  }
  for (const level of r.console ?? []) {
    out.push({
      type: 6,
      timestamp: at,
      data: { plugin: 'rrweb/console@1', payload: { level, payload: ['x'] } },
    });
  }
  out.push({
    type: 3,
    timestamp: t + r.durationMs,
    data: { source: 0, texts: [], attributes: [], removes: [], adds: [] },
  });
  return out;
}

export async function sendRecordings(h: Harness, recordings: CraftedRecording[]): Promise<void> {
  const body = recordings.map((r) => ({
    event: '$snapshot',
    properties: {
      token: h.boot.project_api_key,
      distinct_id: r.distinctId,
      $session_id: r.sessionId,
      $window_id: r.windowId ?? `win-${r.sessionId}`,
      $snapshot_source: r.source ?? 'web',
      $snapshot_data: rrwebEvents(r),
    },
  }));
  const res = await h.app.inject({
    method: 'POST',
    url: '/s/?compression=none',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (res.statusCode !== 200) throw new Error(`/s/ answered ${res.statusCode}: ${res.body}`);
}

export interface CraftedEvent {
  event: string;
  distinctId: string;
  sessionId?: string;
  timestamp: number;
  properties?: Record<string, unknown>;
}

export async function sendEvents(
  h: Harness,
  events: CraftedEvent[],
  token = h.boot.project_api_key,
): Promise<void> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/batch/',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({
      api_key: token,
      batch: events.map((e) => ({
        event: e.event,
        distinct_id: e.distinctId,
        timestamp: new Date(e.timestamp).toISOString(),
        properties: { ...(e.sessionId ? { $session_id: e.sessionId } : {}), ...e.properties },
      })),
    }),
  });
  if (res.statusCode !== 200) throw new Error(`/batch/ answered ${res.statusCode}: ${res.body}`);
}
