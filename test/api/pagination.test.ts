import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProject } from '../../src/domain/organizations/projects.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const ORIGIN = 'http://localhost';
const PROJECTS = '/api/organizations/@current/projects/';

interface Page<T = { id: number | string }> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const invalid = (detail: string, attr: string, code: string) => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});

describe(`pagination (${backend})`, () => {
  let h: Harness;
  let get: (url: string, headers?: Record<string, string>) => Promise<Page>;
  let projectIds: number[];
  let organizationIds: string[];

  beforeAll(async () => {
    h = await startHarness();
    get = async (url, headers) => {
      const res = await h.request('GET', url, headers ? { headers } : {});
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    // Two more organizations (the last one created becomes current), then four more projects in it.
    for (const name of ['Second org', 'Third org']) {
      expect((await h.request('POST', '/api/organizations/', { body: { name } })).statusCode).toBe(201);
    }
    for (let i = 2; i <= 5; i++) {
      const res = await h.request('POST', PROJECTS, { body: { name: `Project ${i}` } });
      expect(res.statusCode).toBe(201);
    }
    projectIds = (await get(PROJECTS)).results.map((p) => p.id as number);
    organizationIds = (await get('/api/organizations/')).results.map((o) => o.id as string);
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('projects of @current', () => {
    it('lists all five projects in id order on one default page', async () => {
      const page = await get(PROJECTS);
      expect(page.count).toBe(5);
      expect(page.next).toBeNull();
      expect(page.previous).toBeNull();
      expect(page.results).toHaveLength(5);
      expect(projectIds).toEqual([...projectIds].sort((a, b) => a - b));
      expect(page.results.map((p) => (p as unknown as { name: string }).name)).toEqual([
        'Default project',
        'Project 2',
        'Project 3',
        'Project 4',
        'Project 5',
      ]);
    });

    it('first page: next, no previous', async () => {
      const page = await get(`${PROJECTS}?limit=2`);
      expect(page).toEqual({
        count: 5,
        next: `${ORIGIN}${PROJECTS}?limit=2&offset=2`,
        previous: null,
        results: [
          expect.objectContaining({ id: projectIds[0] }),
          expect.objectContaining({ id: projectIds[1] }),
        ],
      });
    });

    it('middle page: next and previous without offset when offset - limit <= 0', async () => {
      const page = await get(`${PROJECTS}?limit=2&offset=2`);
      expect(page.count).toBe(5);
      expect(page.next).toBe(`${ORIGIN}${PROJECTS}?limit=2&offset=4`);
      expect(page.previous).toBe(`${ORIGIN}${PROJECTS}?limit=2`);
      expect(page.results.map((p) => p.id)).toEqual(projectIds.slice(2, 4));
    });

    it('middle page with an offset that is not a multiple of limit', async () => {
      const page = await get(`${PROJECTS}?offset=3&limit=1`);
      expect(page.next).toBe(`${ORIGIN}${PROJECTS}?limit=1&offset=4`);
      expect(page.previous).toBe(`${ORIGIN}${PROJECTS}?limit=1&offset=2`);
      expect(page.results.map((p) => p.id)).toEqual([projectIds[3]]);
      const short = await get(`${PROJECTS}?offset=1&limit=2`);
      expect(short.previous).toBe(`${ORIGIN}${PROJECTS}?limit=2`);
      expect(short.next).toBe(`${ORIGIN}${PROJECTS}?limit=2&offset=3`);
    });

    it('last page: no next, previous keeps offset', async () => {
      const page = await get(`${PROJECTS}?limit=2&offset=4`);
      expect(page).toEqual({
        count: 5,
        next: null,
        previous: `${ORIGIN}${PROJECTS}?limit=2&offset=2`,
        results: [expect.objectContaining({ id: projectIds[4] })],
      });
    });

    it('following next links visits every project exactly once', async () => {
      const seen: number[] = [];
      let url: string | null = `${PROJECTS}?limit=2`;
      let pages = 0;
      while (url) {
        const page = await get(url.replace(ORIGIN, ''));
        seen.push(...page.results.map((p) => p.id as number));
        url = page.next;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(projectIds);
    });

    it('an offset past the end gives no results, with a previous link', async () => {
      expect(await get(`${PROJECTS}?limit=2&offset=10`)).toEqual({
        count: 5,
        next: null,
        previous: `${ORIGIN}${PROJECTS}?limit=2&offset=8`,
        results: [],
      });
    });

    it('re-encodes and sorts every other query parameter, keeping them on both links', async () => {
      const page = await get(`${PROJECTS}?zeta=1&limit=2&offset=2&alpha=b%20c&mid=%C3%A9`);
      expect(page.next).toBe(`${ORIGIN}${PROJECTS}?alpha=b+c&limit=2&mid=%C3%A9&offset=4&zeta=1`);
      expect(page.previous).toBe(`${ORIGIN}${PROJECTS}?alpha=b+c&limit=2&mid=%C3%A9&zeta=1`);
      const first = await get(`${PROJECTS}?zeta=1&limit=2`);
      expect(first.next).toBe(`${ORIGIN}${PROJECTS}?limit=2&offset=2&zeta=1`);
    });

    it('adds the default limit to links when the request had none', async () => {
      const page = await get(`${PROJECTS}?offset=1`);
      expect(page.previous).toBe(`${ORIGIN}${PROJECTS}?limit=100`);
      expect(page.next).toBeNull();
      expect(page.results).toHaveLength(4);
    });

    it('clamps limit to 1000 and the links carry the clamped value', async () => {
      const page = await get(`${PROJECTS}?limit=5000&offset=1`);
      expect(page.results).toHaveLength(4);
      expect(page.previous).toBe(`${ORIGIN}${PROJECTS}?limit=1000`);
      const huge = await get(`${PROJECTS}?limit=99999999999999999999&offset=2`);
      expect(huge.previous).toBe(`${ORIGIN}${PROJECTS}?limit=1000`);
      expect(huge.results).toHaveLength(3);
    });

    it('the same page is served for a named organization', async () => {
      const current = (await h.request('GET', '/api/organizations/@current/')).json().id as string;
      const page = await get(`/api/organizations/${current}/projects/?limit=2&offset=2`);
      expect(page.next).toBe(`${ORIGIN}/api/organizations/${current}/projects/?limit=2&offset=4`);
      expect(page.results.map((p) => p.id)).toEqual(projectIds.slice(2, 4));
    });
  });

  describe('organizations', () => {
    it('pages through the caller’s organizations', async () => {
      expect(organizationIds).toHaveLength(3);
      expect(new Set(organizationIds).size).toBe(3);
      const first = await get('/api/organizations/?limit=1');
      expect(first.count).toBe(3);
      expect(first.next).toBe(`${ORIGIN}/api/organizations/?limit=1&offset=1`);
      expect(first.previous).toBeNull();
      const middle = await get('/api/organizations/?limit=1&offset=1');
      expect(middle.count).toBe(3);
      expect(middle.next).toBe(`${ORIGIN}/api/organizations/?limit=1&offset=2`);
      expect(middle.previous).toBe(`${ORIGIN}/api/organizations/?limit=1`);
      const last = await get('/api/organizations/?limit=1&offset=2');
      expect(last.count).toBe(3);
      expect(last.next).toBeNull();
      expect(last.previous).toBe(`${ORIGIN}/api/organizations/?limit=1&offset=1`);
      expect([first, middle, last].flatMap((p) => p.results.map((o) => o.id))).toEqual(organizationIds);
    });

    it('returns the exact empty page for a user without organizations', async () => {
      const { key } = await h.user();
      const res = await h.request('GET', '/api/organizations/', { key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
    });

    it('returns the exact empty page for an organization without projects', async () => {
      const owner = await h.owner('Empty org');
      const del = await h.request('DELETE', `/api/projects/${owner.projectId}/`, { key: owner.key });
      expect(del.statusCode).toBe(204);
      const res = await h.request('GET', `/api/organizations/${owner.organizationId}/projects/`, {
        key: owner.key,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
    });
  });

  describe('invalid parameters', () => {
    it.each([
      ['limit=0', invalid('Ensure this value is greater than or equal to 1.', 'limit', 'min_value')],
      ['limit=-1', invalid('Ensure this value is greater than or equal to 1.', 'limit', 'min_value')],
      ['limit=abc', invalid('A valid integer is required.', 'limit', 'invalid_input')],
      ['limit=1.5', invalid('A valid integer is required.', 'limit', 'invalid_input')],
      ['limit=', invalid('A valid integer is required.', 'limit', 'invalid_input')],
      ['offset=-1', invalid('Ensure this value is greater than or equal to 0.', 'offset', 'min_value')],
      ['offset=x', invalid('A valid integer is required.', 'offset', 'invalid_input')],
      ['offset=2.5', invalid('A valid integer is required.', 'offset', 'invalid_input')],
      [
        'limit=2&offset=-5',
        invalid('Ensure this value is greater than or equal to 0.', 'offset', 'min_value'),
      ],
    ])('?%s is a 400 on both lists', async (query, body) => {
      for (const path of ['/api/organizations/', PROJECTS, '/api/projects/']) {
        const res = await h.request('GET', `${path}?${query}`);
        expect({ path, status: res.statusCode, body: res.json() }).toEqual({ path, status: 400, body });
      }
    });
  });

  describe('hosts and proxies', () => {
    it('uses the Host header for absolute links', async () => {
      const page = await get(`${PROJECTS}?limit=2`, { host: 'burrow.test:8010' });
      expect(page.next).toBe(`http://burrow.test:8010${PROJECTS}?limit=2&offset=2`);
    });

    it('ignores X-Forwarded-* when TRUST_PROXY is off', async () => {
      const page = await get(`${PROJECTS}?limit=2`, {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example.com',
      });
      expect(page.next).toBe(`${ORIGIN}${PROJECTS}?limit=2&offset=2`);
    });
  });

  describe('the clamp with more than 1000 rows', () => {
    let owner: Awaited<ReturnType<Harness['owner']>>;
    beforeAll(async () => {
      owner = await h.owner('Big org');
      const at = new Date().toISOString();
      await h.deps.meta.transaction().execute(async (trx) => {
        for (let i = 0; i < 1001; i++)
          await insertProject(trx, owner.organizationId, { name: `Bulk ${i}` }, at);
      });
    }, 120_000);

    it('serves 100 by default and at most 1000 per page', async () => {
      const base = `/api/organizations/${owner.organizationId}/projects/`;
      const byDefault = await h.request('GET', base, { key: owner.key });
      expect(byDefault.statusCode).toBe(200);
      const page = byDefault.json() as Page;
      expect(page.count).toBe(1002);
      expect(page.results).toHaveLength(100);
      expect(page.next).toBe(`${ORIGIN}${base}?limit=100&offset=100`);

      const clamped = (await h.request('GET', `${base}?limit=1001`, { key: owner.key })).json() as Page;
      expect(clamped.count).toBe(1002);
      expect(clamped.results).toHaveLength(1000);
      expect(clamped.next).toBe(`${ORIGIN}${base}?limit=1000&offset=1000`);
      expect(clamped.previous).toBeNull();

      const rest = (
        await h.request('GET', `${base}?limit=1000&offset=1000`, { key: owner.key })
      ).json() as Page;
      expect(rest.results).toHaveLength(2);
      expect(rest.next).toBeNull();
      expect(rest.previous).toBe(`${ORIGIN}${base}?limit=1000`);
      const ids = [...clamped.results, ...rest.results].map((p) => p.id);
      expect(new Set(ids).size).toBe(1002);
    });
  });
});

describe(`pagination behind a trusted proxy (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ TRUST_PROXY: 'true' });
    const res = await h.request('POST', PROJECTS, { body: { name: 'Second' } });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('builds links from X-Forwarded-Proto and X-Forwarded-Host', async () => {
    const res = await h.request('GET', `${PROJECTS}?limit=1&b=2`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      count: 2,
      next: `https://api.example.com${PROJECTS}?b=2&limit=1&offset=1`,
      previous: null,
    });
    const second = await h.request('GET', `${PROJECTS}?limit=1&offset=1`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com:8443' },
    });
    expect(second.json().previous).toBe(`https://api.example.com:8443${PROJECTS}?limit=1`);
  });

  it('falls back to the request itself without forwarded headers', async () => {
    const res = await h.request('GET', `${PROJECTS}?limit=1`);
    expect(res.json().next).toBe(`${ORIGIN}${PROJECTS}?limit=1&offset=1`);
  });
});
