import table from './model-prices.json' with { type: 'json' };

/** USD per token; cache prices only where the provider publishes them. */
export interface ModelPrice {
  prompt_token: number;
  completion_token: number;
  cache_read_token?: number;
  cache_write_token?: number;
}

export interface PricedModel {
  /** The table's name for the model (stored as `$ai_model_cost_used`). */
  model: string;
  price: ModelPrice;
}

type Prices = Record<string, ModelPrice>;

/** Lower case, every run of other characters one dash: `claude-3.5-sonnet` = `claude-3-5-sonnet`. */
const dashed = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** A model name and its provider-less tail (`openai/gpt-4o` → `gpt-4o`), each also dashed. */
function variants(name: string): string[] {
  const lower = name.toLowerCase();
  const tail = lower.split('/').pop() ?? lower;
  return [...new Set([lower, dashed(lower), tail, dashed(tail)])].filter((v) => v.length > 0);
}

/**
 * Finds a model's price as PostHog's ingestion does: the exact name (with or without the
 * provider prefix); else the longest known name contained in it (`gpt-4o-mini-2024-07-18` →
 * `gpt-4o-mini`); else a known name that contains it (`claude-3-5-sonnet` → a dated variant).
 * Unknown models have no price and stay uncosted.
 */
export function createPriceBook(prices: Prices = table.models as Prices) {
  const entries = Object.entries(prices).map(([model, price]) => ({ model, price, names: variants(model) }));
  const exact = new Map<string, PricedModel>();
  for (const { model, price, names } of entries) {
    const tail = names[2] as string;
    if (!exact.has(model.toLowerCase())) exact.set(model.toLowerCase(), { model, price });
    if (!exact.has(tail)) exact.set(tail, { model, price });
  }
  const cache = new Map<string, PricedModel | undefined>();

  function search(name: string): PricedModel | undefined {
    const lower = name.toLowerCase();
    const direct = exact.get(lower) ?? exact.get(lower.split('/').pop() ?? lower);
    if (direct) return direct;
    const wanted = variants(name);
    let best: PricedModel | undefined;
    let longest = 0;
    for (const entry of entries) {
      for (const known of entry.names) {
        if (known.length > longest && wanted.some((w) => w.includes(known))) {
          longest = known.length;
          best = { model: entry.model, price: entry.price };
        }
      }
    }
    if (best) return best;
    // Burrow's guard: a name of a few characters (`o1`, `gpt`) is inside too many to pick one.
    const longEnough = wanted.filter((w) => w.length >= 4);
    const wider = entries.find((e) => e.names.some((known) => longEnough.some((w) => known.includes(w))));
    return wider && { model: wider.model, price: wider.price };
  }

  return {
    find(name: string): PricedModel | undefined {
      if (!cache.has(name)) {
        // Bounded: a client inventing model names must not grow it without end.
        if (cache.size > 10_000) cache.clear();
        cache.set(name, search(name));
      }
      return cache.get(name);
    },
  };
}

export type PriceBook = ReturnType<typeof createPriceBook>;
