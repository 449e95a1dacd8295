import type { ModelPrice, PriceBook, PricedModel } from './model-prices.js';

/** The events PostHog's ingestion prices. */
const PRICED = new Set(['$ai_generation', '$ai_embedding']);

/** Gemini 2.5 reports reasoning tokens apart from output tokens but bills them as output. */
const REASONING_BILLED_APART = /^gemini-(2\.5|3)/;

const tokens = (value: unknown): number => {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
};

const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');

/** Anthropic-style counting: Claude models bill cache writes and reads apart, whoever serves them. */
function anthropicStyle(p: Record<string, unknown>): boolean {
  const provider = lower(p.$ai_provider);
  const model = lower(p.$ai_model);
  return provider === 'anthropic' || model.includes('anthropic') || model.startsWith('claude');
}

/**
 * Whether `$ai_input_tokens` leaves the cached tokens out (Anthropic's API) rather than counting
 * them in (OpenAI's). The event may say so; Anthropic-style providers do, except the Vercel AI
 * gateway, which counts them in unless its numbers show otherwise.
 */
function cacheExclusive(p: Record<string, unknown>): boolean {
  if (typeof p.$ai_cache_reporting_exclusive === 'boolean') return p.$ai_cache_reporting_exclusive;
  if (!anthropicStyle(p)) return false;
  if (!(lower(p.$ai_provider) === 'gateway' && lower(p.$ai_framework) === 'vercel')) return true;
  const input = tokens(p.$ai_input_tokens);
  return input < tokens(p.$ai_cache_read_input_tokens) + tokens(p.$ai_cache_creation_input_tokens);
}

function inputCost(p: Record<string, unknown>, price: ModelPrice, exclusive: boolean): number {
  const input = tokens(p.$ai_input_tokens);
  const read = tokens(p.$ai_cache_read_input_tokens);
  if (anthropicStyle(p)) {
    const write = tokens(p.$ai_cache_creation_input_tokens);
    // Without published cache prices, Anthropic's multipliers: writes 1.25x, reads 0.1x.
    const writePrice = price.cache_write_token ?? price.prompt_token * 1.25;
    const readPrice = price.cache_read_token ?? price.prompt_token * 0.1;
    const uncached = exclusive ? input : input - read - write;
    return write * writePrice + read * readPrice + uncached * price.prompt_token;
  }
  // Everyone else counts cached tokens in the input; without a cache price, half the input price.
  const readPrice = price.cache_read_token ?? price.prompt_token * 0.5;
  const regular = exclusive ? input : input - read;
  return read * readPrice + regular * price.prompt_token;
}

function outputCost(p: Record<string, unknown>, price: ModelPrice): number {
  let output = tokens(p.$ai_output_tokens);
  const model = lower(p.$ai_model).split('/').pop() ?? '';
  if (REASONING_BILLED_APART.test(model)) output += tokens(p.$ai_reasoning_tokens);
  return output * price.completion_token;
}

/** Costs are stored as PostHog's: plain numbers, without float noise past 12 significant digits. */
const usd = (n: number) => Number(n.toPrecision(12));

const finite = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/** `$ai_input_token_price` and `$ai_output_token_price` (USD per token), both needed, as PostHog's. */
function customPrice(p: Record<string, unknown>): ModelPrice | undefined {
  const prompt = finite(p.$ai_input_token_price);
  const completion = finite(p.$ai_output_token_price);
  if (prompt === undefined || completion === undefined) return undefined;
  const price: ModelPrice = { prompt_token: prompt, completion_token: completion };
  const read = finite(p.$ai_cache_read_token_price);
  const write = finite(p.$ai_cache_write_token_price);
  if (read !== undefined) price.cache_read_token = read;
  if (write !== undefined) price.cache_write_token = write;
  return price;
}

