import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationRequest } from '../../src/adapters/destinations/http-request.js';
import { connectPostgres } from '../../src/adapters/destinations/postgres-connect.js';
import { s3Client } from '../../src/adapters/destinations/s3-client.js';
import {
  assertHostAllowed,
  BlockedHostError,
  checkedAddresses,
  type NetworkPolicy,
} from '../../src/adapters/network.js';
import { type AddressDnsServer, startAddressDnsServer } from '../helpers/dns-address-server.js';
import { createDestinationDb, type DestinationDb } from '../helpers/export-destinations.js';
import { drain, insertArrived, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

// A global unicast address the policy allows; these tests never connect to it.
const PUBLIC = '8.8.4.4';
const PRIVATE_MESSAGE = (host: string) =>
  `Destination host '${host}' is on a private network; set BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS=true to allow it`;

/**
 * DNS rebinding: a name that passes the check and then answers a private address. A real DNS
 * server on loopback answers with TTL 0, address after address; connections must go to the very
 * address they checked, so a second answer never reaches a socket unchecked.
 */
describe('batch export SSRF protection against DNS rebinding', () => {
  let dns: AddressDnsServer;
  let http: Server;
  let port: number;
  let hits = 0;
  let strict: NetworkPolicy;
  let open: NetworkPolicy;
  beforeAll(async () => {
    dns = await startAddressDnsServer();
    strict = { allowPrivate: false, dnsServers: [dns.address] };
    open = { allowPrivate: true, dnsServers: [dns.address] };
    http = createServer((req, res) => {
      hits++;
      req.resume();
      res.end('ok');
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    port = (http.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => http?.close(r));
    await dns?.close();
  });

  it('checks each answer: public passes, private is refused', async () => {
    dns.answers.set('flip.test', [PUBLIC, '127.0.0.1']);
    expect(await checkedAddresses(strict, 'flip.test')).toEqual([{ address: PUBLIC, family: 4 }]);
    await expect(checkedAddresses(strict, 'flip.test')).rejects.toThrow(PRIVATE_MESSAGE('flip.test'));
    await expect(checkedAddresses(strict, 'unknown.test')).rejects.toThrow(
      "Destination host 'unknown.test' could not be resolved",
    );
  });

  it('connects HTTP requests to the address resolved through the policy', async () => {
    // The system resolver does not know this name: reaching the server proves the socket used ours.
    dns.answers.set('hook.test', ['127.0.0.1']);
    hits = 0;
    const res = await destinationRequest(open, new URL(`http://hook.test:${port}/`), { method: 'GET' });
    expect(res).toMatchObject({ status: 200, text: 'ok' });
    expect(hits).toBe(1);
  });

  it('refuses an HTTP connection whose own lookup answers private after the check passed', async () => {
    dns.answers.set('rebind.test', [PUBLIC, '127.0.0.1']);
    dns.asked.delete('rebind.test');
    hits = 0;
    await assertHostAllowed(strict, 'rebind.test');
    const sent = destinationRequest(strict, new URL(`http://rebind.test:${port}/batch/`), {
      method: 'POST',
      body: '{}',
    });
    await expect(sent).rejects.toBeInstanceOf(BlockedHostError);
    expect(hits).toBe(0);
    expect(dns.asked.get('rebind.test')).toBe(2);
  });

  describe('PostgreSQL and S3 destinations', () => {
    let dest: DestinationDb;
    let s3server: S3rver;
    let s3port: number;
    const dir = mkdtempSync(join(tmpdir(), 'burrow-ssrf-s3-'));
    beforeAll(async () => {
      dest = await createDestinationDb();
      s3server = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: dir,
        // Named hosts are not bucket names here (path-style requests).
        vhostBuckets: false,
        configureBuckets: [{ name: 'exports', configs: [] }],
      });
      s3port = (await s3server.run()).port;
    });
    afterAll(async () => {
      await dest?.drop();
      await s3server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('connects PostgreSQL to the checked address, and refuses a private one', async () => {
      dns.answers.set('pg.test', ['127.0.0.1']);
      const client = await connectPostgres({ ...dest.config, host: 'pg.test' }, open);
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
      await expect(connectPostgres({ ...dest.config, host: 'pg.test' }, strict)).rejects.toThrow(
        PRIVATE_MESSAGE('pg.test'),
      );
    });

    it('sends S3 requests through the policy: reachable when allowed, refused when rebound', async () => {
      const config = (host: string) => ({
        bucket_name: 'exports',
        region: 'us-east-1',
        endpoint_url: `http://${host}:${s3port}`,
        aws_access_key_id: 'S3RVER',
        aws_secret_access_key: 'S3RVER',
      });
      dns.answers.set('s3.test', ['127.0.0.1']);
      const allowed = await s3Client(config('s3.test'), open, { ambientCredentials: false });
      const head = await allowed.send(new HeadBucketCommand({ Bucket: 'exports' }));
      expect(head.$metadata.httpStatusCode).toBe(200);
      allowed.destroy();

      // The client's own check sees a public address; its socket's lookup then sees loopback.
      dns.answers.set('s3-rebind.test', [PUBLIC, '127.0.0.1']);
      const rebound = await s3Client(config('s3-rebind.test'), strict, { ambientCredentials: false });
      await expect(rebound.send(new HeadBucketCommand({ Bucket: 'exports' }))).rejects.toThrow(
        PRIVATE_MESSAGE('s3-rebind.test'),
      );
      rebound.destroy();
    });
  });
});

/** The same through the app: DNS_SERVERS, a saved HTTP export, and a run whose connection is rebound. */
describe(`batch export runs refuse a rebound destination (${backend})`, () => {
  const clock = testClock('2024-04-01T00:05:00Z');
  let dns: AddressDnsServer;
  let h: Harness;
  let http: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    dns = await startAddressDnsServer();
    http = createServer((req, res) => {
      hits++;
      req.resume();
      res.end('{"status":1}');
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    port = (http.address() as { port: number }).port;
    h = await startHarness(
      { BATCH_EXPORTS_SCHEDULER: 'false', BATCH_EXPORTS_SETTLE_MS: '0', DNS_SERVERS: dns.address },
      { now: clock.now },
    );
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => http?.close(r));
    await dns?.close();
  });

  it('saves an export whose host is public, then fails the run that would reach loopback', async () => {
    const base = `/api/projects/${h.boot.project_id}/batch_exports/`;
    const create = (host: string) =>
      h.request('POST', base, {
        body: {
          name: 'rebind',
          interval: 'hour',
          destination: { type: 'HTTP', config: { url: `http://${host}:${port}/batch/`, token: 'phc_x' } },
        },
      });
    dns.answers.set('private.test', ['127.0.0.1']);
    const refused = await create('private.test');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ attr: 'destination', detail: PRIVATE_MESSAGE('private.test') });

    dns.answers.set('events.test', [PUBLIC]);
    const created = await create('events.test');
    expect(created.statusCode).toBe(201);
    await insertArrived(h, h.boot.project_id, [{ at: '2024-04-01T00:10:00Z' }]);
    // The run's check before opening sees the public address; the socket's lookup sees loopback.
    dns.asked.delete('events.test');
    dns.answers.set('events.test', [PUBLIC, '127.0.0.1']);
    hits = 0;
    clock.set('2024-04-01T01:00:01Z');
    await drain(schedulerFor(h));
    const runs = (
      await h.request('GET', `${base}${created.json().id}/runs/?after=2000-01-01T00:00:00Z`)
    ).json();
    expect(runs.results[0]).toMatchObject({ status: 'Failed', latest_error: PRIVATE_MESSAGE('events.test') });
    expect(hits).toBe(0);
  });

  it('refuses private address literals in the URL (no name lookup guards them)', async () => {
    const base = `/api/projects/${h.boot.project_id}/batch_exports/`;
    for (const host of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '[::1]', '[::ffff:127.0.0.1]']) {
      const res = await h.request('POST', base, {
        body: {
          name: 'literal',
          interval: 'hour',
          destination: { type: 'HTTP', config: { url: `http://${host}:${port}/batch/`, token: 'phc_x' } },
        },
      });
      expect(res.statusCode, host).toBe(400);
      expect(res.json()).toMatchObject({ attr: 'destination' });
    }
    expect(hits).toBe(0);
  });
});
