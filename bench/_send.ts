import { spawn } from 'node:child_process';
import { destinationSender } from '../src/server/destinations.js';
const sink = spawn(process.execPath, ['-e', `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end('ok')); }); s.listen(0, '127.0.0.1', () => console.log(s.address().port));`], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((r) => sink.stdout!.once('data', (d) => r(Number(String(d)))));
const send = destinationSender({ allowPrivate: true }, 10_000);
const req = { url: `http://127.0.0.1:${port}/`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sent: 1, a: 'x'.repeat(200) }) };
for (const n of [2000, 10000, 10000]) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  let i = 0;
  await Promise.all(Array.from({ length: 20 }, async () => { while (i++ < n) await send(req as never); }));
  const c = process.cpuUsage(c0); const ms = performance.now() - t0;
  console.log(n, 'requests', (ms / n * 1000).toFixed(0), 'us wall each', ((c.user + c.system) / n).toFixed(0), 'us client CPU each');
}
sink.kill(); process.exit(0);
