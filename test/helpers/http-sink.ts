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
