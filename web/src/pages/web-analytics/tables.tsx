import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note';
import { baseQuery, FILTER_KEYS, type WebFilter, type WebView } from './state';
import { useWebQuery } from './use-web-query';

type Pair = [number | null, number | null];
type StatsRow = [unknown, Pair, Pair, Pair?];

interface Tab {
  id: string;
  label: string;
  /** The WebStatsTableQuery breakdown; none for the outbound clicks table. */
  breakdown?: string;
  column: string;
}

/** The tables as Plausible groups them: one card per group, one tab per breakdown. */
export const GROUPS: { title: string; tabs: Tab[] }[] = [
  {
    title: 'Pages',
    tabs: [
      { id: 'Page', label: 'Pages', breakdown: 'Page', column: 'Page' },
      { id: 'InitialPage', label: 'Entry', breakdown: 'InitialPage', column: 'Entry page' },
      { id: 'ExitPage', label: 'Exit', breakdown: 'ExitPage', column: 'Exit page' },
    ],
  },
  {
    title: 'Sources',
    tabs: [
      { id: 'InitialChannelType', label: 'Channels', breakdown: 'InitialChannelType', column: 'Channel' },
      {
        id: 'InitialReferringDomain',
        label: 'Referrers',
        breakdown: 'InitialReferringDomain',
        column: 'Referrer',
      },
      { id: 'InitialUTMSource', label: 'UTM source', breakdown: 'InitialUTMSource', column: 'Source' },
      { id: 'InitialUTMMedium', label: 'UTM medium', breakdown: 'InitialUTMMedium', column: 'Medium' },
      {
        id: 'InitialUTMCampaign',
        label: 'UTM campaign',
        breakdown: 'InitialUTMCampaign',
        column: 'Campaign',
      },
    ],
  },
  {
    title: 'Devices',
    tabs: [
      { id: 'DeviceType', label: 'Devices', breakdown: 'DeviceType', column: 'Device' },
      { id: 'Browser', label: 'Browsers', breakdown: 'Browser', column: 'Browser' },
      { id: 'OS', label: 'OS', breakdown: 'OS', column: 'OS' },
    ],
  },
  {
    title: 'Locations',
    tabs: [
      { id: 'Country', label: 'Countries', breakdown: 'Country', column: 'Country' },
      { id: 'Region', label: 'Regions', breakdown: 'Region', column: 'Region' },
      { id: 'City', label: 'Cities', breakdown: 'City', column: 'City' },
    ],
  },
  { title: 'Outbound clicks', tabs: [{ id: 'Outbound', label: 'Outbound clicks', column: 'Link' }] },
];

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' });
  } catch {
    return null;
  }
})();
const country = (code: unknown) => {
  const c = String(code ?? '');
  try {
    return (c && regionNames?.of(c)) || c;
  } catch {
    return c;
  }
};

/** A breakdown value as read in the table, and as the filter its row adds. */
function describe(breakdown: string, value: unknown): { label: string; filter: string } {
  if (breakdown === 'Country') return { label: country(value), filter: String(value) };
  if (breakdown === 'Region' && Array.isArray(value)) {
    const [cc, code, name] = value;
    return { label: `${name ?? code}, ${country(cc)}`, filter: String(code) };
  }
  if (breakdown === 'City' && Array.isArray(value)) {
    const [cc, city] = value;
    return { label: `${city}, ${country(cc)}`, filter: String(city) };
  }
  const text = String(value);
  return { label: text === '' ? '(none)' : text, filter: text };
}

const count = (n: number | null | undefined) => (n == null ? '–' : Math.round(n).toLocaleString());

function StatsTable({ tab, view, onFilter }: { tab: Tab; view: WebView; onFilter: (f: WebFilter) => void }) {
  const breakdown = tab.breakdown ?? '';
  const outbound = !tab.breakdown;
  const { data, error, retry } = useWebQuery<{ results: StatsRow[]; hasMore?: boolean }>(
    outbound
      ? { kind: 'WebExternalClicksTableQuery', ...baseQuery(view), stripQueryParams: true, limit: 10 }
      : { kind: 'WebStatsTableQuery', ...baseQuery(view), breakdownBy: breakdown, limit: 10 },
  );
  if (error) return <ErrorNote error={error} retry={retry} />;
  if (!data) return <div class="skeleton" style={{ height: '12rem' }} aria-busy="true" />;
  if (data.results.length === 0) return <p class="muted">Nothing in this period.</p>;
  const max = Math.max(1, ...data.results.map((r) => r[1][0] ?? 0));
  // Rows a filter can be made of: the breakdowns with a property to filter on.
  const filterable = Object.hasOwn(FILTER_KEYS, breakdown);
  return (
    <table class="wa-table" aria-label={tab.label}>
      <thead>
        <tr>
          <th scope="col">{tab.column}</th>
          <th scope="col" class="num">
            Visitors
          </th>
          <th scope="col" class="num">
            {outbound ? 'Clicks' : 'Views'}
          </th>
        </tr>
      </thead>
      <tbody>
        {data.results.map((r) => {
          const { label, filter } = describe(breakdown, r[0]);
          const share = `${Math.round(((r[1][0] ?? 0) / max) * 100)}%`;
          return (
            <tr key={filter}>
              <td class="wa-name" style={{ '--share': share }}>
                {outbound && /^https?:\/\//i.test(filter) ? (
                  // Only web addresses become links: a captured `javascript:` URL stays text.
                  <a href={filter} target="_blank" rel="noopener noreferrer nofollow">
                    {label}
                  </a>
                ) : !outbound && filterable ? (
                  <button
                    type="button"
                    title={`Filter by ${FILTER_KEYS[breakdown]?.label.toLowerCase()}: ${label}`}
                    onClick={() => onFilter({ breakdown, value: filter })}
                  >
                    {label}
                  </button>
                ) : (
                  <span>{label}</span>
                )}
              </td>
              <td class="num">{count(r[1][0])}</td>
              <td class="num">{count(r[2][0])}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One card of tables behind tabs (buttons with `aria-selected`; arrow keys move between them). */
export function TableGroup({
  group,
  view,
  onFilter,
}: {
  group: (typeof GROUPS)[number];
  view: WebView;
  onFilter: (f: WebFilter) => void;
}) {
  const [selected, setSelected] = useState(group.tabs[0]?.id ?? '');
  const tab = group.tabs.find((t) => t.id === selected) ?? group.tabs[0];
  if (!tab) return null;
  const id = (t: Tab) => `wa-tab-${t.id}`;
  return (
    <section class="card wa-group" aria-label={group.title}>
      {group.tabs.length > 1 ? (
        <div class="wa-tabs" role="tablist" aria-label={group.title}>
          {group.tabs.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={id(t)}
              aria-selected={t.id === tab.id}
              aria-controls={`${id(t)}-panel`}
              tabIndex={t.id === tab.id ? 0 : -1}
              onClick={() => setSelected(t.id)}
            >
              {t.label}
            </button>
          ))}
        </div>
      ) : (
        <h2>{group.title}</h2>
      )}
      {group.tabs.length > 1 ? (
        <div id={`${id(tab)}-panel`} role="tabpanel" aria-labelledby={id(tab)}>
          <StatsTable key={tab.id} tab={tab} view={view} onFilter={onFilter} />
        </div>
      ) : (
        <StatsTable tab={tab} view={view} onFilter={onFilter} />
      )}
    </section>
  );
}
