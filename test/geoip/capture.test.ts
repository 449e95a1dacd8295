import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { ok, uuid } from '../helpers/query-lists.js';

/**
 * GeoIP at capture through real requests: `$geoip_*` on events from the request's address (or
 * the event's own `$ip`), the person's `$geoip_*` and `$initial_geoip_*`, `$geoip_disable`,
 * projects that discard IPs, and proxy headers believed only with TRUST_PROXY.
 */
let h: Harness;
let project: number;

const send = async (
  hh: Harness,
  batch: object[],
  headers: Record<string, string> = {},
  remoteAddress?: string,
) => {
  const res = await hh.app.inject({
    method: 'POST',
    url: '/batch/',
    headers: { 'content-type': 'application/json', ...headers },
    payload: { api_key: hh.boot.project_api_key, batch },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
};
const props = async (hh: Harness, id: string) => {
  const out = await ok(hh, hh.boot.project_id, {
    kind: 'HogQLQuery',
    query: `SELECT properties FROM events WHERE uuid = '${id}'`,
  });
  return JSON.parse(String(out.results[0]?.[0] ?? '{}')) as Record<string, unknown>;
};
const person = async (hh: Harness, distinct: string) => {
  const res = await hh.request('GET', `/api/projects/${hh.boot.project_id}/persons/?distinct_id=${distinct}`);
  return (
    (res.json() as { results: Array<{ properties: Record<string, unknown> }> }).results[0]?.properties ?? {}
  );
};

beforeAll(async () => {
  // TRUST_PROXY for the last case only matters for requests with X-Forwarded-For: one server, and
  // its own checks of which peers are believed (a loopback peer is the proxy here).
  h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', TRUST_PROXY: '127.0.0.1' });
  project = h.boot.project_id;
});
afterAll(async () => h?.close());

describe('GeoIP at capture', () => {
  it('locates an event by its address and gives the person current and initial location', async () => {
    const first = uuid();
    await send(h, [
      { event: 'visit', distinct_id: 'traveller', uuid: first, properties: { $ip: '81.2.69.142' } },
    ]);
    expect(await props(h, first)).toMatchObject({
      $geoip_country_code: 'GB',
      $geoip_country_name: 'United Kingdom',
      $geoip_city_name: 'London',
      $geoip_continent_code: 'EU',
    });
    const later = uuid();
    await send(h, [
      { event: 'visit', distinct_id: 'traveller', uuid: later, properties: { $ip: '8.8.8.8' } },
    ]);
    expect(await props(h, later)).toMatchObject({ $geoip_country_code: 'US' });
    expect(await person(h, 'traveller')).toMatchObject({
      $geoip_country_code: 'US',
      $initial_geoip_country_code: 'GB',
      $initial_geoip_city_name: 'London',
    });
    // Usable in HogQL like any property.
    const byCountry = await ok(h, project, {
      kind: 'HogQLQuery',
      query:
        "SELECT properties.$geoip_country_code AS c, count() FROM events WHERE event = 'visit' GROUP BY c ORDER BY c",
    });
    expect(byCountry.results).toEqual([
      ['GB', 1],
      ['US', 1],
    ]);
  });

  it('respects $geoip_disable, private addresses and projects that discard IPs', async () => {
    const disabled = uuid();
    const local = uuid();
    await send(h, [
      {
        event: 'x',
        distinct_id: 'd1',
        uuid: disabled,
        properties: { $ip: '81.2.69.142', $geoip_disable: true },
      },
      { event: 'x', distinct_id: 'd2', uuid: local, properties: { $ip: '192.168.0.10' } },
    ]);
    expect(Object.keys(await props(h, disabled)).filter((k) => k.startsWith('$geoip_'))).toEqual([
      '$geoip_disable',
    ]);
    expect(Object.keys(await props(h, local)).some((k) => k.startsWith('$geoip_'))).toBe(false);

    expect(
      (await h.request('PATCH', `/api/projects/${project}/`, { body: { anonymize_ips: true } })).statusCode,
    ).toBe(200);
    const anonymous = uuid();
    await send(h, [{ event: 'x', distinct_id: 'd3', uuid: anonymous, properties: { $ip: '81.2.69.142' } }]);
    const p = await props(h, anonymous);
    expect(p.$ip).toBeUndefined();
    expect(Object.keys(p).some((k) => k.startsWith('$geoip_'))).toBe(false);
    await h.request('PATCH', `/api/projects/${project}/`, { body: { anonymize_ips: false } });
  });

  it('uses the request’s address, believing X-Forwarded-For only from a trusted proxy', async () => {
    // A client connecting straight from a public address: located by it, its header ignored.
    const direct = uuid();
    await send(
      h,
      [{ event: 'y', distinct_id: 'p1', uuid: direct }],
      { 'x-forwarded-for': '8.8.8.8' },
      '81.2.69.142',
    );
    expect(await props(h, direct)).toMatchObject({ $ip: '81.2.69.142', $geoip_country_code: 'GB' });

    // Through the trusted proxy (loopback): the forwarded address is the client's.
    const proxied = uuid();
    await send(h, [{ event: 'y', distinct_id: 'p3', uuid: proxied }], { 'x-forwarded-for': '8.8.8.8' });
    expect(await props(h, proxied)).toMatchObject({ $ip: '8.8.8.8', $geoip_country_code: 'US' });
  });
});
