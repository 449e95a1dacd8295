import type { Config } from '../config.js';

/** The local server's base URL when its `/_health` answers (within 1.5 s), else null. */
export async function runningServer(config: Pick<Config, 'host' | 'port'>): Promise<string | null> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  try {
    const res = await fetch(`${base}/_health`, { signal: AbortSignal.timeout(1500) });
    return res.ok ? base : null;
  } catch {
    return null;
  }
}
