import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const LIMIT = 2 * 1024 ** 2;
/** `n` columns of `width` characters over `rows` rows; `constant` columns are one value to the engine. */
const wide = (n: number, width: number, rows: number, constant: boolean) => {
  const cell = (i: number) =>
    constant
      ? `repeat('x', ${width}) AS c${i}`
      : `concat(toString(number), repeat('y', ${width - 6})) AS c${i}`;
  return `SELECT ${Array.from({ length: n }, (_, i) => cell(i)).join(', ')} FROM numbers(${rows}) LIMIT ${rows}`;
};

describe(`answers are bounded by bytes (${backend})`, () => {
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    h = await startHarness({ QUERY_MAX_RESULT_BYTES: String(LIMIT) });
    url = `/api/environments/${h.boot.project_id}/query/`;
  });
  afterAll(async () => {
    await h?.close();
  });
  const post = (q: string) => h.request('POST', url, { body: { query: { kind: 'HogQLQuery', query: q } } });

  const refusal = {
    type: 'validation_error',
    code: 'too_many_rows_or_bytes',
    detail: expect.stringMatching(
      /^The query's answer is larger than 2\.00 MiB, the most one answer may have/,
    ),
    attr: null,
  };

  it('refuses an answer the engine counts as too large (100 columns of 100 characters)', async () => {
    const res = await post(wide(100, 100, 5000, false));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(refusal);
  });

  it('refuses an answer of constants, which the engine counts as one value, by its bytes', async () => {
    const res = await post(wide(100, 100, 5000, true));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(refusal);
  });

  it('answers what fits', async () => {
    const res = await post(wide(10, 100, 1000, false));
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toHaveLength(1000);
    expect(res.body.length).toBeLessThan(LIMIT);
  });

  it('refuses it as a tool failure through MCP execute_sql', async () => {
    const res = await h.request('POST', `/api/environments/${h.boot.project_id}/mcp_tools/execute_sql/`, {
      body: { args: { query: wide(100, 100, 5000, true) } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().success).toBe(false);
    expect(res.json().content).toMatch(/larger than 2\.00 MiB/);
  });

  it('refuses it in an async query, whose status carries the message', async () => {
    const res = await h.request('POST', url, {
      body: { query: { kind: 'HogQLQuery', query: wide(100, 100, 5000, true) }, refresh: 'force_async' },
    });
    expect(res.statusCode).toBe(202);
    const id = res.json().query_status.id;
    let status: { statusCode: number; json(): { query_status: Record<string, unknown> } } | undefined;
    for (let i = 0; i < 100; i++) {
      status = await h.request('GET', `${url}${id}/`);
      if (status.statusCode !== 202) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status?.statusCode).toBe(400);
    expect(status?.json().query_status.error_message).toMatch(/larger than 2\.00 MiB/);
  });

  it('keeps serving others while a large answer is refused and one that fits is sent', async () => {
    // What the issue measured: another request waiting behind one large answer.
    const latencies: number[] = [];
    let running = true;
    const probe = (async () => {
      while (running) {
        const start = performance.now();
        const res = await h.request('GET', '/_health', { key: null });
        expect(res.statusCode).toBe(200);
        latencies.push(performance.now() - start);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const big = await Promise.all([
      post(wide(100, 100, 5000, true)),
      post(wide(100, 100, 5000, false)),
      post(wide(10, 100, 1500, false)),
    ]);
    running = false;
    await probe;
    expect(big.map((r) => r.statusCode)).toEqual([400, 400, 200]);
    expect(latencies.length).toBeGreaterThan(5);
    // Before the bound, parsing and sending the 100 MB of these answers held the loop for seconds.
    console.info(`/_health: ${latencies.length} probes, slowest ${Math.round(Math.max(...latencies))} ms`);
    expect(Math.max(...latencies)).toBeLessThan(400);
  });
});
