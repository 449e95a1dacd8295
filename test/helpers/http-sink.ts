import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';

/**
 * A loopback HTTP server standing in for another PostHog's `/batch/` (the HTTP batch export
 * destination): every gzipped JSON body it receives is kept in `posted`, answered as PostHog does.
 */
export async function gzipJsonSink() {
  const posted: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push(JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')));
      res.end('{"status":1}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    posted,
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/batch/`,
    close: () => new Promise((r) => server.close(r)),
  };
}

export interface SinkRequest {
  method: string;
  url: string;
  body: string;
  at: number;
}

/**
 * A loopback HTTP server standing in for a realtime destination: every request is kept in
 * `received`; `answer(n)` (n from 1) decides the reply: a status, a delay, or a body streamed
 * slowly (`streamBytes`, 64 KB per tick) for a destination that answers without end.
 */
export async function destinationSink(
  answer: (n: number) => { status: number; delayMs?: number; streamBytes?: number } = () => ({ status: 200 }),
) {
  const received: SinkRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let streamed = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const a = answer(received.length);
      setTimeout(() => {
        res.writeHead(a.status, { 'content-type': 'text/plain' });
        if (!a.streamBytes) {
          res.end('ok');
          return;
        }
        const chunk = Buffer.alloc(64 * 1024, 120);
        let left = a.streamBytes;
        const tick = setInterval(() => {
          if (left <= 0 || res.destroyed) {
            clearInterval(tick);
            res.end();
            return;
          }
          res.write(chunk);
          streamed += chunk.length;
          left -= chunk.length;
        }, 5);
        res.on('close', () => clearInterval(tick));
      }, a.delayMs ?? 0);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    received,
    /** Bytes of streamed answers written so far. */
    streamed: () => streamed,
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
