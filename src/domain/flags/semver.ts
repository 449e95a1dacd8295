/**
 * Semantic versions as PostHog's flags service reads them: a leading `v` and spaces dropped,
 * missing minor/patch taken as 0, leading zeros ignored ("3.08" is 3.8.0); pre-release parts order
 * below the release (1.2.3-beta < 1.2.3); build metadata ignored.
 */
export interface Version {
  core: [number, number, number];
  pre: string[];
}

const NUMERIC = /^\d+$/;

const parsed = new Map<string, Version | null>();

/**
 * Remembered per text (bounded): every `/flags` request compares the same filter values and, for a
 * given user, the same property values. The result is shared: callers never modify a Version.
 */
export function parseVersion(raw: unknown): Version | null {
  if (raw === null || raw === undefined || typeof raw === 'object') return null;
  const text = String(raw);
  let v = parsed.get(text);
  if (v === undefined) {
    v = parseText(text);
    if (parsed.size >= 10_000) parsed.clear();
    parsed.set(text, v);
  }
  return v;
}

function parseText(raw: string): Version | null {
  const text = raw.trim().replace(/^v/, '').trim();
  const cut = text.search(/[-+]/);
  const core = cut === -1 ? text : text.slice(0, cut);
  const rest = cut === -1 ? '' : text.slice(cut);
  const parts = core.split('.');
  if (parts.length > 3 || parts.some((p) => !NUMERIC.test(p))) return null;
  while (parts.length < 3) parts.push('0');
  const nums = parts.map((p) => Number(p)) as [number, number, number];
  if (nums.some((n) => !Number.isSafeInteger(n))) return null;
  let pre: string[] = [];
  if (rest.startsWith('-')) {
    const preText = rest.slice(1).split('+')[0] ?? '';
    if (!/^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/.test(preText)) return null;
    pre = preText.split('.');
  } else if (rest.startsWith('+') && !/^\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/.test(rest)) return null;
  return { core: nums, pre };
}

function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const xn = NUMERIC.test(x);
    const yn = NUMERIC.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++)
    if (a.core[i] !== b.core[i]) return (a.core[i] as number) - (b.core[i] as number);
  return comparePre(a.pre, b.pre);
}

const at = (core: [number, number, number]): Version => ({ core, pre: [] });

/** `[lower, upper)` for ~, ^ and wildcard requirements; null when the requirement is malformed. */
export function rangeOf(
  operator: 'tilde' | 'caret' | 'wildcard',
  raw: unknown,
): [Version, Version | null] | null {
  if (operator === 'wildcard') {
    const text = String(raw).trim().replace(/^v/, '');
    const parts = text.split('.');
    const fixed: number[] = [];
    for (const p of parts) {
      if (p === '*' || p === 'x' || p === 'X') break;
      if (!NUMERIC.test(p)) return null;
      fixed.push(Number(p));
    }
    // Nothing may follow the first wildcard except more wildcards ("1.*.*").
    if (parts.slice(fixed.length).some((p) => p !== '*' && p !== 'x' && p !== 'X')) return null;
    if (fixed.length === 0) return [at([0, 0, 0]), null];
    if (fixed.length === 1) return [at([fixed[0]!, 0, 0]), at([fixed[0]! + 1, 0, 0])];
    if (fixed.length === 2) return [at([fixed[0]!, fixed[1]!, 0]), at([fixed[0]!, fixed[1]! + 1, 0])];
    return [at([fixed[0]!, fixed[1]!, fixed[2]!]), at([fixed[0]!, fixed[1]!, fixed[2]! + 1])];
  }
  const v = parseVersion(raw);
  if (!v) return null;
  const [major, minor, patch] = v.core;
  if (operator === 'tilde') return [v, at([major, minor + 1, 0])];
  if (major > 0) return [v, at([major + 1, 0, 0])];
  if (minor > 0) return [v, at([0, minor + 1, 0])];
  return [v, at([0, 0, patch + 1])];
}
