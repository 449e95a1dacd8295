import { createServer } from 'node:net';

/** A start that cannot go ahead, said in one line (no stack trace). */
export class StartupError extends Error {}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use (another Burrow or another server?); stop it or set PORT',
  EACCES: 'may not be opened by this user; choose a PORT above 1023',
  EADDRNOTAVAIL: 'is not an address of this machine; check HOST',
};

/**
 * Checks that `host:port` can be listened on before anything is written (data directory,
 * database, bootstrap key), so a start that fails leaves no trace. The probe is closed again at
 * once; the real listen happens after the stores are open.
 */
export function assertCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const reason = REASONS[error.code ?? ''] ?? `cannot be listened on (${error.code ?? error.message})`;
      reject(new StartupError(`${host}:${port} ${reason}`));
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
