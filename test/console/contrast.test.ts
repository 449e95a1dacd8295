import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-contrast: skipped, no Chromium at ${CHROMIUM}`);

/** WCAG AA for body text; the brief holds every text to it, large or not. */
const AA = 4.5;

interface Low {
  page: string;
  element: string;
  text: string;
  ratio: number;
  color: string;
  background: string;
}

/**
 * Runs in the page: every visible text (text nodes, form values, SVG labels) against the colour
 * actually behind it, found by compositing the backgrounds of its ancestors.
 */
function lowContrast(minimum: number): Omit<Low, 'page'>[] {
  type RGBA = [number, number, number, number];
  const parse = (value: string): RGBA | null => {
    const rgb = value.match(/^rgba?\(([^)]+)\)$/);
    if (rgb) {
      const p = rgb[1]!
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
    }
    // color-mix() and friends come back as color(srgb r g b / a), channels 0..1.
    const srgb = value.match(/^color\(srgb ([^)]+)\)$/);
    if (srgb) {
      const p = srgb[1]!
        .split(/[\s/]+/)
        .filter(Boolean)
        .map(Number);
      return [p[0]! * 255, p[1]! * 255, p[2]! * 255, p[3] ?? 1];
    }
    return null;
  };
  const over = (top: RGBA, under: RGBA): RGBA => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i: number) => (top[i]! * top[3] + under[i]! * under[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const luminance = ([r, g, b]: RGBA) => {
    const f = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a: RGBA, b: RGBA) => {
    const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m);
    return (x! + 0.05) / (y! + 0.05);
  };
  /** The opaque colour behind an element, or null when an image or gradient is behind it. */
  const behind = (el: Element): RGBA | null => {
    const layers: RGBA[] = [];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.backgroundImage !== 'none') return null;
      const bg = parse(style.backgroundColor);
      if (bg && bg[3] > 0) layers.push(bg);
      if (bg && bg[3] >= 1) break;
    }
    const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
    let color: RGBA = canvas && canvas[3] >= 1 ? canvas : [255, 255, 255, 1];
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const opacity = (el: Element) => {
    let o = 1;
    for (let e: Element | null = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const describe = (el: Element) =>
    `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${[...el.classList].map((c) => `.${c}`).join('')}` +
    ` in ${el.parentElement?.tagName.toLowerCase()}${[...(el.parentElement?.classList ?? [])].map((c) => `.${c}`).join('')}`;

  const out: Omit<Low, 'page'>[] = [];
  const seen = new Set<Element>();
  const check = (el: Element, text: string) => {
    if (seen.has(el)) return;
    seen.add(el);
    if (el.closest('[aria-hidden="true"], [hidden], .sr-only')) return;
    // WCAG exempts inactive controls.
    if ((el as HTMLInputElement).disabled || el.closest('fieldset[disabled]')) return;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) return;
    const style = getComputedStyle(el);
    const raw = parse(el instanceof SVGElement ? style.fill : style.color);
    const bg = behind(el);
    if (!raw || !bg) return;
    const fg = over([raw[0], raw[1], raw[2], raw[3] * opacity(el)], bg);
    const r = ratio(fg, bg);
    if (r < minimum)
      out.push({
        element: describe(el),
        text: text.trim().slice(0, 40),
        ratio: Math.round(r * 100) / 100,
        color: style.color,
        background: `rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`,
      });
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.textContent?.trim() && node.parentElement) check(node.parentElement, node.textContent);
  }
  for (const el of document.querySelectorAll(
    'input:not([type=checkbox]):not([type=radio]), select, textarea',
  )) {
    const value = (el as HTMLInputElement).value;
    if (value) check(el, value);
  }
  return out;
}

/** Every page of the console, light and dark, with content in it. */
describe.skipIf(!hasChromium)(`console text contrast in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'contrast-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    const now = Date.now();
    const batch = Array.from({ length: 60 }, (_, i) => ({
      event: i % 3 === 0 ? 'signed up' : '$pageview',
      distinct_id: `user-${i % 7}`,
      timestamp: new Date(now - (i % 6) * 86_400_000 - i * 1000).toISOString(),
      properties: { $current_url: `https://shop.example/p/${i % 4}`, $browser: i % 2 ? 'Firefox' : 'Chrome' },
    }));
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
    await h.request('POST', `/api/projects/${h.boot.project_id}/feature_flags/`, {
      body: { key: 'new-checkout', name: 'New checkout', filters: { groups: [{ rollout_percentage: 50 }] } },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function visit(page: Page, path: string, ready: string) {
    await page.goto(`${base}${path}`);
    await page.locator(ready).first().waitFor({ timeout: 20_000 });
    // Let lazy parts (charts, editor highlighting) settle before reading colours.
    await page.waitForTimeout(400);
  }

  for (const scheme of ['light', 'dark'] as const) {
    it(`keeps every text at ${AA}:1 or more in the ${scheme} theme`, async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        colorScheme: scheme,
      });
      const page = await context.newPage();
      await page.goto(`${base}/login`);
      const low: Low[] = [];
      const measure = async (name: string) => {
        for (const l of await page.evaluate(lowContrast, AA)) low.push({ page: name, ...l });
      };
      await page.locator('h1').first().waitFor();
      await measure('login');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${base}/`);

      await visit(page, '/', '.feed li');
      await measure('home');
      await visit(page, '/insights', '.chart canvas');
      await measure('insights');
      await visit(page, '/sql', '.cm-content');
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+a');
      await page.keyboard.type(
        "SELECT event, count() AS n, 'text' AS s, 1.5 AS x FROM events WHERE event != 'x' GROUP BY event ORDER BY n DESC LIMIT 10",
      );
      await page.keyboard.press('Control+Enter');
      await page.locator('.data-table .trow').first().waitFor({ timeout: 20_000 });
      await page.locator('.cm-content').blur();
      await measure('sql');
      for (const [path, ready] of [
        ['/events', 'table.events tbody tr'],
        ['/people', 'main table tbody tr'],
        ['/recordings', 'main h1'],
        ['/dashboards', 'main h1'],
        ['/cohorts', 'main h1'],
        ['/feature_flags', 'main h1'],
        ['/settings', 'main h1'],
      ] as const) {
        await visit(page, path, ready);
        await measure(path.slice(1));
      }
      await context.close();
      // One line per kind of failure (page, element, colours), with one example text.
      const kinds = new Map<string, string>();
      for (const l of low) {
        const key = `${l.page}: ${l.element} ${l.color} on ${l.background} = ${l.ratio}:1`;
        if (!kinds.has(key)) kinds.set(key, l.text);
      }
      expect([...kinds].map(([k, text]) => `${k} ("${text}")`)).toEqual([]);
    });
  }
});
