import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * draft_sql with a model: a real HTTP server on loopback speaking the OpenAI chat completions
 * protocol. What it answers depends on a marker word in the prompt.
 */
interface Seen {
  url: string;
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }>; temperature: number };
}

const seen: Seen[] = [];
const held: ServerResponse[] = [];

const completion = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

function answer(req: IncomingMessage, res: ServerResponse, raw: string) {
  const body = JSON.parse(raw) as Seen['body'];
  seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
  const prompt = body.messages.at(-1)?.content ?? '';
  const json = (status: number, text: string, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
  if (req.url !== '/v1/chat/completions') return json(404, '{"error":{"message":"no such route"}}');
  if (prompt.includes('ok-sql')) {
    return json(
      200,
      completion(
        'Here it is:\n```sql\nSELECT event, count() AS c\nFROM events\nGROUP BY event\nORDER BY c DESC\nLIMIT 5;\n```',
      ),
    );
  }
  if (prompt.includes('bad-sql')) return json(200, completion('```sql\nSELEKT nonsense FROM\n```'));
  if (prompt.includes('unknown-table')) return json(200, completion('SELECT * FROM no_such_table'));
  if (prompt.includes('unclear-please'))
    return json(200, completion('UNCLEAR: The request is about the weather.'));
  if (prompt.includes('boom')) return json(500, '{"error":{"message":"internal"}}');
  if (prompt.includes('garbage')) return json(200, 'this is not json');
  if (prompt.includes('throttle'))
    return json(429, '{"error":{"message":"slow down"}}', { 'retry-after': '7' });
  if (prompt.includes('slow')) {
    held.push(res);
    return;
  }
  return json(200, completion('UNCLEAR: unexpected test prompt'));
}

let server: Server;
let h: Harness;
const url = (params: Record<string, string>) =>
  `/api/environments/${h.boot.project_id}/query/draft_sql/?${new URLSearchParams(params)}`;
const draft = (params: Record<string, string>) => h.request('GET', url(params));

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => answer(req, res, raw));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  h = await startHarness({
    LLM_API_URL: `http://127.0.0.1:${port}/v1/`,
    LLM_API_KEY: 'sk-test-key',
    LLM_MODEL: 'test-model',
    LLM_TIMEOUT_MS: '400',
    DRAFT_SQL_BURST_PER_MINUTE: '1000',
  });
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: {
      api_key: h.boot.project_api_key,
      batch: [
        {
          event: 'checkout started',
          distinct_id: 'u1',
          properties: { $browser: 'Chrome', coupon_code: 'X' },
        },
        { event: '$pageview', distinct_id: 'u1', properties: { $browser: 'Chrome' } },
      ],
    },
  });
  expect(res.statusCode).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  await h?.close();
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
});

describe(`draft_sql with an OpenAI-compatible model (${backend})`, () => {
  it("sends the project's names and the prompt, and returns the model's SQL once it compiles", async () => {
    seen.length = 0;
    const res = await draft({ prompt: 'ok-sql: most common events' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      sql: 'SELECT event, count() AS c\nFROM events\nGROUP BY event\nORDER BY c DESC\nLIMIT 5',
    });
    expect(seen).toHaveLength(1);
    const [call] = seen;
    expect(call?.url).toBe('/v1/chat/completions');
    expect(call?.authorization).toBe('Bearer sk-test-key');
    expect(call?.body.model).toBe('test-model');
    const [system, user] = call?.body.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('"checkout started"');
    expect(system?.content).toContain('"coupon_code"');
    expect(user).toEqual({ role: 'user', content: 'ok-sql: most common events' });
  });

  it('gives the model the current query', async () => {
    seen.length = 0;
    await draft({ prompt: 'ok-sql: only chrome', current_query: 'SELECT count() FROM events' });
    expect(seen[0]?.body.messages[1]?.content).toContain('SELECT count() FROM events');
  });

  it('falls back to the templates when the SQL does not compile, else says unclear', async () => {
    const fallback = await draft({ prompt: 'bad-sql daily pageviews last 2 weeks' });
    expect(fallback.statusCode, fallback.body).toBe(200);
    expect(fallback.json().sql).toContain('toStartOfDay(timestamp) AS day');
    const table = await draft({ prompt: 'unknown-table weekly active users' });
    expect(table.json().sql).toContain('toStartOfWeek(timestamp)');
    const none = await draft({ prompt: 'bad-sql qqq' });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ type: 'validation_error', code: 'unclear', attr: 'prompt' });
    expect(none.json().detail).toContain('does not compile');
  });

  it("passes on the model's own 'unclear' when no template fits", async () => {
    const res = await draft({ prompt: 'unclear-please how is the weather' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('unclear');
    expect(res.json().detail).toContain('The request is about the weather.');
  });

  it('maps model failures to gateway errors, or to a template when one fits', async () => {
    const boom = await draft({ prompt: 'boom qqq' });
    expect(boom.statusCode).toBe(502);
    expect(boom.json()).toEqual({
      type: 'server_error',
      code: 'llm_error',
      detail: 'The SQL assistant (LLM_API_URL) answered HTTP 500.',
      attr: null,
    });
    expect((await draft({ prompt: 'boom top pages' })).statusCode).toBe(200);
    const garbage = await draft({ prompt: 'garbage qqq' });
    expect(garbage.statusCode).toBe(502);
    expect(garbage.json().detail).toContain('other than JSON');
    const throttled = await draft({ prompt: 'throttle qqq' });
    expect(throttled.statusCode).toBe(503);
    expect(throttled.json().code).toBe('llm_throttled');
    expect(throttled.headers['retry-after']).toBe('7');
  });

  it('gives up on a model that does not answer in LLM_TIMEOUT_MS', async () => {
    const started = Date.now();
    const slow = await draft({ prompt: 'slow qqq' });
    expect(slow.statusCode).toBe(504);
    expect(slow.json()).toMatchObject({ type: 'server_error', code: 'llm_timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
    const rescued = await draft({ prompt: 'slow weekly active users' });
    expect(rescued.statusCode).toBe(200);
  });
});

describe('LLM configuration', () => {
  it('needs LLM_API_URL and LLM_API_KEY together, with defaults for the rest', () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(() => loadConfig({ LLM_API_URL: 'http://127.0.0.1:1/v1' })).toThrow(ConfigError);
    expect(() => loadConfig({ LLM_API_KEY: 'k' })).toThrow(ConfigError);
    expect(() => loadConfig({ LLM_API_URL: 'ftp://x', LLM_API_KEY: 'k' })).toThrow(ConfigError);
    const config = loadConfig({ LLM_API_URL: 'https://api.example.test/v1', LLM_API_KEY: 'k' });
    expect(config.llm).toEqual({
      url: 'https://api.example.test/v1',
      apiKey: 'k',
      model: 'gpt-4o-mini',
      timeoutMs: 20_000,
    });
    expect(config.draftSqlBurstPerMinute).toBe(10);
    expect(config.draftSqlPerDay).toBe(100);
    expect(() => loadConfig({ DRAFT_SQL_PER_DAY: 'lots' })).toThrow(ConfigError);
  });
});
