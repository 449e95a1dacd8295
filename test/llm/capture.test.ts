import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { OpenAI } from '@posthog/ai/openai';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * LLM analytics capture end to end: `@posthog/ai` 7.14's OpenAI wrapper (the real client) over an
 * OpenAI-compatible stub on loopback, streamed and not; posthog-node's `captureAi` lane
 * (`/i/v0/ai/batch/`, what `@posthog/ai` 8 sends full captures through); the multipart `/i/v0/ai`
 * route with blob parts, as encoded by Node's own FormData; and the limits.
 */
describe(`LLM analytics capture (${backend})`, () => {
  let h: Harness;
  let base: string;
  let stub: Server;
  let stubUrl: string;
  const errors: unknown[] = [];

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    // OpenAI's chat completions: usage 1000 prompt (200 cached) + 500 completion tokens.
    const usage = {
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 200 },
    };
    stub = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const request = JSON.parse(body);
        const base = {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini-2024-07-18',
        };
        if (!request.stream) {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              ...base,
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: 'Hello <b>there</b>' },
                  finish_reason: 'stop',
                },
              ],
              usage,
            }),
          );
          return;
        }
        res.setHeader('content-type', 'text/event-stream');
        const chunk = (o: object) =>
          res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...o })}\n\n`);
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] });
        chunk({ choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] });
        chunk({ choices: [], usage });
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => stub?.close(resolve));
    await h?.close();
  });

  function client(): PostHog {
    const c = new PostHog(h.boot.project_api_key, { host: base, flushAt: 50, flushInterval: 0 });
    c.on('error', (e) => errors.push(e));
    return c;
  }

  async function hogql(query: string): Promise<unknown[][]> {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  it('costs @posthog/ai generations, streamed and not, from the model price table', async () => {
    const ph = client();
    const openai = new OpenAI({ apiKey: 'sk-test', baseURL: stubUrl, posthog: ph });
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      posthogDistinctId: 'llm-user',
      posthogTraceId: 'trace-plain',
    });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
      posthogTraceId: 'trace-stream',
    });
    for await (const _ of stream) {
      // drained: the wrapper captures once the stream ends
    }
    await ph.shutdown();
    expect(errors).toEqual([]);
    const rows = await hogql(
      "SELECT properties.$ai_trace_id, properties.$ai_input_tokens, properties.$ai_cache_read_input_tokens, toFloat(properties.$ai_input_cost_usd), toFloat(properties.$ai_output_cost_usd), toFloat(properties.$ai_total_cost_usd), properties.$ai_model_cost_used FROM events WHERE event = '$ai_generation' AND properties.$ai_trace_id LIKE 'trace-%' ORDER BY properties.$ai_trace_id",
    );
    // 800 × 0.15/M + 200 × 0.075/M = 0.000135 in; 500 × 0.60/M = 0.0003 out.
    expect(rows).toHaveLength(2);
    for (const [trace, input, cached, inCost, outCost, total, used] of rows) {
      expect(['trace-plain', 'trace-stream']).toContain(trace);
      expect([Number(input), Number(cached)]).toEqual([1000, 200]);
      expect(inCost).toBeCloseTo(0.000135, 12);
      expect(outCost).toBeCloseTo(0.0003, 12);
      expect(total).toBeCloseTo(0.000435, 12);
      expect(used).toBe('openai/gpt-4o-mini');
    }
    // Without a distinct id the SDK sends `$process_person_profile: false`: no person is made.
    const persons = await hogql(
      "SELECT count() FROM events WHERE properties.$ai_trace_id = 'trace-stream' AND notEmpty(person.properties)",
    );
    expect(persons).toEqual([[0]]);
  });

  it("stores posthog-node's captureAi lane (/i/v0/ai/batch/), large events included", async () => {
    const ph = client();
    const big = 'x'.repeat(3 * 1024 * 1024);
    ph.captureAi({
      distinctId: 'lane-user',
      event: '$ai_generation',
      properties: {
        $ai_trace_id: 'trace-lane',
        $ai_model: 'claude-3-5-sonnet-20241022',
        $ai_provider: 'anthropic',
        $ai_input: [{ role: 'user', content: big }],
        $ai_input_tokens: 100,
        $ai_output_tokens: 300,
      },
    });
    ph.captureAi({ distinctId: 'lane-user', event: '$ai_trace', properties: { $ai_trace_id: 'trace-lane' } });
    await ph.shutdown();
    expect(errors).toEqual([]);
    const rows = await hogql(
      "SELECT event, length(toString(properties.$ai_input)) > 3000000, toFloat(properties.$ai_total_cost_usd) FROM events WHERE properties.$ai_trace_id = 'trace-lane' ORDER BY event",
    );
    // 100 × 3/M + 300 × 15/M = 0.0048.
    expect(rows[0]?.slice(0, 2)).toEqual(['$ai_generation', 1]);
    expect(rows[0]?.[2]).toBeCloseTo(0.0048, 12);
    expect(rows[1]?.[0]).toBe('$ai_trace');
  });

  it('joins /i/v0/ai blob parts back into their properties', async () => {
    const form = new FormData();
    const uuid = '01930000-0000-7000-8000-00000000a1b2';
    form.append(
      'event',
      new Blob([JSON.stringify({ event: '$ai_generation', distinct_id: 'mp-user', uuid })], {
        type: 'application/json',
      }),
    );
    form.append(
      'event.properties',
      new Blob(
        [
          JSON.stringify({
            $ai_trace_id: 'trace-mp',
            $ai_model: 'house-model-7',
            $ai_provider: 'my-lab',
            $ai_input_tokens: 5,
          }),
        ],
        { type: 'application/json' },
      ),
    );
    form.append(
      'event.properties.$ai_input',
      new Blob([JSON.stringify([{ role: 'user', content: '<script>x</script>' }])], {
        type: 'application/json',
      }),
    );
    form.append(
      'event.properties.$ai_output_choices',
      new Blob(['plain text answer'], { type: 'text/plain' }),
    );
    const res = await fetch(`${base}/i/v0/ai`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${h.boot.project_api_key}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { accepted_parts: Array<{ name: string }> };
    expect(body.accepted_parts.map((p) => p.name)).toEqual([
      'event',
      'event.properties',
      'event.properties.$ai_input',
      'event.properties.$ai_output_choices',
    ]);
    const rows = await hogql(
      `SELECT uuid, properties.$ai_input, properties.$ai_output_choices, properties.$ai_total_cost_usd FROM events WHERE properties.$ai_trace_id = 'trace-mp'`,
    );
    // An unknown provider's model is stored, uncosted.
    expect(rows).toEqual([
      [uuid, JSON.stringify([{ role: 'user', content: '<script>x</script>' }]), 'plain text answer', null],
    ]);
  });

  it('answers bad multipart and oversized AI bodies with PostHog-shaped 4xx', async () => {
    const post = (path: string, body: Buffer, headers: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${h.boot.project_api_key}`, ...headers },
      });
    const notForm = await post('/i/v0/ai', Buffer.from('{}'), { 'content-type': 'application/json' });
    expect(notForm.status).toBe(400);
    expect(await notForm.json()).toMatchObject({
      type: 'validation_error',
      code: 'invalid_payload',
      attr: null,
    });
    const wrongFirst = await post(
      '/i/v0/ai',
      Buffer.from('--b\r\nContent-Disposition: form-data; name="event.properties"\r\n\r\n{}\r\n--b--\r\n'),
      {
        'content-type': 'multipart/form-data; boundary=b',
      },
    );
    expect(wrongFirst.status).toBe(400);
    const notAi = await post(
      '/i/v0/ai',
      Buffer.from(
        '--b\r\nContent-Disposition: form-data; name="event"\r\n\r\n{"event":"pageview","distinct_id":"u"}\r\n--b--\r\n',
      ),
      {
        'content-type': 'multipart/form-data; boundary=b',
      },
    );
    expect(notAi.status).toBe(400);
    const noAuth = await fetch(`${base}/i/v0/ai`, {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(noAuth.status).toBe(401);
    // 50 MB of input: refused whole with 413 (the SDK then splits or reports), never a silent loss.
    const huge = Buffer.from(
      JSON.stringify({
        api_key: h.boot.project_api_key,
        batch: [
          {
            event: '$ai_generation',
            distinct_id: 'u',
            properties: { $ai_input: 'y'.repeat(50 * 1024 * 1024) },
          },
        ],
      }),
    );
    for (const path of ['/i/v0/ai/batch/', '/i/v0/ai']) {
      const res = await post(path, huge, {
        'content-type': path === '/i/v0/ai' ? 'multipart/form-data; boundary=b' : 'application/json',
      });
      expect(res.status, path).toBe(413);
      expect(await res.json()).toMatchObject({ type: 'invalid_request', code: 'request_too_large' });
    }
    // Compressed below the wire limit but past the decoded one: 413 too.
    const bomb = gzipSync(huge);
    const zipped = await post('/i/v0/ai/batch/', bomb, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(zipped.status).toBe(413);
  });
});
