import { describe, expect, it } from 'vitest';
import { createCostStep } from '../../src/domain/llm-analytics/cost.js';
import { createPriceBook } from '../../src/domain/llm-analytics/model-prices.js';

/**
 * Costs against figures worked out by hand from the providers' published prices (USD per
 * million tokens), not from the code's own table: gpt-4o-mini 0.15 in / 0.60 out / 0.075 cached;
 * claude-3.5-sonnet 3 in / 15 out / 0.30 cache read / 3.75 cache write; gemini-2.5-flash 0.30 in /
 * 2.50 out; a private table for the default multipliers.
 */
const step = createCostStep({ prices: createPriceBook() });
const generation = (properties: Record<string, unknown>, event = '$ai_generation') => {
  const e = { event, properties: { ...properties } };
  const unknown = step(e);
  return { p: e.properties, unknown };
};

describe('LLM cost at ingestion', () => {
  it('prices OpenAI input with cached tokens counted in, at the cache price', () => {
    const { p } = generation({
      $ai_provider: 'openai',
      $ai_model: 'gpt-4o-mini',
      $ai_input_tokens: 1000,
      $ai_cache_read_input_tokens: 200,
      $ai_output_tokens: 500,
    });
    // 800 × 0.15/M + 200 × 0.075/M = 0.000135; 500 × 0.60/M = 0.0003.
    expect(p.$ai_input_cost_usd).toBeCloseTo(0.000135, 12);
    expect(p.$ai_output_cost_usd).toBeCloseTo(0.0003, 12);
    expect(p.$ai_total_cost_usd).toBeCloseTo(0.000435, 12);
    expect(p.$ai_model_cost_used).toBe('openai/gpt-4o-mini');
  });

  it('matches dated, prefixed and dotted model names to their table entry', () => {
    const dated = generation({ $ai_model: 'gpt-4o-mini-2024-07-18', $ai_input_tokens: 1_000_000 }).p;
    expect(dated.$ai_model_cost_used).toBe('openai/gpt-4o-mini');
    expect(dated.$ai_input_cost_usd).toBeCloseTo(0.15, 10);
    const prefixed = generation({ $ai_model: 'openai/gpt-4o', $ai_output_tokens: 1_000_000 }).p;
    expect(prefixed.$ai_output_cost_usd).toBeCloseTo(10, 10);
    const dashed = generation({ $ai_model: 'claude-3-5-sonnet-20241022', $ai_provider: 'anthropic' }).p;
    expect(dashed.$ai_model_cost_used).toBe('anthropic/claude-3.5-sonnet');
  });

  it('prices Anthropic cache reads and writes apart from uncached input', () => {
    const { p } = generation({
      $ai_provider: 'anthropic',
      $ai_model: 'claude-3-5-sonnet-latest',
      $ai_input_tokens: 100,
      $ai_cache_read_input_tokens: 2000,
      $ai_cache_creation_input_tokens: 1000,
      $ai_output_tokens: 300,
    });
    // Anthropic's input excludes the cache: 100 × 3/M + 2000 × 0.30/M + 1000 × 3.75/M = 0.00465.
    expect(p.$ai_input_cost_usd).toBeCloseTo(0.00465, 12);
    expect(p.$ai_output_cost_usd).toBeCloseTo(0.0045, 12);
    expect(p.$ai_total_cost_usd).toBeCloseTo(0.00915, 12);
    expect(p.$ai_cache_reporting_exclusive).toBe(true);
  });

  it('uses the default multipliers where the table has no cache price', () => {
    const book = createPriceBook({
      'acme/acme-large': { prompt_token: 0.00001, completion_token: 0.00002 },
      'anthropic/claude-test-model': { prompt_token: 0.00001, completion_token: 0.00002 },
    });
    const own = createCostStep({ prices: book });
    const openai = {
      event: '$ai_generation',
      properties: {
        $ai_model: 'acme-large',
        $ai_input_tokens: 100,
        $ai_cache_read_input_tokens: 40,
      } as Record<string, unknown>,
    };
    own(openai);
    // 60 × 1e-5 + 40 × 0.5e-5 = 0.0008.
    expect(openai.properties.$ai_input_cost_usd).toBeCloseTo(0.0008, 12);
    const claude = {
      event: '$ai_generation',
      properties: {
        $ai_model: 'claude-test-model',
        $ai_input_tokens: 10,
        $ai_cache_read_input_tokens: 100,
        $ai_cache_creation_input_tokens: 20,
      } as Record<string, unknown>,
    };
    own(claude);
    // 10 × 1e-5 + 100 × 0.1e-5 + 20 × 1.25e-5 = 0.0001 + 0.0001 + 0.00025.
    expect(claude.properties.$ai_input_cost_usd).toBeCloseTo(0.00045, 12);
  });

  it('bills Gemini 2.5 reasoning tokens as output', () => {
    const { p } = generation({
      $ai_provider: 'gemini',
      $ai_model: 'gemini-2.5-flash',
      $ai_output_tokens: 1000,
      $ai_reasoning_tokens: 3000,
    });
    // (1000 + 3000) × 2.50/M = 0.01.
    expect(p.$ai_output_cost_usd).toBeCloseTo(0.01, 12);
    const o3 = generation({ $ai_model: 'o3-mini', $ai_output_tokens: 1000, $ai_reasoning_tokens: 3000 }).p;
    // OpenAI's output tokens already include reasoning: 1000 × 4.40/M.
    expect(o3.$ai_output_cost_usd).toBeCloseTo(0.0044, 12);
  });

  it('prices embeddings, keeps costs the SDK sent, and leaves unknown models uncosted', () => {
    const emb = generation(
      { $ai_model: 'text-embedding-3-small', $ai_input_tokens: 500_000 },
      '$ai_embedding',
    ).p;
    expect(emb.$ai_input_cost_usd).toBeCloseTo(0.01, 12);
    const sent = generation({ $ai_model: 'gpt-4o', $ai_input_cost_usd: 1, $ai_output_cost_usd: 2 }).p;
    expect(sent.$ai_total_cost_usd).toBe(3);
    expect(sent.$ai_model_cost_used).toBeUndefined();
    const unknown = generation({ $ai_provider: 'my-lab', $ai_model: 'house-model-7', $ai_input_tokens: 10 });
    expect(unknown.unknown).toBe('house-model-7');
    expect(unknown.p.$ai_total_cost_usd).toBeUndefined();
    expect(generation({ $ai_model: 'x1', $ai_input_tokens: 10 }).p.$ai_total_cost_usd).toBeUndefined();
    const span = generation({ $ai_model: 'gpt-4o', $ai_input_tokens: 10 }, '$ai_span').p;
    expect(span.$ai_total_cost_usd).toBeUndefined();
  });

  it("uses the prices an event brings ($ai_input_token_price, ...) before the table's, known model or not", () => {
    const { p } = generation({
      $ai_model: 'house-model-7',
      $ai_input_token_price: 0.001,
      $ai_output_token_price: 0.002,
      $ai_cache_read_token_price: 0.0001,
      $ai_input_tokens: 100,
      $ai_cache_read_input_tokens: 40,
      $ai_output_tokens: 50,
    });
    // 60 × 0.001 + 40 × 0.0001 = 0.064; 50 × 0.002 = 0.1.
    expect(p.$ai_input_cost_usd).toBeCloseTo(0.064, 12);
    expect(p.$ai_output_cost_usd).toBeCloseTo(0.1, 12);
    expect(p.$ai_total_cost_usd).toBeCloseTo(0.164, 12);
    expect(p.$ai_model_cost_used).toBe('custom');
    expect(p.$ai_cost_model_source).toBe('custom');
    // Only one of the two prices: the table prices it (gpt-4o: 100 × 2.50/M).
    const half = generation({ $ai_model: 'gpt-4o', $ai_input_token_price: 1, $ai_input_tokens: 100 }).p;
    expect(half.$ai_input_cost_usd).toBeCloseTo(0.00025, 12);
    expect(half.$ai_cost_model_source).toBe('openrouter');
  });
});
