import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '../../src/adapters/destinations/postgres-connect.js';
import { BlockedHostError, checkedAddresses, type NetworkPolicy } from '../../src/adapters/network.js';
import { isForbiddenAddress } from '../../src/adapters/network-ranges.js';
import { MEMBER } from '../../src/domain/organizations/levels.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const strict: NetworkPolicy = { allowPrivate: false };
const SOCKET_DIR = '/var/run/postgresql';
const socketRefused = (host: string) =>
  `Destination host '${host}' is a Unix socket on this machine; set BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS=true to allow it`;

describe('destination address classification', () => {
  const forbidden = [
    // IPv4 special-purpose ranges, TEST-NETs included.
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.2', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6 ranges and the forms that embed an IPv4 address.
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:192.0.2.2', 'IPv4-mapped TEST-NET'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::10.0.0.1', 'IPv4-compatible private'],
    ['::a00:1', 'IPv4-compatible private, hex'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64 link-local'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c000:202::1', '6to4 of TEST-NET-1'],
    ['2002:a00:1::1', '6to4 of a private address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['[::1]', 'bracketed loopback'],
    ['fe80::1%eth0', 'scoped link-local'],
    ['not-an-address', 'unparseable'],
  ];
  it.each(forbidden)('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  const allowed = [
    ['8.8.8.8', 'public IPv4'],
    ['2606:4700:4700::1111', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['64:ff9b::808:808', 'NAT64 of a public address'],
    ['2002:808:808::1', '6to4 of a public address'],
  ];
  it.each(allowed)('allows %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it("refuses every address of this machine's own interfaces, whatever its range", () => {
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((i) => i.address);
    expect(own.length).toBeGreaterThan(0);
    for (const address of own)
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: true });
  });

  it('applies at connect time to literal hosts too', async () => {
    for (const host of ['192.0.2.2', '[::ffff:127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]']) {
      await expect(checkedAddresses(strict, host)).rejects.toBeInstanceOf(BlockedHostError);
    }
    expect(await checkedAddresses(strict, '8.8.8.8')).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});

describe('a Unix socket host is refused unless private networks are allowed', () => {
  const config = { host: SOCKET_DIR, port: 5432, user: 'postgres', password: 'x', database: 'postgres' };

  it('refuses the connection a run, backfill or test step would open', async () => {
    await expect(connectPostgres(config, strict)).rejects.toThrow(socketRefused(SOCKET_DIR));
  });

  it('still connects when private networks are allowed', async () => {
    const client = await connectPostgres(config, { allowPrivate: true });
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
  });
});

describe(`batch export routes refuse a socket host on every path (${backend})`, () => {
  let h: Harness;
  let member: string;
  let base: string;
  const body = (host: string, step?: number) => ({
    name: 'sock',
    interval: 'hour',
    destination: {
      type: 'Postgres',
      config: { host, port: 5432, user: 'postgres', password: 'x', database: 'postgres' },
    },
    ...(step === undefined ? {} : { step }),
  });
  beforeAll(async () => {
    h = await startHarness({ BATCH_EXPORTS_SCHEDULER: 'false' });
    ({ key: member } = await h.user({ organizationId: h.boot.organization_id, level: MEMBER }));
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
  });
  afterAll(async () => h?.close());

  const refused = { type: 'validation_error', attr: 'destination', detail: socketRefused(SOCKET_DIR) };

  it('run_test_step_new: every step is refused before it connects (was: connected as the local superuser)', async () => {
    for (const step of [0, 1, 2]) {
      const res = await h.request('POST', `${base}run_test_step_new/`, {
        key: member,
        body: body(SOCKET_DIR, step),
      });
      expect({ status: res.statusCode, body: res.json() }).toMatchObject({ status: 400, body: refused });
    }
    const org = `/api/organizations/${h.boot.organization_id}/batch_exports/run_test_step_new/`;
    const res = await h.request('POST', org, { key: member, body: body(SOCKET_DIR, 0) });
    expect({ status: res.statusCode, body: res.json() }).toMatchObject({ status: 400, body: refused });
  });

  it('save and PATCH are refused; run_test_step of a stored export with a socket host too', async () => {
    const create = await h.request('POST', base, { key: member, body: body(SOCKET_DIR) });
    expect({ status: create.statusCode, body: create.json() }).toMatchObject({ status: 400, body: refused });

    // A stored export on a public host; PATCH and run_test_step then try the socket.
    const ok = await h.request('POST', base, { key: member, body: body('8.8.8.8') });
    expect(ok.statusCode).toBe(201);
    const id = ok.json().id;
    const patch = await h.request('PATCH', `${base}${id}/`, {
      key: member,
      body: { destination: { type: 'Postgres', config: { host: SOCKET_DIR } } },
    });
    expect({ status: patch.statusCode, body: patch.json() }).toMatchObject({ status: 400, body: refused });
    const step = await h.request('POST', `${base}${id}/run_test_step/`, {
      key: member,
      body: { destination: { type: 'Postgres', config: { host: SOCKET_DIR } }, step: 0 },
    });
    expect({ status: step.statusCode, body: step.json() }).toMatchObject({ status: 400, body: refused });
  });

  it('refuses TEST-NET and own-interface hosts in test steps as at save time', async () => {
    for (const host of ['192.0.2.2', '203.0.113.1', '::ffff:127.0.0.1', '64:ff9b::7f00:1']) {
      const res = await h.request('POST', `${base}run_test_step_new/`, { key: member, body: body(host, 0) });
      expect({ host, status: res.statusCode, attr: res.json().attr }).toEqual({
        host,
        status: 400,
        attr: 'destination',
      });
    }
  });
});
