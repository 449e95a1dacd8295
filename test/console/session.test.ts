import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** `name=value` pairs from a response's Set-Cookie headers. */
function cookies(res: { headers: Record<string, unknown> }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of [res.headers['set-cookie']].flat()) {
    const [pair] = String(header).split(';');
    const [name, ...value] = pair!.split('=');
    out[name!] = value.join('=');
  }
  return out;
}

/** The console's credentials: the session cookie on every /api/ route, CSRF on unsafe methods. */
describe(`console sessions (${backend})`, () => {
  let h: Harness;
  let cookie: string;
  let csrf: string;
  const email = 'owner-console@example.com';

  beforeAll(async () => {
    h = await startHarness({ BURROW_ADMIN_EMAIL: email });
    await setPasswordByEmail(h.deps, email, 'first password');
    const res = await h.request('POST', '/api/login/', {
      key: null,
      body: { email, password: 'first password' },
    });
    expect(res.statusCode).toBe(200);
    const jar = cookies(res);
    csrf = jar.burrow_csrftoken!;
    cookie = `burrow_session=${jar.burrow_session}; burrow_csrftoken=${csrf}`;
    expect(String(res.headers['set-cookie'])).toMatch(/burrow_session=[^;]+;.*HttpOnly/);
    expect(String(res.headers['set-cookie'])).toMatch(
      /burrow_csrftoken=[^;]+; Path=\/; Expires=[^;]+; SameSite=Lax(?!; HttpOnly)/,
    );
  });
  afterAll(async () => h?.close());

  const asBrowser = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    h.request(method, url, { key: null, body, headers: { cookie, ...headers } });

  it('reads any resource the user may see with the cookie alone', async () => {
    expect((await asBrowser('GET', '/api/users/@me/')).json().email).toBe(email);
    expect((await asBrowser('GET', `/api/projects/${h.boot.project_id}/`)).statusCode).toBe(200);
    const query = await asBrowser(
      'POST',
      `/api/environments/${h.boot.project_id}/query/`,
      {
        query: { kind: 'HogQLQuery', query: 'SELECT 1' },
      },
      { 'x-csrftoken': csrf },
    );
    expect(query.statusCode).toBe(200);
    expect(query.json().results).toEqual([[1]]);
  });

  it('refuses a change without the CSRF header, or with a wrong one', async () => {
    const url = `/api/projects/${h.boot.project_id}/`;
    const missing = await asBrowser('PATCH', url, { name: 'Renamed' });
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toMatchObject({ type: 'authentication_error', code: 'csrf_failed' });
    const wrong = await asBrowser(
      'PATCH',
      url,
      { name: 'Renamed' },
      { 'x-csrftoken': `${csrf.slice(0, -2)}xx` },
    );
    expect(wrong.statusCode).toBe(403);
    const ok = await asBrowser('PATCH', url, { name: 'Renamed' }, { 'x-csrftoken': csrf });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().name).toBe('Renamed');
  });

  it('still lets an API key win over a cookie, with no CSRF needed', async () => {
    const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { name: 'By key' },
      headers: { cookie },
    });
    expect(res.statusCode).toBe(200);
  });

  it('changes the password: the current one is required, other sessions end, this one stays', async () => {
    const second = cookies(
      await h.request('POST', '/api/login/', { key: null, body: { email, password: 'first password' } }),
    );
    const secondCookie = `burrow_session=${second.burrow_session}`;
    const noCurrent = await asBrowser(
      'PATCH',
      '/api/users/@me/',
      { password: 'second password' },
      { 'x-csrftoken': csrf },
    );
    expect(noCurrent.statusCode).toBe(400);
    expect(noCurrent.json().attr).toBe('current_password');
    const short = await asBrowser(
      'PATCH',
      '/api/users/@me/',
      { password: 'short', current_password: 'first password' },
      { 'x-csrftoken': csrf },
    );
    expect(short.json()).toMatchObject({ attr: 'password', code: 'password_too_short' });
    const changed = await asBrowser(
      'PATCH',
      '/api/users/@me/',
      { password: 'second password', current_password: 'first password' },
      { 'x-csrftoken': csrf },
    );
    expect(changed.statusCode).toBe(200);
    expect(changed.json().has_password).toBe(true);
    expect((await asBrowser('GET', '/api/users/@me/')).statusCode).toBe(200);
    const other = await h.request('GET', '/api/users/@me/', { key: null, headers: { cookie: secondCookie } });
    expect(other.statusCode).toBe(401);
    const oldLogin = await h.request('POST', '/api/login/', {
      key: null,
      body: { email, password: 'first password' },
    });
    expect(oldLogin.statusCode).toBe(400);
  });

  it('logs out: the session no longer authenticates anywhere', async () => {
    const out = await asBrowser('POST', '/api/logout/', undefined, { 'x-csrftoken': csrf });
    expect(out.statusCode).toBe(204);
    expect((await asBrowser('GET', '/api/users/@me/')).statusCode).toBe(401);
  });

  it('serves the console on its pages with a CSP, and JSON 404s elsewhere', async () => {
    const home = await h.request('GET', '/', { key: null });
    // dist/web exists after `npm install` (prepare builds it); a tree without it answers 503.
    expect([200, 503]).toContain(home.statusCode);
    expect(home.headers['content-type']).toMatch(/text\/html/);
    expect(String(home.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(home.headers['x-frame-options']).toBe('DENY');
    if (home.statusCode === 200) {
      expect(home.body).toContain('<div id="app">');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(home.body)?.[1];
      const asset = await h.request('GET', script!, { key: null, headers: { 'accept-encoding': 'gzip' } });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toContain('immutable');
      expect(asset.headers['content-encoding']).toBe('gzip');
    }
    expect((await h.request('GET', '/settings/keys', { key: null })).headers['content-type']).toMatch(/html/);
    const missing = await h.request('GET', '/assets/../package.json', { key: null });
    expect(missing.statusCode).toBe(404);
    expect((await h.request('GET', '/nope', { key: null })).json().code).toBe('not_found');
  });

  it("answers a browser's visit to an unknown page with the console (404), API paths with JSON", async () => {
    const visit = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', accept: 'text/html,*/*' };
    const page = await h.request('GET', '/no-such-page', { key: null, headers: visit });
    expect(page.statusCode).toBe(404);
    if ((await h.request('GET', '/', { key: null })).statusCode === 200) {
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('<div id="app">');
      expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    }
    // Without Fetch Metadata, a document request is told by its Accept header.
    const old = await h.request('GET', '/no-such-page', { key: null, headers: { accept: 'text/html' } });
    expect(old.statusCode).toBe(404);
    expect(old.headers['content-type']).toMatch(/html|json/);
    for (const [path, headers] of [
      ['/api/nope/', visit],
      ['/no-such-page', { 'sec-fetch-mode': 'cors', accept: '*/*' }],
      ['/no-such-page', { accept: 'application/json' }],
    ] as const) {
      const res = await h.request('GET', path, { key: null, headers });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    // A script posting to an unknown path still gets JSON, whatever it accepts.
    const post = await h.request('POST', '/no-such-page', { key: null, headers: visit, body: {} });
    expect(post.json().code).toBe('not_found');
  });
});
