/**
 * Request examples shown in the OpenAPI document (and Swagger UI), by method and route path. They
 * are the docs' examples; test/api/openapi-examples.test.ts sends each one and expects a 2xx.
 */
const QUERY = {
  HogQL: {
    summary: 'HogQL',
    value: {
      query: {
        kind: 'HogQLQuery',
        query: 'SELECT event, count() FROM events GROUP BY event ORDER BY count() DESC LIMIT 10',
      },
    },
  },
  Trends: {
    summary: 'Trends: daily count of an event over the last 7 days',
    value: {
      query: {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
        interval: 'day',
        dateRange: { date_from: '-7d' },
      },
    },
  },
  Funnels: {
    summary: 'Funnels: sign up, then purchase within 14 days',
    value: {
      query: {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: 'signed up' },
          { kind: 'EventsNode', event: 'purchased' },
        ],
        funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
        dateRange: { date_from: '-30d' },
      },
    },
  },
};

export const REQUEST_EXAMPLES: Record<string, Record<string, { summary: string; value: unknown }>> = {
  'POST /api/projects/:project_id/query/': QUERY,
  'POST /api/environments/:project_id/query/': QUERY,
  'PATCH /api/projects/:project_id/': {
    rename: {
      summary: 'Rename and turn on session recording',
      value: { name: 'Web', session_recording_opt_in: true },
    },
  },
  'POST /api/projects/:project_id/actions/': {
    pageview: {
      summary: 'Page views of the checkout',
      value: {
        name: 'Checked out',
        steps: [{ event: '$pageview', url: '/checkout', url_matching: 'contains' }],
      },
    },
  },
  'POST /api/projects/:project_id/batch_exports/': {
    noop: {
      summary: 'Hourly export of events (NoOp destination)',
      value: { name: 'events', interval: 'hour', destination: { type: 'NoOp', config: {} } },
    },
  },
  'POST /api/personal_api_keys/': {
    readOnly: { summary: 'A key that may only run queries', value: { label: 'ci', scopes: ['query:read'] } },
  },
  'POST /api/projects/:project_id/insights/': {
    trend: {
      summary: 'A saved trend: daily signups over the last 7 days',
      value: {
        name: 'Daily signups',
        query: {
          kind: 'TrendsQuery',
          series: [{ kind: 'EventsNode', event: 'signed up' }],
          dateRange: { date_from: '-7d' },
        },
      },
    },
    sql: {
      summary: 'A saved HogQL table',
      value: {
        name: 'Top events',
        query: { kind: 'HogQLQuery', query: 'SELECT event, count() FROM events GROUP BY event' },
      },
    },
  },
  'POST /api/projects/:project_id/dashboards/': {
    filtered: {
      summary: 'A pinned dashboard whose tiles show the last 30 days of pro users',
      value: {
        name: 'Growth',
        pinned: true,
        filters: { date_from: '-30d', properties: [{ key: 'plan', value: 'pro', type: 'event' }] },
      },
    },
  },
  'POST /api/projects/:project_id/annotations/': {
    launch: {
      summary: 'A launch marked on every chart of the organization',
      value: { content: 'Launch', date_marker: '2024-03-05T10:00:00Z', scope: 'organization' },
    },
  },
  'POST /api/projects/:project_id/feature_flags/': {
    rollout: {
      summary: 'A flag on for half of the users on the pro plan',
      value: {
        key: 'new-checkout',
        name: 'New checkout',
        filters: {
          groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 50 }],
        },
      },
    },
  },
  'POST /api/projects/:project_id/cohorts/': {
    dynamic: {
      summary: 'Persons on the pro plan (recalculated in the background)',
      value: {
        name: 'Pro users',
        filters: {
          properties: {
            type: 'OR',
            values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] }],
          },
        },
      },
    },
  },
  'POST /api/projects/:project_id/session_recording_playlists/': {
    filters: {
      summary: 'Recordings longer than five minutes',
      value: {
        name: 'Long sessions',
        type: 'filters',
        filters: { duration: [{ type: 'recording', key: 'duration', value: 300, operator: 'gt' }] },
      },
    },
  },
};