function setCosts(p: Record<string, unknown>, price: ModelPrice, used: string): void {
  const exclusive = cacheExclusive(p);
  p.$ai_cache_reporting_exclusive = exclusive;
  const input = usd(inputCost(p, price, exclusive));
  const output = usd(outputCost(p, price));
  p.$ai_model_cost_used = used;
  p.$ai_input_cost_usd = input;
  p.$ai_output_cost_usd = output;
  p.$ai_total_cost_usd = usd(input + output);
}

/**
 * Capture's cost step (PostHog's ingestion does the same before storing): an `$ai_generation` or
 * `$ai_embedding` with a known `$ai_model` gets `$ai_input_cost_usd`, `$ai_output_cost_usd`,
 * `$ai_total_cost_usd` and `$ai_model_cost_used`. Costs the SDK already sent are kept (the total
 * filled in); per-token prices it sent (`$ai_input_token_price`, ...) are used instead of the table. Unknown models are left uncosted and returned, so that they can be listed.
 */
export function createCostStep(deps: { prices: PriceBook }) {
  return function applyCost(
    event: { event: string; properties: Record<string, unknown> },
    projectPrices?: ProjectPrices,
  ): string | undefined {
    if (!PRICED.has(event.event)) return undefined;
    const p = event.properties;
    const sentInput = p.$ai_input_cost_usd;
    const sentOutput = p.$ai_output_cost_usd;
    if (typeof sentInput === 'number' && typeof sentOutput === 'number' && (sentInput || sentOutput)) {
      if (typeof p.$ai_total_cost_usd !== 'number') p.$ai_total_cost_usd = usd(sentInput + sentOutput);
      return undefined;
    }
    // The SDK's own per-token prices (a model under contract, a private one) win over the table.
    const custom = customPrice(p);
    if (custom) {
      setCosts(p, custom, 'custom');
      p.$ai_cost_model_source = 'custom';
      p.$ai_cost_model_provider = 'custom';
      return undefined;
    }
    if (typeof p.$ai_model !== 'string' || p.$ai_model === '') return undefined;
    // The project's own prices (a negotiated rate, a self-hosted model) before the table.
    const own = projectPrices?.find(p.$ai_model);
    if (own) {
      setCosts(p, own.price, own.model);
      p.$ai_cost_model_source = 'custom';
      p.$ai_cost_model_provider = 'custom';
      return undefined;
    }
    const priced = deps.prices.find(p.$ai_model);
    if (!priced) return p.$ai_model;
    setCosts(p, priced.price, priced.model);
    p.$ai_cost_model_source = 'openrouter';
    return undefined;
  };
}

export type CostStep = ReturnType<typeof createCostStep>;

/** A project's `llm_custom_model_prices` setting, as stored (validated on the way in). */
export interface ProjectModelPrice extends ModelPrice {
  model: string;
}

export interface ProjectPrices {
  find(model: string): PricedModel | undefined;
}

/** Lower case, provider prefix dropped, every run of other characters one dash. */
const key = (name: string) =>
  (name.toLowerCase().split('/').pop() ?? '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

const memo = new WeakMap<object, ProjectPrices | undefined>();

/**
 * The project's own model prices, matched by name only (lower-cased, with or without a provider
 * prefix, punctuation read as dashes): unlike the table, `gpt-4o` priced here does not price
 * `gpt-4o-mini`. Remembered per settings object (the team cache holds one until it changes).
 */
export function projectPrices(
  settings: Record<string, unknown> | null | undefined,
): ProjectPrices | undefined {
  if (!settings) return undefined;
  if (memo.has(settings)) return memo.get(settings);
  const list = settings.llm_custom_model_prices;
  let out: ProjectPrices | undefined;
  if (Array.isArray(list) && list.length > 0) {
    const byName = new Map<string, PricedModel>();
    for (const entry of list as ProjectModelPrice[]) {
      if (typeof entry?.model !== 'string') continue;
      const { model, ...price } = entry;
      const name = key(model);
      if (name && !byName.has(name)) byName.set(name, { model, price });
    }
    out = { find: (model) => byName.get(key(model)) };
  }
  memo.set(settings, out);
  return out;
}
