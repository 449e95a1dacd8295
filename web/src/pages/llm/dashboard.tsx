import { useMemo, useState } from 'preact/hooks';
import { api } from '../../api';
import { Chart } from '../../components/chart';
import { ErrorNote } from '../../components/error-note';
import { SimpleTable } from '../../components/list-table';
import { useSession } from '../../session';
import { readableLabel } from '../insights/results';
import { useLlmQuery } from './use-llm-query';

/**
 * The aggregates of PostHog's LLM analytics dashboard, as it builds them: TrendsQuery insights on
 * `$ai_generation` through the public `/query/` API, broken down by `$ai_model`.
 */

interface TrendResult {
  label: string;
  data: number[];
  days: (string | number)[];
  count: number;
  breakdown_value?: unknown;
  action?: { custom_name?: string | null; name?: string | null } | null;
}

type Series = Record<string, unknown>;
const generation = (extra: Series): Series => ({ kind: 'EventsNode', event: '$ai_generation', ...extra });

/** Small amounts keep two significant digits: a cent's hundredth is not "$0.00". */
const dollars = (n: number) => `$${n < 0.01 && n > 0 ? n.toPrecision(2) : n.toFixed(2)}`;
const seconds = (n: number) => `${n < 0.1 && n > 0 ? n.toPrecision(2) : n.toFixed(2)} s`;

/** The charts: title, series, how a total reads, and the value axis's labels where uPlot's are wrong. */
const CHARTS: {
  title: string;
  series: Series[];
  format: (n: number) => string;
  axis?: (n: number) => string;
}[] = [
  {
    title: 'Cost by model (USD)',
    series: [generation({ custom_name: 'Cost', math: 'sum', math_property: '$ai_total_cost_usd' })],
    format: dollars,
    axis: dollars,
  },
  {
    title: 'Tokens by model',
    series: [
      generation({ custom_name: 'Input', math: 'sum', math_property: '$ai_input_tokens' }),
      generation({ custom_name: 'Output', math: 'sum', math_property: '$ai_output_tokens' }),
    ],
    format: (n) => Math.round(n).toLocaleString(),
  },
  {
    title: 'Latency by model (seconds)',
    series: [
      generation({ custom_name: 'p50', math: 'median', math_property: '$ai_latency' }),
      generation({ custom_name: 'p95', math: 'p95', math_property: '$ai_latency' }),
    ],
    format: seconds,
    axis: seconds,
  },
  {
    title: 'Generations and errors by model',
    series: [
      generation({ custom_name: 'Generations', math: 'total' }),
      generation({
        custom_name: 'Errors',
        math: 'total',
        properties: [{ key: '$ai_is_error', value: ['true'], operator: 'exact', type: 'event' }],
      }),
    ],
    format: (n) => Math.round(n).toLocaleString(),
  },
];

const seriesLabel = (r: TrendResult) => {
  const name = r.action?.custom_name ?? r.action?.name ?? '';
  const model = readableLabel(String(r.breakdown_value ?? r.label));
  return name ? `${name} · ${model}` : model;
};

function LlmChart({ title, series, format, axis, after }: (typeof CHARTS)[number] & { after: string }) {
  const { data, error } = useLlmQuery<{ results: TrendResult[] }>({
    kind: 'TrendsQuery',
    dateRange: { date_from: after },
    interval: after === '-24h' ? 'hour' : 'day',
    series,
    breakdownFilter: { breakdown_type: 'event', breakdown: '$ai_model', breakdown_limit: 10 },
  });
  const chart = useMemo(() => {
    const results = data?.results ?? [];
    const days = results[0]?.days ?? [];
    return {
      x: days.map(
        (d) => Date.parse(String(d).replace(' ', 'T') + (String(d).length > 10 ? 'Z' : 'T00:00:00Z')) / 1000,
      ),
      series: results.map((r) => ({ label: seriesLabel(r), values: r.data })),
      results,
    };
  }, [data]);
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {error ? <ErrorNote error={error} /> : null}
      {!data && !error && <div class="skeleton" style={{ height: '220px' }} />}
      {data && chart.results.length === 0 && <p class="muted">No generations in this period.</p>}
      {data && chart.results.length > 0 && (
        <>
          <Chart x={chart.x} series={chart.series} title={title} height={220} wallClock yFormat={axis} />
          <SimpleTable
            items={chart.results}
            columns={['Series', title.startsWith('Latency') ? 'Over the period' : 'Total']}
            rowKey={seriesLabel}
            cells={(r) => (
              <>
                <td class="ellipsis" style={{ maxWidth: '14rem' }}>
                  {seriesLabel(r)}
                </td>
                <td>{format(r.count)}</td>
              </>
            )}
          />
        </>
      )}
    </section>
  );
}

