// Liquid on the main thread (as destinations rendered it before) against the worker pool: the
// longest event-loop gap while hostile templates run to their limit, and what an ordinary render
// costs each way. `npx tsx bench/liquid-event-loop.ts [--hostile 3] [--renders 2000]`
import { parseArgs } from 'node:util';
import { Liquid } from 'liquidjs';
import { createLiquidPool } from '../src/domain/destinations/liquid-pool.js';

const { values } = parseArgs({
  options: { hostile: { type: 'string', default: '3' }, renders: { type: 'string', default: '2000' } },
});
const HOSTILE = Number(values.hostile);
const RENDERS = Number(values.renders);

// The options templating.ts used on the main thread.
const main = new Liquid({
  parseLimit: 64 * 1024,
  renderLimit: 1000,
  memoryLimit: 10_000_000,
  ownPropertyOnly: true,
  strictFilters: true,
  cache: 100,
  relativeReference: false,
});
const pool = createLiquidPool({ size: 2 });

const LOOPING = '{% for a in (1..100000) %}{% for b in (1..100000) %}{{ a }}{% endfor %}{% endfor %}';
const ORDINARY =
  '{"text": "{{ person.properties.email }} did {{ event.event }} on {{ event.properties["$current_url"] }}"}';
const properties: Record<string, unknown> = { $current_url: 'https://example.com/pricing' };
for (let i = 0; i < 50; i++) properties[`prop_${i}`] = `value ${i} `.repeat(4);
const globals = {
  event: { event: '$pageview', distinct_id: 'd1', properties },
  person: { id: 'p1', properties: { email: 'a@example.com', name: 'A' } },
};

/** The longest gap between 10 ms ticks while `fn` runs, and the main thread's busy time. */
async function maxGap(fn: () => Promise<unknown>): Promise<{ gap: number; ms: number; busy: number }> {
  const elu = performance.eventLoopUtilization();
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  // The tick due after the last render, which a blocked loop delays.
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(timer);
  return { gap, ms, busy: performance.eventLoopUtilization(elu).active };
}

const fail = (e: Error) => e.message;
await pool.render('warm', {});
await main.parseAndRender('warm', {});

for (const [name, render] of [
  ['main thread', (t: string) => main.parseAndRender(t, globals)],
  ['worker pool', (t: string) => pool.render(t, globals)],
] as const) {
  const hostile = await maxGap(async () => {
    for (let i = 0; i < HOSTILE; i++) await render(LOOPING).catch(fail);
  });
  const ordinary = await maxGap(async () => {
    // 50 at a time: the delivery workers' default total in flight.
    let left = RENDERS;
    const lane = async () => {
      while (left-- > 0) await render(ORDINARY);
    };
    await Promise.all(Array.from({ length: 50 }, lane));
  });
  console.log(
    `${name}: ${HOSTILE} hostile renders in ${hostile.ms.toFixed(0)} ms, longest event-loop gap ` +
      `${hostile.gap.toFixed(0)} ms; ${RENDERS} ordinary renders in ${ordinary.ms.toFixed(0)} ms ` +
      `(${((ordinary.ms * 1000) / RENDERS).toFixed(0)} µs each, main thread busy ` +
      `${((ordinary.busy * 1000) / RENDERS).toFixed(0)} µs each), longest gap ${ordinary.gap.toFixed(0)} ms`,
  );
}
await pool.close();
