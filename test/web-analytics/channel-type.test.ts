import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPES, channelType } from '../../src/hogql/channel-type.js';

/**
 * Hand-labelled cases written from PostHog's documented rules (posthog.com/docs/data/channel-type):
 * cross-network campaigns first, then paid (cpc-like medium, gclid, gad_source), then direct, then
 * organic by source, shopping campaign, medium and referring domain, then the fallbacks.
 */
const CASES: [Parameters<typeof channelType>[0], string][] = [
  [{ referringDomain: '$direct' }, 'Direct'],
  [{ referringDomain: '$direct', utmSource: 'direct' }, 'Direct'],
  [{ referringDomain: '$direct', utmSource: '(direct)' }, 'Direct'],
  [{ referringDomain: '$direct', utmSource: '' , utmMedium: 'null' }, 'Direct'],
  [{ referringDomain: '$direct', hasFbclid: true }, 'Organic Social'],
  [{ referringDomain: 'www.google.com' }, 'Organic Search'],
  [{ referringDomain: 'www.google.co.uk' }, 'Organic Search'],
  [{ referringDomain: 'duckduckgo.com' }, 'Organic Search'],
  [{ referringDomain: 'search.brave.com' }, 'Organic Search'],
  [{ referringDomain: 'www.bing.com' }, 'Organic Search'],
  [{ referringDomain: 't.co' }, 'Organic Social'],
  [{ referringDomain: 'l.facebook.com' }, 'Organic Social'],
  [{ referringDomain: 'news.ycombinator.com' }, 'Organic Social'],
  [{ referringDomain: 'www.linkedin.com' }, 'Organic Social'],
  [{ referringDomain: 'www.youtube.com' }, 'Organic Video'],
  [{ referringDomain: 'www.amazon.de' }, 'Organic Shopping'],
  [{ referringDomain: 'blog.example.org' }, 'Referral'],
  [{ referringDomain: null }, 'Unknown'],
  [{ referringDomain: 'blog.example.org', utmMedium: 'email' }, 'Email'],
  [{ referringDomain: '$direct', utmMedium: 'Email' }, 'Email'],
  [{ referringDomain: '$direct', utmMedium: 'newsletter' }, 'Email'],
  [{ referringDomain: '$direct', utmMedium: 'affiliate' }, 'Affiliate'],
  [{ referringDomain: '$direct', utmMedium: 'audio' }, 'Audio'],
  [{ referringDomain: '$direct', utmMedium: 'sms' }, 'SMS'],
  [{ referringDomain: '$direct', utmMedium: 'push' }, 'Push'],
  [{ referringDomain: '$direct', utmMedium: 'web-push' }, 'Push'],
  [{ referringDomain: '$direct', utmMedium: 'organic', utmSource: 'newsletter-x' }, 'Organic Search'],
  [{ referringDomain: '$direct', utmSource: 'google' }, 'Organic Search'],
  [{ referringDomain: '$direct', utmSource: 'facebook' }, 'Organic Social'],
  [{ referringDomain: '$direct', utmMedium: 'social' }, 'Organic Social'],
  [{ referringDomain: '$direct', utmMedium: 'referral' }, 'Referral'],
  [{ referringDomain: '$direct', utmCampaign: 'summer-shop-sale' }, 'Direct'],
  [{ referringDomain: 'blog.example.org', utmCampaign: 'summer-shop-sale' }, 'Organic Shopping'],
  [{ referringDomain: 'blog.example.org', utmCampaign: 'launch video' }, 'Organic Video'],
  [{ referringDomain: 'www.google.com', utmSource: 'google', utmMedium: 'cpc' }, 'Paid Search'],
  [{ referringDomain: '$direct', utmSource: 'bing', utmMedium: 'ppc' }, 'Paid Search'],
  [{ referringDomain: '$direct', utmSource: 'facebook', utmMedium: 'paid_social' }, 'Paid Social'],
  [{ referringDomain: '$direct', utmSource: 'youtube', utmMedium: 'cpv' }, 'Paid Video'],
  [{ referringDomain: '$direct', utmSource: 'amazon', utmMedium: 'cpc' }, 'Paid Shopping'],
  [{ referringDomain: '$direct', utmSource: 'newsletter-x', utmMedium: 'cpc', utmCampaign: 'shopping' }, 'Paid Shopping'],
  [{ referringDomain: '$direct', utmMedium: 'cpm' }, 'Display'],
  [{ referringDomain: '$direct', utmMedium: 'paid', utmSource: 'x-partner' }, 'Paid Unknown'],
  [{ referringDomain: 'www.google.com', hasGclid: true }, 'Paid Search'],
  [{ referringDomain: '$direct', hasGclid: true }, 'Paid Unknown'],
  [{ referringDomain: '$direct', gadSource: '1' }, 'Paid Search'],
  [{ referringDomain: '$direct', utmMedium: 'retargeting', utmCampaign: 'video-q3' }, 'Paid Video'],
  [{ referringDomain: '$direct', utmMedium: 'cpc', hasFbclid: true }, 'Paid Social'],
  [{ referringDomain: 'www.google.com', utmMedium: 'cpc', utmCampaign: 'Cross-Network' }, 'Cross Network'],
];

describe('$channel_type rules', () => {
  it.each(CASES.map(([input, label]) => [JSON.stringify(input), input, label] as const))(
    '%s',
    (_name, input, label) => {
      expect(channelType(input)).toBe(label);
      expect(CHANNEL_TYPES).toContain(label);
    },
  );
});

export { CASES };
