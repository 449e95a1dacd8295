import { RE2JS } from 're2js';

/**
 * An autocapture `elements_chain` as the list of elements PostHog's API shows next to it. The
 * chain is `tag.class1.class2:attr="value"attr2="value";next-element…`, quotes inside values
 * escaped as `\"`; `nth-child`, `nth-of-type`, `text`, `href` and `attr_id` have their own fields.
 */
export interface Element {
  event: null;
  text: string | null;
  tag_name: string | null;
  attr_class: string[] | null;
  href: string | null;
  attr_id: string | null;
  nth_child: number | null;
  nth_of_type: number | null;
  attributes: Record<string, string>;
  order: number;
}

/** Splits at `;` and whitespace outside quoted values. */
function splitElements(chain: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < chain.length; i++) {
    const c = chain[i] as string;
    if (c === '\\' && quoted && i + 1 < chain.length) {
      current += c + chain[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (!quoted && (c === ';' || /\s/.test(c))) {
      if (current) parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  if (current) parts.push(current);
  return parts;
}

const ATTRIBUTES_START = /:[a-zA-Z\-_0-9]*=/;
// PostHog's `(.*?)="(.*?[^\\])"`, applied globally. V8 backtracks it in quadratic time on a
// chain without a closing quote (32 000 `=` after `a:k=`: 2 s; the chain comes from public
// capture), so it is scanned by hand; text with a line break (where `.` stops) goes to RE2.
const NOT_BREAK = '[^\\n\\r\\x{2028}\\x{2029}]'; // V8's `.`
const ATTRIBUTE = RE2JS.compile(`(${NOT_BREAK}*?)="(${NOT_BREAK}*?[^\\\\])"`);
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** `[key, value]` pairs in the order the pattern finds them, in linear time. */
function attributePairs(attrs: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (LINE_BREAK.test(attrs)) {
    const m = ATTRIBUTE.matcher(attrs);
    while (m.find()) pairs.push([m.group(1) ?? '', m.group(2) ?? '']);
    return pairs;
  }
  let from = 0;
  for (;;) {
    // The key runs to the first `="`; no closing quote after it means none after a later one.
    const eq = attrs.indexOf('="', from);
    if (eq < 0) return pairs;
    let close = attrs.indexOf('"', eq + 3);
    while (close >= 0 && attrs[close - 1] === '\\') close = attrs.indexOf('"', close + 1);
    if (close < 0) return pairs;
    pairs.push([attrs.slice(from, eq), attrs.slice(eq + 2, close)]);
    from = close + 1;
  }
}

const int = (v: string): number | null => (/^-?\d+$/.test(v) ? Number(v) : null);

function parseElement(text: string, order: number): Element {
  const el: Element = {
    event: null,
    text: null,
    tag_name: null,
    attr_class: null,
    href: null,
    attr_id: null,
    nth_child: null,
    nth_of_type: null,
    attributes: {},
    order,
  };
  const start = text.search(ATTRIBUTES_START);
  const head = start < 0 ? text : text.slice(0, start);
  const attrs = start < 0 ? '' : text.slice(start + 1);
  if (head) {
    const dot = head.indexOf('.');
    el.tag_name = dot < 0 ? head : head.slice(0, dot);
    if (dot >= 0)
      el.attr_class = head
        .slice(dot + 1)
        .split('.')
        .filter(Boolean);
  }
  for (const [key, raw] of attributePairs(attrs)) {
    const value = raw.replace(/\\"/g, '"');
    if (key === 'href') el.href = value;
    else if (key === 'nth-child') el.nth_child = int(value);
    else if (key === 'nth-of-type') el.nth_of_type = int(value);
    else if (key === 'text') el.text = value;
    else if (key === 'attr_id') el.attr_id = value;
    else if (key) el.attributes[key] = value;
  }
  return el;
}

export function chainToElements(chain: string): Element[] {
  return splitElements(chain).map(parseElement);
}
