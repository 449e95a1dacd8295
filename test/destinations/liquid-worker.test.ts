import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLiquidPool } from '../../src/domain/destinations/liquid-pool.js';
import {
  checkTemplate,
  parseHogTemplate,
  renderValue,
  TemplateError,
} from '../../src/domain/destinations/templating.js';

// Real worker threads: Liquid renders off the event loop, and a hostile template costs a worker,
// never the main thread.
const pool = createLiquidPool({ size: 2 });
afterAll(() => pool.close());

const globals = {
  event: { event: 'signed up', properties: { plan: 'pro', items: [1, 2, 3] } },
  person: { id: 'p1', properties: { email: 'a@example.com' } },
};

/** Runs `fn` while a 10 ms interval measures the event loop: the longest gap between its ticks. */
async function maxGapDuring<T>(
  fn: () => Promise<T>,
): Promise<{ result: PromiseSettledResult<T>; gap: number }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  const [result] = await Promise.allSettled([fn()]);
  clearInterval(timer);
  return { result: result!, gap };
}

// A nested loop far longer than the 1 s render limit.
const LOOPING = '{% for a in (1..100000) %}{% for b in (1..100000) %}{{ a }}{% endfor %}{% endfor %}';

describe('Liquid in worker threads', () => {
  it('renders a normal template as before (filters, loops, objects and keys)', async () => {
    const value = {
      text: 'Hi {{ person.properties.email | upcase }}: {{ event.event }}',
      '{{ event.properties.plan }}': ['{% for i in event.properties.items %}{{ i }}{% endfor %}'],
      n: 5,
    };
    expect(await renderValue(value, 'liquid', globals, pool)).toEqual({
      text: 'Hi A@EXAMPLE.COM: signed up',
      pro: ['123'],
      n: 5,
    });
    // No file system and strict filters, as before.
    await expect(renderValue('{% include "x" %}', 'liquid', globals, pool)).rejects.toThrow(TemplateError);
    await expect(renderValue('{{ 1 | nosuch }}', 'liquid', globals, pool)).rejects.toThrow(
      /Liquid template failed: undefined filter: nosuch/,
    );
    await checkTemplate({ a: '{{ ok }}' }, 'liquid', pool);
    await expect(checkTemplate({ a: ['{{ unclosed'] }, 'liquid', pool)).rejects.toThrow(
      /Liquid template does not parse/,
    );
  });

  it('cuts a template off at its limit while the event loop keeps running', async () => {
    const { result, gap } = await maxGapDuring(() => renderValue(LOOPING, 'liquid', globals, pool));
    expect(result.status).toBe('rejected');
    const error = (result as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(TemplateError);
    expect(error.message).toMatch(/^Liquid template failed: template render limit exceeded/);
    expect(gap).toBeLessThan(100);
  });

  it('a filter that never returns to Liquid is cut off by the wall clock, the worker replaced', async () => {
    // One `join` over a huge range: Liquid's own limit is only checked between template nodes.
    const own = createLiquidPool({
      size: 1,
      limitMs: 200,
      graceMs: 100,
      memoryLimit: Number.MAX_SAFE_INTEGER,
    });
    try {
      await own.render('warm', {});
      const hung = '{% assign r = (1..30000000) %}{{ r | join: "," | size }}';
      const t = performance.now();
      const { result, gap } = await maxGapDuring(() => own.render(hung, {}));
      expect(result.status).toBe('rejected');
      expect(performance.now() - t).toBeLessThan(2000);
      expect(gap).toBeLessThan(100);
      expect(await own.render('{{ 1 | plus: 1 }}', {})).toBe('2');
      expect(own.started).toBe(2);
    } finally {
      await own.close();
    }
  });

  it('an allocation bomb kills only its worker; the next render works', async () => {
    // Liquid's own memory accounting off: only the worker's heap limit stands in the way.
    const own = createLiquidPool({
      size: 1,
      limitMs: 10_000,
      memoryLimit: Number.MAX_SAFE_INTEGER,
      maxOldGenerationSizeMb: 64,
    });
    try {
      // 800 KB arrays kept alive one after another.
      const bomb =
        '{% assign outer = "" | split: "," %}{% for i in (1..100000) %}{% assign big = (1..100000) %}' +
        '{% assign outer = outer | push: big %}{% endfor %}{{ outer | size }}';
      await expect(renderValue(bomb, 'liquid', {}, own)).rejects.toThrow(/Liquid template failed: .*memory/);
      const before = own.started;
      expect(await own.render('{{ "ok" | upcase }}', {})).toBe('OK');
      expect(own.started).toBe(before + 1);
    } finally {
      await own.close();
    }
    // With the default accounting, Liquid refuses it itself.
    await expect(
      renderValue(
        '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}',
        'liquid',
        {},
        pool,
      ),
    ).rejects.toThrow(/limit exceeded/);
    // The largest array Liquid's accounting allows (80 MB, in one piece) fits a worker's default
    // heap: one allocation far past the heap limit would abort this whole process, not the worker.
    const largest = await renderValue(
      '{% assign r = (1..9999999) %}{{ r | size }}',
      'liquid',
      {},
      pool,
    ).catch((e: Error) => e.message);
    expect(largest).toMatch(/^9999999$|limit exceeded/);
  });

  it('many concurrent renders complete', async () => {
    const out = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        renderValue(`{{ ${i} | plus: 1 }}-{{ event.event }}`, 'liquid', globals, pool),
      ),
    );
    expect(out).toEqual(Array.from({ length: 300 }, (_, i) => `${i + 1}-signed up`));
  });

  it('renders behind a hostile one still complete on the other worker', async () => {
    const hostile = renderValue(LOOPING, 'liquid', globals, pool).catch((e: Error) => e.message);
    const quick = await Promise.all(
      Array.from({ length: 20 }, () => renderValue('{{ event.event }}', 'liquid', globals, pool)),
    );
    expect(quick.every((s) => s === 'signed up')).toBe(true);
    expect(await hostile).toMatch(/limit exceeded/);
  });

  it('a full queue fails at once as busy instead of growing', async () => {
    const own = createLiquidPool({ size: 1, queueLimit: 5 });
    try {
      const all = await Promise.allSettled(Array.from({ length: 20 }, () => own.render('{{ 1 }}', {})));
      const busy = all.filter(
        (r) => r.status === 'rejected' && /busy|try again/.test(String(r.reason.message)),
      );
      expect(busy.length).toBe(15);
      expect(all.filter((r) => r.status === 'fulfilled').length).toBe(5);
    } finally {
      await own.close();
    }
  });

  it('a render waiting too long for a worker fails as busy', async () => {
    const own = createLiquidPool({ size: 1, maxWaitMs: 300 });
    try {
      const hostile = own.render(LOOPING, {}).catch((e: Error) => e.message);
      const started = performance.now();
      await expect(own.render('{{ 1 }}', {})).rejects.toThrow(/too many Liquid templates/);
      expect(performance.now() - started).toBeLessThan(900);
      expect(await hostile).toMatch(/limit exceeded/);
      expect(await own.render('{{ 2 }}', {})).toBe('2');
    } finally {
      await own.close();
    }
  });

  it('rejects pending renders once closed', async () => {
    const own = createLiquidPool({ size: 1 });
    const pending = own.render(LOOPING, {}).catch((e: Error) => e.message);
    await own.close();
    expect(await pending).toMatch(/shut down/);
    await expect(own.render('{{ 1 }}', {})).rejects.toThrow(/shut down/);
  });

  it('Hog templates stay on the main thread, parsed once per template string', async () => {
    const t = 'Hi {person.properties.email} ({event.event})';
    expect(parseHogTemplate(t)).toBe(parseHogTemplate(t));
    expect(await renderValue(t, 'hog', globals)).toBe('Hi a@example.com (signed up)');
    expect(() => parseHogTemplate('{nope.x}')).toThrow(TemplateError);
    expect(() => parseHogTemplate('{nope.x}')).toThrow(TemplateError);
  });

  it('an idle pool does not keep the process alive; a render in progress does', () => {
    // Under tsx, as `npm run dev` runs it: the script ends without closing the pool.
    const pool = fileURLToPath(new URL('../../src/domain/destinations/liquid-pool.ts', import.meta.url));
    const script = `
      const { createLiquidPool } = await import(${JSON.stringify(pool)});
      const p = createLiquidPool();
      p.render('{{ a }}!', { a: 'done' }).then((out) => console.log(out));`;
    const started = performance.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('done!');
    expect(run.status).toBe(0);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
