// Refreshes src/domain/llm-analytics/model-prices.json from OpenRouter's public model list (the
// list PostHog's ingestion syncs its LLM cost table from). Keeps the models already in the file;
// `--all` takes every model OpenRouter prices. Review the diff before committing it.
import { readFile, writeFile } from 'node:fs/promises';

const file = new URL('../src/domain/llm-analytics/model-prices.json', import.meta.url);
const current = JSON.parse(await readFile(file, 'utf8'));
const response = await fetch('https://openrouter.ai/api/v1/models');
if (!response.ok) throw new Error(`OpenRouter answered ${response.status}`);
const { data } = await response.json();
const all = process.argv.includes('--all');
const price = (value) => {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};
const models = all ? {} : { ...current.models };
for (const model of data) {
  if (!all && !(model.id in current.models)) continue;
  const p = model.pricing ?? {};
  const row = { prompt_token: price(p.prompt), completion_token: price(p.completion) };
  if (row.prompt_token === undefined || row.completion_token === undefined) continue;
  if (price(p.input_cache_read)) row.cache_read_token = price(p.input_cache_read);
  if (price(p.input_cache_write)) row.cache_write_token = price(p.input_cache_write);
  models[model.id] = row;
}
const updated = new Date().toISOString().slice(0, 10);
await writeFile(file, `${JSON.stringify({ ...current, updated, models }, null, 2)}\n`);
console.log(`${Object.keys(models).length} models written`);
