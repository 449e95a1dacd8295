import { describe, expect, it } from 'vitest';
import {
  actionMessage,
  MAX_MESSAGE_CHARS,
  MAX_TOKEN_CHARS,
} from '../../src/domain/destinations/action-webhooks.js';

/** An action's Slack message is bounded whatever the event carries and the format names. */
describe('action message limits', () => {
  const big = 'x'.repeat(1_000_000);
  const input = (webhookUrl: string) => ({
    webhookUrl,
    // The longest format the API takes (1 200 characters), naming a megabyte property throughout.
    format: '[event.properties.big]'.repeat(54),
    action: { id: 1, name: 'Signed up' },
    event: {
      uuid: '0190a000-0000-7000-8000-000000000001',
      event: 'signed_up',
      distinctId: 'ada',
      timestamp: '2026-11-29T08:00:00Z',
      properties: { big, nested: { big } },
      personProperties: {},
    },
    team: { id: 1, personDisplayNameProperties: null },
    siteUrl: 'http://burrow.test',
  });

  for (const url of ['https://hooks.slack.com/services/T/B/x', 'https://chat.example.com/hook']) {
    it(`cuts each value and the whole message (${new URL(url).hostname})`, () => {
      const started = performance.now();
      const { text, markdown } = actionMessage(input(url));
      expect(text.length).toBe(MAX_MESSAGE_CHARS);
      expect(markdown.length).toBe(MAX_MESSAGE_CHARS);
      expect(text.endsWith('…')).toBe(true);
      // Each token's value was cut before it was escaped and joined.
      expect(text.indexOf('…')).toBe(MAX_TOKEN_CHARS - 1);
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  }

  it('leaves ordinary messages as they are', () => {
    const { text } = actionMessage({
      ...input('https://hooks.slack.com/x'),
      format: '[event.name] by [event.distinct_id]',
    });
    expect(text).toBe('signed_up by ada');
  });
});
