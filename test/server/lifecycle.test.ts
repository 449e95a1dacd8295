import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runToEnd, runTs } from '../helpers/process.js';

/** The real server process: start, bootstrap file, readiness, graceful shutdown, restart. */
describe(`server process (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-life-'));
  let schema: string | undefined;
  const env = async () => {
    schema ??= await freshSchema();
    return {
      BURROW_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
    };
  };
  afterAll(async () => {
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('bootstraps on first start, serves, and finishes an in-flight request on SIGTERM', async () => {
    const server = runTs('src/main.ts', [], await env());
    const ready = JSON.parse(await server.waitFor(/burrow ready/));
    const base = ready.url as string;
    expect(server.lines.some((l) => l.includes('bootstrap.json'))).toBe(true);

    const file = join(dataDir, 'bootstrap.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const boot = JSON.parse(readFileSync(file, 'utf8'));
    expect(boot.personal_api_key).toMatch(/^phx_/);
    expect(boot.project_api_key).toMatch(/^phc_/);

    expect((await fetch(`${base}/_health`)).status).toBe(200);
    const readyz = await fetch(`${base}/_readyz`);
    expect(await readyz.json()).toEqual({ status: 'ok', checks: { metadata: 'ok', events: 'ok' } });
    const me = await fetch(`${base}/api/users/@me/`, {
      headers: { authorization: `Bearer ${boot.personal_api_key}` },
    });
    expect(me.status).toBe(200);

    // Send the head of a request, signal the server, then finish the body: it must still be answered.
    const { port } = new URL(base);
    const body = JSON.stringify({ name: 'Started before SIGTERM' });
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk.toString();
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /api/organizations/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${boot.personal_api_key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    await server.waitFor(/shutting down/);
    socket.write(body);
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 201/);
    expect(response).toContain('Started before SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
  });

  it('reuses the data directory on the next start', async () => {
    const before = readFileSync(join(dataDir, 'bootstrap.json'), 'utf8');
    const boot = JSON.parse(before);
    const server = runTs('src/main.ts', [], await env());
    const base = JSON.parse(await server.waitFor(/burrow ready/)).url as string;
    const orgs = await fetch(`${base}/api/organizations/`, {
      headers: { authorization: `Bearer ${boot.personal_api_key}` },
    });
    const names = ((await orgs.json()) as { results: Array<{ name: string }> }).results.map((o) => o.name);
    expect(names.sort()).toEqual(['Default organization', 'Started before SIGTERM']);
    expect(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).toBe(before);
    expect(server.lines.some((l) => l.includes('first start'))).toBe(false);
    server.child.kill('SIGINT');
    expect((await server.exited).code).toBe(0);
  });

  it('a start that cannot listen (port in use) writes nothing: no data directory, no bootstrap key', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const fresh = join(mkdtempSync(join(tmpdir(), 'burrow-busy-')), 'data');
    const busySchema = await freshSchema();
    try {
      const { code, output } = await runToEnd('src/main.ts', [], {
        ...(await env()),
        BURROW_DATA_DIR: fresh,
        DATABASE_SCHEMA: busySchema,
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(code).not.toBe(0);
      expect(output).toContain(`127.0.0.1:${port} is already in use`);
      expect(existsSync(fresh)).toBe(false);
      if (busySchema) {
        // With PostgreSQL nothing was written there either: the schema was never created.
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        const found = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [
          busySchema,
        ]);
        await client.end();
        expect(found.rowCount).toBe(0);
      }
    } finally {
      blocker.close();
      rmSync(join(fresh, '..'), { recursive: true, force: true });
      if (busySchema) await dropSchema(busySchema);
    }
  });

  it('refuses to start on an invalid setting, naming it', async () => {
    const { code, output } = await runToEnd('src/main.ts', [], { ...(await env()), PORT: 'eighty' });
    expect(code).toBe(2);
    expect(output).toContain('PORT must be a whole number');
  });
});
