import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * A project's own model prices (`llm_custom_model_prices`): set through the project PATCH,
 * applied at ingestion after the event's own prices and before the table, picked up at once by
 * the capture path's team cache; the MCP cost tool's TrendsQuery sums them.
 */
describe(`LLM custom model prices per project (${backend})`, () => {
  let h: Harness;
  const project = () => `/api/projects/${h.boot.project_id}/`;

  beforeAll(async () => {
    // Capture's team cache lasts 60 s: the change must reach it by the announcement, not expiry.
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const capture = async (trace: string, properties: Record<string, unknown>, event = '$ai_generation') => {
    const res = await h.request('POST', '/batch/', {
      body: {
        api_key: h.boot.project_api_key,
        batch: [{ event, distinct_id: 'ada', properties: { $ai_trace_id: trace, ...properties } }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const stored = async (trace: string) => {
    const res = await h.request('POST', `${project()}query/`, {
      body: { query: { kind: 'TraceQuery', traceId: trace } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results[0].events[0].properties as Record<string, unknown>;
  };

  it('prices with the table until the project sets its own price, then with the project price', async () => {
    await capture('before', { $ai_model: 'gpt-4o-mini', $ai_input_tokens: 1_000_000, $ai_output_tokens: 0 });
    expect((await stored('before')).$ai_input_cost_usd).toBeCloseTo(0.15, 10);

    const res = await h.request('PATCH', project(), {
      body: {
        llm_custom_model_prices: [
          { model: 'gpt-4o-mini', prompt_token: 0.000001, completion_token: 0.000002 },
          { model: 'acme/house-llm', prompt_token: 0.000003, completion_token: 0.000004 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().llm_custom_model_prices).toHaveLength(2);

    await capture('after', {
      $ai_model: 'gpt-4o-mini',
      $ai_input_tokens: 1_000_000,
      $ai_output_tokens: 500_000,
    });
    const after = await stored('after');
    expect(after.$ai_input_cost_usd).toBeCloseTo(1, 10);
    expect(after.$ai_output_cost_usd).toBeCloseTo(1, 10);
    expect(after.$ai_total_cost_usd).toBeCloseTo(2, 10);
    expect(after.$ai_cost_model_source).toBe('custom');
    expect(after.$ai_model_cost_used).toBe('gpt-4o-mini');
  });

  it('prices a model the table lacks, matched by name with or without the provider prefix', async () => {
    await capture('house', { $ai_model: 'House-LLM', $ai_input_tokens: 1000, $ai_output_tokens: 1000 });
    const p = await stored('house');
    expect(p.$ai_total_cost_usd).toBeCloseTo(0.007, 12);
    expect(p.$ai_model_cost_used).toBe('acme/house-llm');
    // Only the name itself: a longer name is not priced by a shorter custom entry.
    await capture('longer', { $ai_model: 'house-llm-pro', $ai_input_tokens: 1000 });
    expect((await stored('longer')).$ai_total_cost_usd).toBeUndefined();
  });

  it("keeps the event's own per-token prices over the project's", async () => {
    await capture('event-price', {
      $ai_model: 'gpt-4o-mini',
      $ai_input_tokens: 10,
      $ai_output_tokens: 10,
      $ai_input_token_price: 0.5,
      $ai_output_token_price: 0.5,
    });
    expect((await stored('event-price')).$ai_total_cost_usd).toBeCloseTo(10, 10);
  });

  it('refuses malformed prices with a 400 naming the field', async () => {
    for (const bad of [
      [{ model: 'x', prompt_token: -1, completion_token: 0 }],
      [{ model: 'x', prompt_token: 0 }],
      [{ model: '', prompt_token: 0, completion_token: 0 }],
      'gpt-4o',
    ]) {
      const res = await h.request('PATCH', project(), { body: { llm_custom_model_prices: bad } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().type).toBe('validation_error');
    }
  });

  it("answers the MCP tool get-llm-total-costs-for-project's TrendsQuery with the custom costs", async () => {
    const res = await h.request('POST', `${project()}query/`, {
      body: {
        query: {
          kind: 'TrendsQuery',
          dateRange: { date_from: '-6d', date_to: null },
          filterTestAccounts: true,
          series: [
            {
              event: '$ai_generation',
              name: '$ai_generation',
              math: 'sum',
              math_property: '$ai_total_cost_usd',
              kind: 'EventsNode',
            },
          ],
          breakdownFilter: { breakdown_type: 'event', breakdown: '$ai_model' },
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const byModel = Object.fromEntries(
      (res.json().results as { breakdown_value: string; count: number }[]).map((r) => [
        r.breakdown_value,
        r.count,
      ]),
    );
    // before: 0.15 (table); after: 2 (project); event-price: 10 (the event's).
    expect(byModel['gpt-4o-mini']).toBeCloseTo(12.15, 8);
    expect(byModel['House-LLM']).toBeCloseTo(0.007, 10);
    // Uncosted events add nothing.
    expect(byModel['house-llm-pro'] ?? 0).toBe(0);
  });

  it('clears the prices with null: the table prices again', async () => {
    const res = await h.request('PATCH', project(), { body: { llm_custom_model_prices: null } });
    expect(res.statusCode, res.body).toBe(200);
    await capture('cleared', { $ai_model: 'gpt-4o-mini', $ai_input_tokens: 1_000_000 });
    expect((await stored('cleared')).$ai_cost_model_source).toBe('openrouter');
  });
});
