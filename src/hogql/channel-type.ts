/**
 * PostHog's default channel classification (`$channel_type`): a session's first referring domain
 * and UTM parameters mapped to a channel, after GA4's default channel grouping with PostHog's own
 * changes (posthog.com/docs/data/channel-type). The rules are written once here as data (one
 * regular expression per source category, one per medium family) and used twice: by
 * `channelType()` in TypeScript and by `channelTypeHogQL()`, the same rules as a HogQL expression
 * (the `$channel_type` field of the `sessions` table). Both use RE2-compatible patterns.
 */

const names = (list: string) => list.trim().split(/\s+/).join('|');
/** A root name with any subdomain and a one- or two-part TLD (`google.co.uk`), or the bare name. */
const byRoot = (list: string) => `(?:[a-z0-9-]+\\.)*(?:${names(list)})(?:\\.[a-z]{2,3}){0,2}`;
/** Dotted names matched as the whole host or a suffix (`t.co`, `lnkd.in`). */
const byHost = (list: string) =>
  `(?:[a-z0-9-]+\\.)*(?:${list
    .trim()
    .split(/\s+/)
    .map((h) => h.replace(/\./g, '\\.'))
    .join('|')})`;
const whole = (...alts: string[]) => `^(?:${alts.join('|')})$`;

/** Source categories (GA4's lists, trimmed to the sources that matter): utm_source or a referring domain. */
export const SOURCE_CATEGORIES = {
  search: whole(
    byRoot(
      'google bing yahoo duckduckgo baidu yandex ecosia naver qwant startpage seznam sogou ask aol ' +
        'dogpile yippy kagi perplexity mojeek',
    ),
    byHost('search.brave.com so.com daum.net'),
  ),
  social: whole(
    byRoot(
      'facebook fb instagram twitter x linkedin reddit pinterest tiktok snapchat tumblr quora ' +
        'whatsapp telegram discord mastodon threads bsky bluesky vk weibo wechat ycombinator',
    ),
    byHost('t.co lnkd.in news.ycombinator.com old.reddit.com ig.me'),
  ),
  video: whole(byRoot('youtube vimeo twitch dailymotion wistia netflix'), byHost('youtu.be')),
  shopping: whole(byRoot('amazon ebay etsy shopify walmart aliexpress alibaba mercadolibre')),
} as const;

const PAID_SOURCE: [keyof typeof SOURCE_CATEGORIES, string][] = [
  ['search', 'Paid Search'],
  ['social', 'Paid Social'],
  ['video', 'Paid Video'],
  ['shopping', 'Paid Shopping'],
];
const ORGANIC_SOURCE: [keyof typeof SOURCE_CATEGORIES, string][] = [
  ['search', 'Organic Search'],
  ['social', 'Organic Social'],
  ['video', 'Organic Video'],
  ['shopping', 'Organic Shopping'],
];

const SOCIAL_MEDIUM = '^(?:social|social-network|social-media|sm|social network|social media)$';
/** Mediums of paid traffic with no known source. */
const PAID_MEDIUM: [string, string][] = [
  ['^(?:display|banner|expandable|interstitial|cpm)$', 'Display'],
  [SOCIAL_MEDIUM, 'Paid Social'],
  ['^(?:video)$', 'Paid Video'],
];
/** Mediums of unpaid traffic with no known source. */
const ORGANIC_MEDIUM: [string, string][] = [
  ['^(?:organic)$', 'Organic Search'],
  [SOCIAL_MEDIUM, 'Organic Social'],
  ['^(?:video)$', 'Organic Video'],
  ['^(?:referral|app|link)$', 'Referral'],
  ['^(?:email|e-mail|e_mail|e mail|newsletter)$', 'Email'],
  ['^(?:affiliate)$', 'Affiliate'],
  ['^(?:audio)$', 'Audio'],
  ['^(?:sms)$', 'SMS'],
  ['^(?:push|mobile|notification)$', 'Push'],
];
const PAID_MEDIUMS = ['cpc', 'cpm', 'cpv', 'cpa', 'ppc', 'retargeting'];
const SHOPPING_CAMPAIGN = '^(.*(([^a-df-z]|^)shop|shopping).*)$';
const VIDEO_CAMPAIGN = '^(.*video.*)$';

export const CHANNEL_TYPES = [
  'Cross Network',
  'Paid Search',
  'Paid Social',
  'Paid Video',
  'Paid Shopping',
  'Paid Unknown',
  'Display',
  'Direct',
  'Organic Search',
  'Organic Social',
  'Organic Video',
  'Organic Shopping',
  'Push',
  'SMS',
  'Audio',
  'Email',
  'Referral',
  'Affiliate',
  'Unknown',
] as const;

export interface ChannelInput {
  referringDomain?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  hasGclid?: boolean;
  hasFbclid?: boolean;
  gadSource?: string | null;
}

const clean = (v: string | null | undefined) => (v == null || v === '' || v === 'null' ? null : v);
const test = (re: string, v: string | null) => v !== null && new RegExp(re).test(v);
const lookup = (table: [string, string][], v: string | null) =>
  table.find(([re]) => test(re, v))?.[1] ?? null;
