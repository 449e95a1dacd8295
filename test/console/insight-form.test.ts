import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FORM,
  formFromUrl,
  fromQuery,
  type InsightForm,
  toQuery,
} from '../../web/src/pages/insights/form.js';

/** The insight form and the query node it sends, saves and carries in its URL. */
describe('insight form', () => {
  it('sends filters, breakdowns and math as PostHog frontend does, and reads them back', () => {
    const form: InsightForm = {
      ...DEFAULT_FORM,
      series: [
        {
          event: '$pageview',
          math: 'dau',
          properties: [{ key: 'plan', type: 'event', operator: 'exact', value: 'pro' }],
        },
        { event: 'purchase', math: 'p95', mathProperty: 'amount' },
      ],
      breakdown: 'country',
      breakdownType: 'person',
      properties: [
        { key: 'amount', type: 'event', operator: 'gt', value: '10' },
        { key: 'email', type: 'person', operator: 'is_set', value: '' },
      ],
    };
    const query = toQuery(form);
    expect(query).toMatchObject({
      kind: 'TrendsQuery',
      series: [
        {
          kind: 'EventsNode',
          event: '$pageview',
          math: 'dau',
          properties: [{ key: 'plan', type: 'event', operator: 'exact', value: ['pro'] }],
        },
        { event: 'purchase', math: 'p95', math_property: 'amount' },
      ],
      breakdownFilter: { breakdown: 'country', breakdown_type: 'person' },
      properties: [
        { key: 'amount', type: 'event', operator: 'gt', value: 10 },
        { key: 'email', type: 'person', operator: 'is_set', value: 'is_set' },
      ],
    });
    expect(fromQuery(query)).toEqual({ ...form, filterTestAccounts: false });
    // The URL carries the same node, so a reload reopens the same form.
    const url = new URL(`http://x/insights?q=${encodeURIComponent(JSON.stringify(query))}`);
    expect(formFromUrl(url.search)).toEqual({ ...form, filterTestAccounts: false });
    expect(formFromUrl('?q=%7Bnot json')).toBeNull();
  });

  it('keeps a retention range and period through the query and back', () => {
    const query = toQuery({ ...DEFAULT_FORM, kind: 'Retention', dateFrom: '-30d', interval: 'week' });
    expect(query).toMatchObject({
      kind: 'RetentionQuery',
      dateRange: { date_from: '-30d' },
      retentionFilter: { period: 'Week' },
    });
    expect(fromQuery(query)).toMatchObject({ kind: 'Retention', dateFrom: '-30d', interval: 'week' });
  });
});
