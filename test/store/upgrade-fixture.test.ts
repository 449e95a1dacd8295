import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { openStores } from '../../src/server/runtime.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'upgrade');

/**
 * The oldest supported release's data directory (made by test/fixtures/upgrade/make.ts from that
 * release's checkout), started with today's code: every migration since applies, and the data
 * reads as that release answered. Embedded stores whatever the run's DATABASE_URL: the fixture is
 * a SQLite + chDB directory.
 */
describe.each(['0.1.0'])('a data directory written by release %s', (version) => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, `data-${version}.json`), 'utf8')) as {
    project: number;
    key: string;
    flag: string;
    insight: string;
    cohort: string;
    checks: Array<{ name: string; query: Record<string, unknown>; results: unknown }>;
  };
  const dataDir = mkdtempSync(join(tmpdir(), `burrow-upgrade-${version}-`));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('opens with today’s code, applies the migrations since, and answers as it did', async () => {
    execFileSync('tar', ['-xzf', join(FIXTURES, `data-${version}.tar.gz`), '-C', dataDir]);
    const config = loadConfig({ BURROW_DATA_DIR: dataDir });
    const stores = await openStores(config);
    const app = await buildApp({ config, meta: stores.meta, events: stores.events, bus: stores.bus });
    try {
      const get = async (url: string) => {
        const res = await app.inject({ url, headers: { authorization: `Bearer ${fixture.key}` } });
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        return res.json();
      };
      for (const check of fixture.checks) {
        const res = await app.inject({
          method: 'POST',
          url: `/api/projects/${fixture.project}/query/`,
          headers: { authorization: `Bearer ${fixture.key}` },
          payload: { query: check.query, refresh: 'force_blocking' },
        });
        expect(res.statusCode, `${check.name}: ${res.body}`).toBe(200);
        const results = res.json().results;
        const got =
          check.query.kind === 'TrendsQuery'
            ? (results as Array<{ data: number[]; days: string[] }>).map((s) => ({
                data: s.data,
                days: s.days,
              }))
            : results;
        expect(got, check.name).toEqual(check.results);
      }
      const flags = await get(`/api/projects/${fixture.project}/feature_flags/`);
      expect(flags.results.map((f: { key: string }) => f.key)).toContain(fixture.flag);
      const insights = await get(`/api/projects/${fixture.project}/insights/`);
      expect(insights.results.map((i: { name: string }) => i.name)).toContain(fixture.insight);
      const cohorts = await get(`/api/projects/${fixture.project}/cohorts/`);
      expect(cohorts.results.map((c: { name: string }) => c.name)).toContain(fixture.cohort);
    } finally {
      await app.close();
      await stores.close();
    }
  });
});
