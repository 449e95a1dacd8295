/**
 * Word handling for matching English against event and property names: "signed up", "signups"
 * and `$signup` should all meet in one comparable form.
 */

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  fifty: 50,
  hundred: 100,
};

/** Matches a count written as digits or as a common English word. */
export const NUMBER = `(\\d{1,6}|${Object.keys(NUMBER_WORDS).join('|')})`;

export function parseNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return /^\d+$/.test(text) ? Number(text) : NUMBER_WORDS[text];
}

/** Plural and verb endings off, so "signups"/"signed up"/"signup" and "purchase"/"purchased" meet. */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** A name or phrase as lowercase words: `$geoip_country_name` → geoip, country, name. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The comparable form: stemmed words run together. */
export const compact = (text: string) => words(text).map(stem).join('');

/** Edit distance counting a swap of neighbours as one ("pagveiw"); inputs are short names. */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = v;
    }
  }
  return at(a.length, b.length);
}

/** A short snake_case alias for a column, from a property key or event name. */
export function slug(name: string, fallback = 'value'): string {
  const s = words(name).join('_').slice(0, 40);
  return /^[a-z_]/.test(s) ? s : s ? `_${s}` : fallback;
}
