import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runTs, type Spawned } from '../helpers/process.js';

/**
 * Regex bombs in every place a user's pattern runs, against the real server process over HTTP.
 * Before RE2, `(a|a)*$` against a 41-character person property held the event loop for good
 * (`/_health` silent, SIGTERM ignored): these tests then fail on `/_health` timing out, and the
 * process is killed with SIGKILL.
 */
const A41 = `${'a'.repeat(40)}!`;
const X40 = 'x'.repeat(40);
/** [pattern, text, whether ClickHouse's match() finds it] */
const BOMBS: Array<[string, string, boolean]> = [
  ['(a|a)*$', A41, true], // matches the empty text at the end
  ['(a+)+$', A41, false],
  ['^(a|aa)+$', A41, false],
  ['(x+x+)+y', X40, false],
  ['(\\w+\\s?)+$', A41, false],
  ['(.*a){12}!$', A41, true],
];

describe(`regex bombs against the server process (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-regex-'));
  let schema: string | undefined;
  let server: Spawned;
  let base: string;
  let key: string;
  let token: string;
  let project: number;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  /**
   * Runs `work` while asking `/_health` every 50 ms, each with a 2 s timeout; the slowest answer
   * (a timeout counts as 2 s and ends the watch).
   */
  async function whileHealthy<T>(work: () => Promise<T>): Promise<{ value: T; worstHealthMs: number }> {
    let worst = 0;
    let done = false;
    const watch = (async () => {
      while (!done) {
        const started = performance.now();
        try {
          await fetch(`${base}/_health`, { signal: AbortSignal.timeout(2_000) });
          worst = Math.max(worst, performance.now() - started);
        } catch {
          worst = Math.max(worst, 2_000);
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const result = await Promise.race([
      work().then((value) => ({ value })),
      watch.then(() => ({ stalled: true as const })),
    ]);
    done = true;
    await watch;
    if ('stalled' in result) throw new Error('/_health stopped answering (over 2 s) while the request ran');
    return { value: result.value, worstHealthMs: worst };
  }

  beforeAll(async () => {
    schema = await freshSchema();
    server = runTs('src/main.ts', [], {
      BURROW_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: process.env.REDIS_URL,
    });
    base = JSON.parse(await server.waitFor(/burrow ready/, 60_000)).url;
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    key = boot.personal_api_key;
    token = boot.project_api_key;
    project = boot.project_id;

    // The property arrives the way an anonymous visitor can send it: public capture with $set.
    const now = Date.now();
    const capture = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: token,
        batch: [
          {
            event: '$pageview',
            distinct_id: 'visitor',
            timestamp: new Date(now - 60_000).toISOString(),
            properties: { $current_url: `https://x.test/${A41}`, $set: { a: A41, x: X40 } },
          },
        ],
      }),
    });
    expect(capture.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    // SIGKILL: a server stuck in a backtracking match does not answer SIGTERM.
    server?.child.kill('SIGKILL');
    await server?.exited;
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const keyOf = (i: number, negate: boolean) => `bomb-${i}${negate ? '-not' : ''}`;
  const propOf = (text: string) => (text === X40 ? 'x' : 'a');

  it('accepts the bombs as flag conditions (valid RE2) and answers /flags at once, correctly', async () => {
    for (const [i, [pattern, text]] of BOMBS.entries())
      for (const negate of [false, true]) {
        const res = await api('POST', `/api/projects/${project}/feature_flags/`, {
          key: keyOf(i, negate),
          filters: {
            groups: [
              {
                properties: [
                  {
                    type: 'person',
                    key: propOf(text),
                    value: pattern,
                    operator: negate ? 'not_regex' : 'regex',
                  },
                ],
                rollout_percentage: 100,
              },
            ],
          },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
      }

    const { value, worstHealthMs } = await whileHealthy(async () => {
      // The person is written before capture answers, but give a slow machine a few tries.
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${base}/flags/?v=2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token, distinct_id: 'visitor' }),
        });
        const body = (await res.json()) as {
          flags: Record<string, { enabled: boolean }>;
          errorsWhileComputingFlags: boolean;
        };
        if (body.flags[keyOf(0, false)]?.enabled || attempt > 20) return body;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    expect(worstHealthMs).toBeLessThan(1_000);
    expect(value.errorsWhileComputingFlags).toBe(false);
    for (const [i, [, , found]] of BOMBS.entries()) {
      expect(value.flags[keyOf(i, false)]?.enabled, BOMBS[i]?.[0]).toBe(found);
      expect(value.flags[keyOf(i, true)]?.enabled, BOMBS[i]?.[0]).toBe(!found);
    }
  }, 120_000);

  it('person properties sent with /flags itself (no capture) meet the same engine', async () => {
    const { value, worstHealthMs } = await whileHealthy(async () => {
      const res = await fetch(`${base}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          token,
          distinct_id: 'someone-new',
          person_properties: { a: A41, x: X40 },
        }),
      });
      return (await res.json()) as { flags: Record<string, { enabled: boolean }> };
    });
    expect(worstHealthMs).toBeLessThan(1_000);
    for (const [i, [, , found]] of BOMBS.entries())
      expect(value.flags[keyOf(i, false)]?.enabled, BOMBS[i]?.[0]).toBe(found);
  }, 60_000);

  it('a person-property cohort with a bomb, used by a flag, is matched on RE2 too', async () => {
    const cohort = await api('POST', `/api/projects/${project}/cohorts/`, {
      name: 'Bombed',
      filters: {
        properties: {
          type: 'AND',
          values: [{ type: 'person', key: 'a', value: '(a|a)*$', operator: 'regex' }],
        },
      },
    });
    expect(cohort.status, JSON.stringify(cohort.json)).toBe(201);
    const flag = await api('POST', `/api/projects/${project}/feature_flags/`, {
      key: 'bomb-cohort',
      filters: {
        groups: [
          { properties: [{ type: 'cohort', key: 'id', value: cohort.json.id }], rollout_percentage: 100 },
        ],
      },
    });
    expect(flag.status, JSON.stringify(flag.json)).toBe(201);
    const { value, worstHealthMs } = await whileHealthy(async () => {
      const res = await fetch(`${base}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, distinct_id: 'visitor' }),
      });
      return (await res.json()) as { flags: Record<string, { enabled: boolean }> };
    });
    expect(worstHealthMs).toBeLessThan(1_000);
    expect(value.flags['bomb-cohort']?.enabled).toBe(true);
  }, 60_000);

  it('actions (URL, text, href), event filters and recording filters with bombs answer quickly', async () => {
    const [pattern] = BOMBS[1] as [string, string, boolean];
    const action = await api('POST', `/api/projects/${project}/actions/`, {
      name: 'Bombed action',
      steps: [
        { event: '$pageview', url: pattern, url_matching: 'regex' },
        { text: pattern, text_matching: 'regex' },
        { href: pattern, href_matching: 'regex' },
        { properties: [{ type: 'event', key: '$current_url', value: pattern, operator: 'regex' }] },
      ],
    });
    expect(action.status, JSON.stringify(action.json)).toBe(201);

    const { value, worstHealthMs } = await whileHealthy(async () => {
      const trends = await api('POST', `/api/projects/${project}/query/`, {
        query: {
          kind: 'TrendsQuery',
          dateRange: { date_from: '-1d' },
          series: [{ kind: 'ActionsNode', id: action.json.id }],
        },
      });
      const events = await api('POST', `/api/projects/${project}/query/`, {
        query: {
          kind: 'EventsQuery',
          select: ['event'],
          properties: [{ type: 'event', key: '$current_url', value: '(a|a)*$', operator: 'regex' }],
        },
      });
      const recordings = await api(
        'GET',
        `/api/projects/${project}/session_recordings/?properties=${encodeURIComponent(
          JSON.stringify([{ type: 'person', key: 'a', value: pattern, operator: 'regex' }]),
        )}`,
      );
      return { trends, events, recordings };
    });
    expect(worstHealthMs).toBeLessThan(1_000);
    expect(value.trends.status, JSON.stringify(value.trends.json)).toBe(200);
    expect(value.events.status, JSON.stringify(value.events.json)).toBe(200);
    expect(value.recordings.status, JSON.stringify(value.recordings.json)).toBe(200);
    // The one $pageview's URL ends in "!": `(a+)+$` cannot match it; `(a|a)*$` matches anything.
    const series = (value.trends.json.results as Array<{ count: number }>)[0];
    expect(series?.count).toBe(0);
    expect((value.events.json.results as unknown[]).length).toBe(1);
  }, 120_000);
});
