import { type Parsed, readEvents } from './import-source.js';

export interface ImportOptions {
  file: string;
  host: string;
  token: string;
  batchSize?: number;
  concurrency?: number;
  progress?: (done: number, rejected: number) => void;
}

export interface ImportSummary {
  rows: number;
  imported: number;
  rejected: number;
  seconds: number;
  rate: number;
  rejects: Array<{ line: number; reason: string }>;
}

const MAX_LISTED_REJECTS = 50;

/** The server could not be reached at all: names the host tried. */
export class UnreachableError extends Error {}

function cause(error: unknown): string {
  const c = (error as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? (error instanceof Error ? error.message : String(error));
}

/** Fails fast, naming the host, when nothing answers there (before any line is read). */
export async function checkReachable(host: string): Promise<void> {
  try {
    await fetch(`${host}/_health`, { signal: AbortSignal.timeout(5000) });
  } catch (error) {
    throw new UnreachableError(
      `cannot reach a Burrow server at ${host} (${cause(error)}). Start it with \`npm start\`, or pass --host <url>.`,
    );
  }
}

/** POSTs one batch to /batch/, retrying while the server says busy (503) or is unreachable. */
async function send(
  host: string,
  token: string,
  batch: Array<{ line: number; event: Record<string, unknown> }>,
) {
  for (let attempt = 1; ; attempt++) {
    let res: Response | undefined;
    try {
      res = await fetch(`${host}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: token,
          historical_migration: true,
          batch: batch.map((b) => b.event),
        }),
      });
    } catch (error) {
      if (attempt >= 5) return `cannot reach ${host}: ${cause(error)}`;
    }
    if (res?.ok) return null;
    if (res && res.status !== 503 && res.status < 500) {
      const body = (await res.json().catch(() => ({}))) as { detail?: string };
      return body.detail ?? `HTTP ${res.status}`;
    }
    if (attempt >= 8) return `gave up after ${attempt} attempts (HTTP ${res?.status ?? 'unreachable'})`;
    const wait = Number(res?.headers.get('retry-after') ?? 0) * 1000 || 100 * 2 ** attempt;
    await new Promise((r) => setTimeout(r, Math.min(wait, 10_000)));
  }
}

/**
 * Reads a JSON Lines or CSV file and sends it through the same capture path the SDKs use, a few
 * batches in flight at a time. A batch the server refuses is reported line by line.
 */
export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = options.batchSize ?? 1000;
  const concurrency = options.concurrency ?? 4;
  const summary: ImportSummary = { rows: 0, imported: 0, rejected: 0, seconds: 0, rate: 0, rejects: [] };
  const reject = (line: number, reason: string) => {
    summary.rejected += 1;
    if (summary.rejects.length < MAX_LISTED_REJECTS) summary.rejects.push({ line, reason });
  };
  const inFlight = new Set<Promise<void>>();
  const dispatch = (batch: Array<{ line: number; event: Record<string, unknown> }>) => {
    const p = send(options.host, options.token, batch).then((error) => {
      if (error === null) summary.imported += batch.length;
      else for (const b of batch) reject(b.line, error);
      options.progress?.(summary.imported, summary.rejected);
    });
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  let batch: Array<{ line: number; event: Record<string, unknown> }> = [];
  for await (const parsed of readEvents(options.file) as AsyncGenerator<Parsed>) {
    summary.rows += 1;
    if (!parsed.ok) {
      reject(parsed.line, parsed.reason);
      continue;
    }
    batch.push({ line: parsed.line, event: parsed.event });
    if (batch.length >= batchSize) {
      dispatch(batch);
      batch = [];
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  }
  if (batch.length > 0) dispatch(batch);
  await Promise.all(inFlight);
  summary.seconds = (performance.now() - started) / 1000;
  summary.rate = summary.imported / Math.max(summary.seconds, 0.001);
  return summary;
}
