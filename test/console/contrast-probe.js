// Runs inside the page (plain JavaScript: the test project has no DOM types); contrast.test.ts
// sends this file's text to Chromium.
/**
 * Every visible text in the page (text nodes, form values, SVG labels) against the colour
 * actually behind it, found by compositing the backgrounds of its ancestors.
 */
export function lowContrast(minimum) {
  const parse = (value) => {
    const rgb = value.match(/^rgba?\(([^)]+)\)$/);
    if (rgb) {
      const p = rgb[1]
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return [p[0], p[1], p[2], p[3] ?? 1];
    }
    // color-mix() and friends come back as color(srgb r g b / a), channels 0..1.
    const srgb = value.match(/^color\(srgb ([^)]+)\)$/);
    if (srgb) {
      const p = srgb[1]
        .split(/[\s/]+/)
        .filter(Boolean)
        .map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, p[3] ?? 1];
    }
    return null;
  };
  const over = (top, under) => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const luminance = ([r, g, b]) => {
    const f = (c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m);
    return (x + 0.05) / (y + 0.05);
  };
  /** The opaque colour behind an element, or null when an image or gradient is behind it. */
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.backgroundImage !== 'none') return null;
      const bg = parse(style.backgroundColor);
      if (bg && bg[3] > 0) layers.push(bg);
      if (bg && bg[3] >= 1) break;
    }
    const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
    let color = canvas && canvas[3] >= 1 ? canvas : [255, 255, 255, 1];
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const describe = (el) =>
    `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${[...el.classList].map((c) => `.${c}`).join('')}` +
    ` in ${el.parentElement?.tagName.toLowerCase()}${[...(el.parentElement?.classList ?? [])].map((c) => `.${c}`).join('')}`;

  const out = [];
  const seen = new Set();
  const check = (el, text) => {
    if (seen.has(el)) return;
    seen.add(el);
    if (el.closest('[aria-hidden="true"], [hidden], .sr-only')) return;
    // WCAG exempts inactive controls.
    if (el.disabled || el.closest('fieldset[disabled]')) return;
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
    const value = el.value;
    if (value) check(el, value);
  }
  return out;
}
