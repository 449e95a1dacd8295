/**
 * The web analytics view as the address holds it, so a view can be shared and reloaded:
 * `?date=-30d` (a preset) or `?from=2025-01-01&to=2025-01-31` (custom days), `compare=0` to turn
 * the comparison off, and one `filter=<Breakdown>:<value>` per filter chip.
 */

/** The date presets, as PostHog's `date_from` strings. */
export const PRESETS = [
  { value: 'dStart', label: 'Today' },
  { value: '-24h', label: 'Last 24 hours' },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
  { value: '-12m', label: 'Last 12 months' },
] as const;
export const DEFAULT_PRESET = '-7d';

/** A filter a clicked row added: the table it came from and the value clicked. */
export interface WebFilter {
  breakdown: string;
  value: string;
}

/**
 * Where each table's value lives as a property filter, the `properties` of every query. Session
 * properties are the session's entry values, as the tables read them.
 */
export const FILTER_KEYS: Record<string, { key: string; type: 'event' | 'session'; label: string }> = {
  Page: { key: '$pathname', type: 'event', label: 'Page' },
  InitialPage: { key: '$entry_pathname', type: 'session', label: 'Entry page' },
  ExitPage: { key: '$end_pathname', type: 'session', label: 'Exit page' },
  InitialChannelType: { key: '$channel_type', type: 'session', label: 'Channel' },
  InitialReferringDomain: { key: '$entry_referring_domain', type: 'session', label: 'Referrer' },
  InitialUTMSource: { key: '$entry_utm_source', type: 'session', label: 'UTM source' },
  InitialUTMMedium: { key: '$entry_utm_medium', type: 'session', label: 'UTM medium' },
  InitialUTMCampaign: { key: '$entry_utm_campaign', type: 'session', label: 'UTM campaign' },
  DeviceType: { key: '$device_type', type: 'event', label: 'Device' },
  Browser: { key: '$browser', type: 'event', label: 'Browser' },
  OS: { key: '$os', type: 'event', label: 'OS' },
  Country: { key: '$geoip_country_code', type: 'event', label: 'Country' },
  Region: { key: '$geoip_subdivision_1_code', type: 'event', label: 'Region' },
  City: { key: '$geoip_city_name', type: 'event', label: 'City' },
};

export interface WebView {
  /** A preset (`-7d`), or null with `from`/`to` set. */
  preset: string | null;
  from: string | null;
  to: string | null;
  compare: boolean;
  filters: WebFilter[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function readView(query: Record<string, string>, search = location.search): WebView {
  const params = new URLSearchParams(search);
  const from = query.from && DAY.test(query.from) ? query.from : null;
  const to = query.to && DAY.test(query.to) ? query.to : null;
  const preset = PRESETS.some((p) => p.value === query.date) ? (query.date as string) : null;
  const filters: WebFilter[] = [];
  for (const raw of params.getAll('filter')) {
    const at = raw.indexOf(':');
    const breakdown = raw.slice(0, at);
    if (at > 0 && Object.hasOwn(FILTER_KEYS, breakdown))
      filters.push({ breakdown, value: raw.slice(at + 1) });
  }
  return {
    preset: from ? null : (preset ?? DEFAULT_PRESET),
    from,
    to: from ? to : null,
    compare: query.compare !== '0',
    filters,
  };
}

export function viewSearch(view: WebView): string {
  const params = new URLSearchParams();
  if (view.from) {
    params.set('from', view.from);
    if (view.to) params.set('to', view.to);
  } else if (view.preset && view.preset !== DEFAULT_PRESET) params.set('date', view.preset);
  if (!view.compare) params.set('compare', '0');
  for (const f of view.filters) params.append('filter', `${f.breakdown}:${f.value}`);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The `dateRange` of every query: a preset, or whole custom days (the end day included). */
export function dateRange(view: WebView): { date_from: string; date_to?: string | null } {
  if (view.from) return { date_from: view.from, date_to: view.to ?? null };
  return { date_from: view.preset ?? DEFAULT_PRESET };
}

/** The filters as PostHog property filters. */
export function properties(view: WebView) {
  return view.filters.map((f) => {
    const k = FILTER_KEYS[f.breakdown] ?? { key: f.breakdown, type: 'event' };
    return { key: k.key, type: k.type, operator: 'exact', value: [f.value] };
  });
}

/** The fields every tile's query shares. */
export function baseQuery(view: WebView) {
  return {
    dateRange: dateRange(view),
    properties: properties(view),
    compareFilter: { compare: view.compare },
    filterTestAccounts: false,
  };
}

/** Hourly points for a day or less, weekly for a year, daily between. */
export function interval(view: WebView): 'hour' | 'day' | 'week' {
  if (view.preset === 'dStart' || view.preset === '-24h') return 'hour';
  if (view.preset === '-12m') return 'week';
  return 'day';
}
