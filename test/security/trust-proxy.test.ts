import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { query, uuid } from '../helpers/query-lists.js';

/**
 * Behind a reverse proxy the client address is what the proxy appended to X-Forwarded-For, never
 * what the client wrote there itself: per-address limits (login, shared links) and capture's $ip
 * read `request.ip`. `true` is one proxy hop; a list trusts only the named proxies.
 */
describe(`the client address behind a trusted proxy (${backend})`, () => {
  const login = (h: Harness, xff: string, email: string, remoteAddress = '127.0.0.1') =>
    h.app.inject({
      method: 'POST',
      url: '/api/login/',
      payload: { email, password: 'wrong password' },
      headers: { 'x-forwarded-for': xff },
      remoteAddress,
    });

  describe('TRUST_PROXY=true (one proxy in front)', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ TRUST_PROXY: 'true', LOGIN_MAX_ATTEMPTS: '3' });
    });
    afterAll(async () => h?.close());

    it('throttles a client that rotates the leftmost X-Forwarded-For entry', async () => {
      // The proxy appends the real client (203.0.113.7) after whatever the client sent.
      for (let i = 0; i < 3; i++)
        expect((await login(h, `198.51.100.${i}, 203.0.113.7`, `guess${i}@example.com`)).statusCode).toBe(
          400,
        );
      const res = await login(h, '198.51.100.200, 203.0.113.7', 'guess9@example.com');
      expect(res.statusCode).toBe(429);
      // Another real client behind the same proxy is not affected.
      expect((await login(h, '198.51.100.1, 203.0.113.8', 'guess9@example.com')).statusCode).toBe(400);
    });

    it("records the proxy-appended address as capture's $ip", async () => {
      const id = uuid();
      const res = await h.request('POST', '/batch/', {
        key: null,
        headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.9' },
        body: { api_key: h.boot.project_api_key, batch: [{ event: 'xff', distinct_id: 'x', uuid: id }] },
      });
      expect(res.statusCode).toBe(200);
      const sql = `SELECT properties.$ip FROM events WHERE uuid = '${id}'`;
      const deadline = Date.now() + 10_000;
      let rows: unknown[][] = [];
      while (rows.length === 0 && Date.now() < deadline) {
        rows = (
          await query(h, h.boot.project_id, { kind: 'HogQLQuery', query: sql }, h.key, {
            refresh: 'force_blocking',
          })
        ).json().results;
      }
      expect(rows).toEqual([['203.0.113.9']]);
    });
  });

  describe('TRUST_PROXY=<proxy addresses>', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ TRUST_PROXY: '10.0.0.1,10.0.1.0/24', LOGIN_MAX_ATTEMPTS: '2' });
    });
    afterAll(async () => h?.close());

    it('takes the rightmost address not from a listed proxy', async () => {
      // Client -> 10.0.1.5 -> 10.0.0.1 -> Burrow: both proxies listed, the client is 203.0.113.20.
      for (let i = 0; i < 2; i++)
        expect(
          (await login(h, `1.1.1.${i}, 203.0.113.20, 10.0.1.5`, `p${i}@example.com`, '10.0.0.1')).statusCode,
        ).toBe(400);
      expect(
        (await login(h, '1.1.1.99, 203.0.113.20, 10.0.1.5', 'p9@example.com', '10.0.0.1')).statusCode,
      ).toBe(429);
    });

    it('ignores X-Forwarded-For from a peer that is not a listed proxy', async () => {
      // A direct client (192.0.2.50) making up forwarded addresses is counted as itself.
      for (let i = 0; i < 2; i++)
        expect((await login(h, `203.0.113.${100 + i}`, `d${i}@example.com`, '192.0.2.50')).statusCode).toBe(
          400,
        );
      expect((await login(h, '203.0.113.150', 'd9@example.com', '192.0.2.50')).statusCode).toBe(429);
    });
  });
});