/** Cost, tokens, latency, generations and errors by model over the chosen period. */
export function LlmDashboard({ after }: { after: string }) {
  return (
    <div class="grid two">
      {CHARTS.map((c) => (
        <LlmChart key={c.title} {...c} after={after} />
      ))}
    </div>
  );
}

/** The models whose generations and embeddings got no cost: HogQL over the project's events. */
export const UNCOSTED_SQL = `SELECT properties.$ai_model AS model, properties.$ai_provider AS provider, count() AS events, max(timestamp) AS last_seen
FROM events
WHERE event IN ('$ai_generation', '$ai_embedding') AND isNull(properties.$ai_total_cost_usd) AND timestamp > now() - INTERVAL 30 DAY
GROUP BY model, provider
ORDER BY events DESC
LIMIT 100`;

type Row = [string | null, string | null, number, string];

/** A project's own price for a model, USD per token (the `llm_custom_model_prices` setting). */
interface ModelPrice {
  model: string;
  prompt_token: number;
  completion_token: number;
}

/** Uncosted models, with a form to give one a price of the project's own. */
export function UncostedModels() {
  const { team } = useSession();
  const [version, setVersion] = useState(0);
  const { data, error } = useLlmQuery<{ results: Row[] }>(
    { kind: 'HogQLQuery', query: UNCOSTED_SQL },
    version,
  );
  const [model, setModel] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);

  async function save(e: Event) {
    e.preventDefault();
    setSaved(null);
    setSaveError(null);
    try {
      const project = await api<{ llm_custom_model_prices: ModelPrice[] | null }>(
        'GET',
        `/api/projects/${team.id}/`,
      );
      const name = model.trim();
      const others = (project.llm_custom_model_prices ?? []).filter((p) => p.model !== name);
      // Prices are typed per million tokens, as providers publish them; stored per token.
      const price = {
        model: name,
        prompt_token: Number(input) / 1e6,
        completion_token: Number(output) / 1e6,
      };
      await api('PATCH', `/api/projects/${team.id}/`, { llm_custom_model_prices: [...others, price] });
      setSaved(name);
      setVersion(version + 1);
    } catch (err) {
      setSaveError(err);
    }
  }

  return (
    <section class="card" aria-label="Uncosted models">
      <h2>Models without a price</h2>
      <p class="muted small">
        Generations and embeddings of the last 30 days stored without a cost: their model is not in the price
        table. Give it a price of your own below; events captured from then on are priced with it.
      </p>
      {error ? <ErrorNote error={error} /> : null}
      {data && data.results.length === 0 && <p class="muted">Every model of the last 30 days has a price.</p>}
      {data && data.results.length > 0 && (
        <div style={{ overflowX: 'auto' }}>
          <SimpleTable
            items={data.results}
            columns={['Model', 'Provider', 'Events', 'Last seen', '']}
            rowKey={(r) => `${r[0]}\u0000${r[1]}`}
            cells={(r) => (
              <>
                <td class="ellipsis" style={{ maxWidth: '14rem' }}>
                  {r[0] ?? <span class="muted">none</span>}
                </td>
                <td>{r[1] ?? '–'}</td>
                <td>{Number(r[2]).toLocaleString()}</td>
                <td>
                  <time dateTime={r[3]}>{new Date(r[3]).toLocaleString()}</time>
                </td>
                <td>
                  {r[0] ? (
                    <button type="button" class="link" onClick={() => setModel(r[0] ?? '')}>
                      Set a price
                    </button>
                  ) : null}
                </td>
              </>
            )}
          />
        </div>
      )}
      <form class="row wrap" onSubmit={save} aria-label="Custom model price">
        <label>
          Model{' '}
          <input required maxLength={200} value={model} onInput={(e) => setModel(e.currentTarget.value)} />
        </label>
        <label>
          Input, USD per million tokens{' '}
          <input
            required
            type="number"
            min="0"
            step="any"
            value={input}
            onInput={(e) => setInput(e.currentTarget.value)}
          />
        </label>
        <label>
          Output, USD per million tokens{' '}
          <input
            required
            type="number"
            min="0"
            step="any"
            value={output}
            onInput={(e) => setOutput(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Save price</button>
      </form>
      {saved && (
        <p role="status" class="small">
          Saved: new events of {saved} are priced with it.
        </p>
      )}
      {saveError ? <ErrorNote error={saveError} /> : null}
    </section>
  );
}