const sourceLookup = (table: [keyof typeof SOURCE_CATEGORIES, string][], v: string | null) =>
  lookup(
    table.map(([cat, channel]) => [SOURCE_CATEGORIES[cat], channel]),
    v === null ? null : v.toLowerCase(),
  );

/** The channel of one session's first touch. */
export function channelType(input: ChannelInput): string {
  const campaign = clean(input.utmCampaign)?.toLowerCase() ?? null;
  const medium = clean(input.utmMedium)?.toLowerCase() ?? null;
  const source = clean(input.utmSource)?.toLowerCase() ?? null;
  const domain = input.referringDomain ?? null;
  const gad = clean(input.gadSource);
  const fbclid = input.hasFbclid === true;
  if (test('cross-network', campaign)) return 'Cross Network';
  const paid =
    (medium !== null && (PAID_MEDIUMS.includes(medium) || medium.startsWith('paid'))) ||
    input.hasGclid === true ||
    gad !== null;
  if (paid) {
    return (
      sourceLookup(PAID_SOURCE, source) ??
      (test(SHOPPING_CAMPAIGN, campaign) ? 'Paid Shopping' : null) ??
      lookup(PAID_MEDIUM, medium) ??
      sourceLookup(PAID_SOURCE, domain) ??
      (gad === '1'
        ? 'Paid Search'
        : test(VIDEO_CAMPAIGN, campaign)
          ? 'Paid Video'
          : fbclid
            ? 'Paid Social'
            : 'Paid Unknown')
    );
  }
  if (
    domain === '$direct' &&
    medium === null &&
    (source === null || ['(direct)', 'direct', '$direct'].includes(source)) &&
    !fbclid
  )
    return 'Direct';
  return (
    sourceLookup(ORGANIC_SOURCE, source) ??
    (test(SHOPPING_CAMPAIGN, campaign) ? 'Organic Shopping' : null) ??
    lookup(ORGANIC_MEDIUM, medium) ??
    sourceLookup(ORGANIC_SOURCE, domain) ??
    (test(VIDEO_CAMPAIGN, campaign)
      ? 'Organic Video'
      : test('push$', medium)
        ? 'Push'
        : fbclid
          ? 'Organic Social'
          : domain === '$direct'
            ? 'Direct'
            : domain !== null
              ? 'Referral'
              : 'Unknown')
  );
}

const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** HogQL text of the same rules over the given HogQL expressions (texts). */
export function channelTypeHogQL(e: {
  referringDomain: string;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  hasGclid?: string;
  hasFbclid?: string;
  gadSource?: string;
}): string {
  const norm = (x: string) => `lower(nullIf(nullIf(toString(${x}), ''), 'null'))`;
  const campaign = norm(e.utmCampaign);
  const medium = norm(e.utmMedium);
  const source = norm(e.utmSource);
  const domain = `toString(${e.referringDomain})`;
  const gclid = e.hasGclid ?? 'false';
  const fbclid = e.hasFbclid ?? 'false';
  const gad = e.gadSource ? `nullIf(nullIf(toString(${e.gadSource}), ''), 'null')` : 'NULL';
  const m = (re: string, x: string) => `ifNull(match(${x}, ${lit(re)}), false)`;
  const table = (rows: [string, string][], x: string) =>
    `multiIf(${rows.map(([re, ch]) => `${m(re, x)}, ${lit(ch)}`).join(', ')}, NULL)`;
  const src = (rows: [keyof typeof SOURCE_CATEGORIES, string][], x: string) =>
    table(
      rows.map(([cat, ch]) => [SOURCE_CATEGORIES[cat], ch]),
      `lower(${x})`,
    );
  const paidMediums = PAID_MEDIUMS.map(lit).join(', ');
  return `multiIf(
    ${m('cross-network', campaign)}, 'Cross Network',
    ifNull(${medium} IN (${paidMediums}) OR startsWith(${medium}, 'paid'), false) OR ${gclid} OR ${gad} IS NOT NULL,
    coalesce(${src(PAID_SOURCE, source)}, if(${m(SHOPPING_CAMPAIGN, campaign)}, 'Paid Shopping', NULL),
      ${table(PAID_MEDIUM, medium)}, ${src(PAID_SOURCE, domain)},
      multiIf(ifNull(${gad} = '1', false), 'Paid Search', ${m(VIDEO_CAMPAIGN, campaign)}, 'Paid Video', ${fbclid}, 'Paid Social', 'Paid Unknown')),
    ifNull(${domain} = '$direct', false) AND ${medium} IS NULL AND (${source} IS NULL OR ${source} IN ('(direct)', 'direct', '$direct')) AND NOT ${fbclid},
    'Direct',
    coalesce(${src(ORGANIC_SOURCE, source)}, if(${m(SHOPPING_CAMPAIGN, campaign)}, 'Organic Shopping', NULL),
      ${table(ORGANIC_MEDIUM, medium)}, ${src(ORGANIC_SOURCE, domain)},
      multiIf(${m(VIDEO_CAMPAIGN, campaign)}, 'Organic Video', ${m('push$', medium)}, 'Push', ${fbclid}, 'Organic Social',
        ifNull(${domain} = '$direct', false), 'Direct', ${e.referringDomain} IS NOT NULL, 'Referral', 'Unknown')))`;
}
