/**
 * Snapshot data as posthog-js sends it, back to plain rrweb events. posthog-js gzips the heavy parts
 * (whole full snapshots, and the arrays of mutation and stylesheet events) and stores the bytes as a
 * latin1 string, marking the event `cv: "2024-10"`.
 */
export interface RRWebEvent {
  type: number;
  timestamp: number;
  data: unknown;
  cv?: string;
  [key: string]: unknown;
}

async function gunzipLatin1(text: string): Promise<unknown> {
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}

const FULL_SNAPSHOT = 2;
const INCREMENTAL = 3;

export async function decompress(event: RRWebEvent): Promise<RRWebEvent> {
  if (event.cv !== '2024-10') return event;
  const { cv: _cv, ...rest } = event;
  if (event.type === FULL_SNAPSHOT && typeof event.data === 'string')
    return { ...rest, data: await gunzipLatin1(event.data) };
  if (event.type === INCREMENTAL && event.data && typeof event.data === 'object') {
    const data = { ...(event.data as Record<string, unknown>) };
    for (const key of ['texts', 'attributes', 'removes', 'adds']) {
      if (typeof data[key] === 'string') data[key] = await gunzipLatin1(data[key] as string);
    }
    return { ...rest, data };
  }
  return rest as RRWebEvent;
}

export interface ConsoleLine {
  level: string;
  text: string;
  timestamp: number;
}

/** rrweb's console plugin events (type 6, plugin rrweb/console@1) as lines to show. */
export function consoleLines(events: RRWebEvent[]): ConsoleLine[] {
  const lines: ConsoleLine[] = [];
  for (const e of events) {
    const data = e.data as { plugin?: string; payload?: { level?: string; payload?: unknown[] } } | undefined;
    if (e.type !== 6 || !data?.plugin?.startsWith('rrweb/console')) continue;
    const parts = (data.payload?.payload ?? []).map((p) =>
      typeof p === 'string' ? p.replace(/^"|"$/g, '') : JSON.stringify(p),
    );
    lines.push({
      level: data.payload?.level ?? 'log',
      text: parts.join(' ').slice(0, 2000),
      timestamp: e.timestamp,
    });
  }
  return lines;
}
