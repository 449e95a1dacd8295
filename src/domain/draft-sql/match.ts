import type { Catalog } from './catalog.js';
import { compact, distance, stem, words } from './text.js';

/**
 * Fuzzy matching of English phrases to the project's real event names and property keys.
 * Scores: 100 same name, 95 a known synonym the project has, 80 same words in another order,
 * 70 one name contains the other, 60/50 a typo or two, 40 a PostHog default the project has not
 * sent yet (still the right name once it does).
 */
export interface Match {
  name: string;
  score: number;
}

export interface PropertyRef {
  key: string;
  kind: 'event' | 'person';
}

/** Phrases (compared in compact form) for PostHog's default events and properties. */
const keyed = <T>(entries: Array<[string, T]>) => new Map(entries.map(([k, v]) => [compact(k), v]));

const EVENT_SYNONYMS = keyed<string>([
  ['pageview', '$pageview'],
  ['page view', '$pageview'],
  ['view', '$pageview'],
  ['visit', '$pageview'],
  ['screen', '$screen'],
  ['screen view', '$screen'],
  ['click', '$autocapture'],
  ['autocapture', '$autocapture'],
  ['page leave', '$pageleave'],
  ['identify', '$identify'],
  ['exception', '$exception'],
  ['error', '$exception'],
  ['rageclick', '$rageclick'],
  ['rage click', '$rageclick'],
]);

const PROPERTY_SYNONYMS = keyed<string[]>([
  ['browser', ['$browser']],
  ['os', ['$os']],
  ['operating system', ['$os']],
  ['device', ['$device_type']],
  ['device type', ['$device_type']],
  ['country', ['$geoip_country_name', '$geoip_country_code']],
  ['city', ['$geoip_city_name']],
  ['region', ['$geoip_subdivision_1_name']],
  ['url', ['$current_url']],
  ['page', ['$pathname', '$current_url']],
  ['path', ['$pathname']],
  ['referrer', ['$referring_domain', '$referrer']],
  ['referring domain', ['$referring_domain']],
  ['host', ['$host']],
  ['domain', ['$host']],
  ['library', ['$lib']],
  ['lib', ['$lib']],
  ['sdk', ['$lib']],
  ['source', ['utm_source']],
  ['campaign', ['utm_campaign']],
  ['medium', ['utm_medium']],
]);

function nameScore(phrase: string, name: string): number {
  const p = compact(phrase);
  const n = compact(name);
  if (p.length < 2 || n.length === 0) return 0;
  if (p === n) return 100;
  const sorted = (s: string) => words(s).map(stem).sort().join(' ');
  if (sorted(phrase) === sorted(name)) return 80;
  if (p.length >= 4 && n.length >= 4 && (n.includes(p) || p.includes(n))) return 70;
  const d = distance(p, n);
  if (p.length >= 5 && d === 1) return 60;
  if (p.length >= 6 && d === 2) return 50;
  return 0;
}

function best<T>(items: T[], score: (item: T) => number, count: (item: T) => number) {
  let top: { item: T; score: number } | undefined;
  for (const item of items) {
    const s = score(item);
    if (s > 0 && (!top || s > top.score || (s === top.score && count(item) > count(top.item)))) {
      top = { item, score: s };
    }
  }
  return top;
}

export function matchEvent(phrase: string, catalog: Catalog): Match | undefined {
  const found = best(
    catalog.events,
    (e) => nameScore(phrase, e.name),
    (e) => e.count,
  );
  const synonym = EVENT_SYNONYMS.get(compact(phrase));
  if (synonym) {
    const known = catalog.events.some((e) => e.name === synonym);
    const score = known ? 95 : 40;
    if (!found || found.score < score) return { name: synonym, score };
  }
  return found ? { name: found.item.name, score: found.score } : undefined;
}

export function matchProperty(
  phrase: string,
  catalog: Catalog,
): (PropertyRef & { score: number }) | undefined {
  const found = best(
    catalog.properties,
    (p) => {
      const s = nameScore(phrase, p.key);
      // A word of the key ("country" in $geoip_country_name) is a fair guess too.
      if (s === 0 && words(p.key).map(stem).includes(compact(phrase))) return 65;
      return s;
    },
    (p) => p.count + (p.kind === 'event' ? 0.5 : 0),
  );
  const candidates = (PROPERTY_SYNONYMS.get(compact(phrase)) ?? []).map((key) => {
    const known = catalog.properties.find((p) => p.key === key);
    return { key, kind: known?.kind ?? ('event' as const), score: known ? 95 : 40 };
  });
  const synonym = candidates.find((c) => c.score === 95) ?? candidates[0];
  if (synonym && (!found || found.score < synonym.score)) return synonym;
  return found ? { key: found.item.key, kind: found.item.kind, score: found.score } : undefined;
}
