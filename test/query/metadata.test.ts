import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { otherProject, query } from '../helpers/query-lists.js';

/** HogQLMetadata through POST /query: validity and error spans, as PostHog's editor asks for them. */
let h: Harness;
let project: number;

interface Notice {
  message: string;
  start?: number;
  end?: number;
}
interface Metadata {
  isValid: boolean;
  isValidView?: boolean;
  query: string;
  errors: Notice[];
  warnings: Notice[];
  notices: Notice[];
}

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
});
afterAll(async () => {
  await h.close();
});

async function metadata(text: string, extra: Record<string, unknown> = {}): Promise<Metadata> {
  const res = await query(h, project, { kind: 'HogQLMetadata', language: 'hogQL', query: text, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Metadata;
}

/** The text an error points at. */
const span = (text: string, n: Notice) => [...text].slice(n.start, n.end).join('');

describe('HogQLMetadata', () => {
  it('answers a valid query with no errors, and no cache fields', async () => {
    const text = 'SELECT event, count() FROM events GROUP BY event';
    const body = await metadata(text);
    expect(body).toEqual({
      isValid: true,
      isValidView: false,
      query: text,
      errors: [],
      warnings: [],
      notices: [],
    });
    expect(await metadata('SELECT event AS e, count() AS c FROM events GROUP BY e')).toMatchObject({
      isValid: true,
      isValidView: true,
    });
  });

  it('points a syntax error at the token', async () => {
    const text = 'SELECT count( FROM events';
    const body = await metadata(text);
    expect(body.isValid).toBe(false);
    expect(body.errors).toHaveLength(1);
    const error = body.errors[0] as Notice;
    expect(error.message).toMatch(/expected '\)'/);
    expect(span(text, error)).toBe('events');
  });

  it('points an unfinished query at its end', async () => {
    const body = await metadata('SELECT * FROM');
    expect(body.errors[0]).toMatchObject({ start: 13, end: 13 });
    expect(body.errors[0]?.message).toMatch(/end of input/);
  });

  it('points unknown fields, functions and tables at their names', async () => {
    const cases: [string, string, RegExp][] = [
      ['SELECT event, evnt FROM events', 'evnt', /Unable to resolve field: evnt/],
      ['SELECT foo(1) FROM events', 'foo(1)', /Unsupported function call 'foo/],
      ['SELECT count() FROM evnts', 'evnts', /Unknown table/],
      ['SELECT event FROM events WHERE properties.x = nope', 'nope', /Unable to resolve field: nope/],
    ];
    for (const [text, at, message] of cases) {
      const body = await metadata(text);
      expect(body.isValid, text).toBe(false);
      expect(body.errors[0]?.message).toMatch(message);
      expect(span(text, body.errors[0] as Notice), text).toBe(at);
    }
  });

  it('counts offsets in code points, as PostHog does', async () => {
    const text = "SELECT '😀 ünï', evnt FROM events";
    const body = await metadata(text);
    expect(span(text, body.errors[0] as Notice)).toBe('evnt');
    // In UTF-16 (a JavaScript string index) the emoji takes two units.
    expect(body.errors[0]?.start).toBe(text.indexOf('evnt') - 1);
  });

  it('checks an expression against events (hogQLExpr)', async () => {
    const ok = await metadata("properties.$browser = 'Chrome'", { language: 'hogQLExpr' });
    expect(ok.isValid).toBe(true);
    expect(ok).not.toHaveProperty('isValidView');
    const text = 'count() + evnt';
    const bad = await metadata(text, { language: 'hogQLExpr' });
    expect(bad.isValid).toBe(false);
    expect(span(text, bad.errors[0] as Notice)).toBe('evnt');
  });

  it('checks placeholders and filters as HogQLQuery compiles them', async () => {
    const good = await metadata('SELECT count() FROM events WHERE {filters}', {
      filters: { dateRange: { date_from: '-7d' }, filterTestAccounts: true },
    });
    expect(good.isValid).toBe(true);
    const missing = await metadata('SELECT {variables.nope}');
    expect(missing.isValid).toBe(false);
    expect(missing.errors[0]?.message).toMatch(/nope/);
  });

  it('answers /query/HogQLMetadata/ too, and refuses what it cannot check', async () => {
    const res = await h.request('POST', `/api/environments/${project}/query/HogQLMetadata/`, {
      body: { query: { kind: 'HogQLMetadata', language: 'hogQL', query: 'SELECT 1' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ isValid: true });

    const noLanguage = await query(h, project, { kind: 'HogQLMetadata', query: 'SELECT 1' });
    expect(noLanguage.statusCode).toBe(400);
    expect(noLanguage.json()).toMatchObject({ type: 'validation_error', attr: 'query__language' });
    const hog = await query(h, project, { kind: 'HogQLMetadata', language: 'hog', query: 'return 1' });
    expect(hog.statusCode).toBe(400);
    expect(hog.json().detail).toMatch(/HogQL only/);
    const noQuery = await query(h, project, { kind: 'HogQLMetadata', language: 'hogQL' });
    expect(noQuery.statusCode).toBe(400);
    expect(noQuery.json()).toMatchObject({ attr: 'query__query' });
  });

  it('keeps the team guard: another organization cannot check queries in this project', async () => {
    const other = await otherProject(h);
    const res = await query(
      h,
      project,
      { kind: 'HogQLMetadata', language: 'hogQL', query: 'SELECT 1' },
      other.key,
    );
    expect([403, 404]).toContain(res.statusCode);
    const own = await query(
      h,
      other.projectId,
      { kind: 'HogQLMetadata', language: 'hogQL', query: 'SELECT 1' },
      other.key,
    );
    expect(own.statusCode).toBe(200);
  });
});
