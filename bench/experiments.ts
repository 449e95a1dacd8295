/**
 * An experiment's result against insights through `POST /query` in the same run, on the generated
 * events of bench/query.ts plus one `$feature_flag_called` exposure per user (control / test by
 * user parity) before the data starts. The goal (issue 34: ratio ≤ 1.5) is read against the
 * insights that answer the same question, split by variant: the exposure funnel by variant, the
 * legacy trend experiment's pair of trends, the metric's users by `$feature/<flag>`. The cheaper
 * insights that cannot split by variant (plain funnel, total count, unique users as one number)
 * are printed for scale: the experiment must also resolve every exposed person's first exposure.
 * Run: npx tsx bench/experiments.ts [--events 10000000] [--dir d] [--runs 5] [--json]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { insertEvents } from '../test/helpers/events-insert.js';
import { openDataset } from './dataset.js';
import { personId, USERS } from './event-generator.js';
import { interleaved, postQuery, reporter } from './lib.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '5' },
    dir: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const { team, key, events, url, close } = await openDataset({
  rows: EVENTS,
  dir: values.dir,
  now: () => new Date('2025-06-30T00:00:00Z'),
});

const FLAG = 'bench-experiment';
const START = '2025-05-25T00:00:00Z';
const END = '2025-06-30T00:00:00Z';
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}/api/environments/${team}/${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
};

// The experiment and its exposures, once per data dir.
const listed = (await api('GET', 'experiments/')) as { results: { id: number; name: string }[] };
let expId = listed.results.find((e) => e.name === 'bench')?.id;
if (!expId) {
  expId = (await api('POST', 'experiments/', { name: 'bench', feature_flag_key: FLAG })).id as number;
  await api('PATCH', `experiments/${expId}/`, { start_date: START, end_date: END });
  const rows = Array.from({ length: USERS }, (_, u) => ({
    uuid: randomUUID(),
    event: '$feature_flag_called',
    properties: JSON.stringify({
      $feature_flag: FLAG,
      $feature_flag_response: u % 2 ? 'test' : 'control',
    }),
    timestamp: `2025-05-25 ${String(Math.floor(u / 3600) % 24).padStart(2, '0')}:${String(Math.floor(u / 60) % 60).padStart(2, '0')}:${String(u % 60).padStart(2, '0')}.000000`,
    team_id: team,
    distinct_id: `user-${u}`,
    person_id: personId(u),
  }));
  await insertEvents(events, rows);
}

const RANGE = { date_from: '2025-05-25', date_to: '2025-06-29', explicitDate: true };
const FUNNEL_STEPS = ['$pageview', 'purchase'].map((event) => ({ kind: 'EventsNode', event }));
// The two experiment results timed, each against several insights below.
const MEAN_EXPERIMENT = {
  kind: 'ExperimentQuery',
  experiment_id: expId,
  metric: {
    kind: 'ExperimentMetric',
    metric_type: 'mean',
    source: { kind: 'EventsNode', event: 'purchase' },
  },
};
const FUNNEL_EXPERIMENT = {
  kind: 'ExperimentQuery',
  experiment_id: expId,
  metric: { kind: 'ExperimentMetric', metric_type: 'funnel', series: FUNNEL_STEPS },
};
// An insight side given as a list is that many queries, one after the other.
const SUITE: Array<[string, Record<string, unknown>, Record<string, unknown> | Record<string, unknown>[]]> = [
  [
    'mean metric (purchases per user) vs trend of purchases',
    MEAN_EXPERIMENT,
    { kind: 'TrendsQuery', dateRange: RANGE, series: [{ kind: 'EventsNode', event: 'purchase' }] },
  ],
  [
    // Closer: the trend has to resolve every purchase's person too (unique users over the range).
    'mean metric vs unique purchasers (trend, dau, one number)',
    MEAN_EXPERIMENT,
    {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      series: [{ kind: 'EventsNode', event: 'purchase', math: 'dau' }],
      trendsFilter: { display: 'BoldNumber' },
    },
  ],
  [
    // The metric's users broken down by the flag's variant, as one trend: every purchase's person
    // resolved and its variant read from the purchase's JSON (Burrow has no per-actor average math).
    'mean metric vs unique purchasers by $feature/<flag> (trend, dau)',
    MEAN_EXPERIMENT,
    {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      series: [{ kind: 'EventsNode', event: 'purchase', math: 'dau' }],
      breakdownFilter: { breakdown: `$feature/${FLAG}`, breakdown_type: 'event' },
      trendsFilter: { display: 'BoldNumber' },
    },
  ],
  [
    // The same question as insights, as PostHog's legacy trend experiments asked it: the metric's
    // count broken down by the `$feature/<flag>` event property, and the exposed users per variant.
    'mean metric vs the legacy experiment trends (count by variant + exposed users)',
    MEAN_EXPERIMENT,
    [
      {
        kind: 'TrendsQuery',
        dateRange: RANGE,
        series: [{ kind: 'EventsNode', event: 'purchase' }],
        breakdownFilter: { breakdown: `$feature/${FLAG}`, breakdown_type: 'event' },
      },
      {
        kind: 'TrendsQuery',
        dateRange: RANGE,
        series: [
          {
            kind: 'EventsNode',
            event: '$feature_flag_called',
            math: 'dau',
            properties: [{ type: 'event', key: '$feature_flag', operator: 'exact', value: FLAG }],
          },
        ],
        breakdownFilter: { breakdown: '$feature_flag_response', breakdown_type: 'event' },
        trendsFilter: { display: 'BoldNumber' },
      },
    ],
  ],
  [
    'funnel metric ($pageview → purchase) vs funnel insight',
    FUNNEL_EXPERIMENT,
    {
      kind: 'FunnelsQuery',
      dateRange: RANGE,
      series: FUNNEL_STEPS,
      funnelsFilter: { funnelWindowInterval: 40, funnelWindowIntervalUnit: 'day' },
    },
  ],
  [
    // Closer: the funnel legacy experiments ran, exposure first and broken down by variant.
    'funnel metric vs exposure → $pageview → purchase by variant',
    FUNNEL_EXPERIMENT,
    {
      kind: 'FunnelsQuery',
      dateRange: RANGE,
      series: [
        {
          kind: 'EventsNode',
          event: '$feature_flag_called',
          properties: [{ type: 'event', key: '$feature_flag', operator: 'exact', value: FLAG }],
        },
        ...FUNNEL_STEPS,
      ],
      breakdownFilter: { breakdown: '$feature_flag_response', breakdown_type: 'event' },
      funnelsFilter: { funnelWindowInterval: 40, funnelWindowIntervalUnit: 'day' },
    },
  ],
];

const report = reporter('experiments');
console.log(`${EVENTS} events + ${USERS} exposures; ${RUNS} runs each; medians in ms`);
for (const [name, experiment, insight] of SUITE) {
  const { a, b, ratio } = await interleaved(
    RUNS,
    () => postQuery(url, team, key, experiment),
    async () => {
      for (const q of Array.isArray(insight) ? insight : [insight]) await postQuery(url, team, key, q);
    },
  );
  report({
    case: `${name}, ${EVENTS} events`,
    metric: 'POST /query median',
    value: a,
    unit: 'ms',
    ratio,
    against: 'the same trend / funnel as an insight through POST /query',
    goal: { op: '<=', value: 1.5, issue: 34, on: 'ratio' },
  });
  console.log(
    `${name.padEnd(60)} experiment ${a.toFixed(1).padStart(8)}  insight ${b.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}`,
  );
}
console.log('target: ratio ≤ 1.5');
await close();
