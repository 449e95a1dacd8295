/** The experiment API's shapes as the console reads them (docs/experiments.md). */

export interface Variant {
  key: string;
  name?: string;
  rollout_percentage: number;
}

export interface EventsNode {
  kind: 'EventsNode';
  event: string | null;
  math?: string;
  name?: string;
}

export interface Metric {
  kind: 'ExperimentMetric';
  metric_type: 'mean' | 'funnel' | 'ratio';
  name?: string;
  uuid?: string;
  goal?: 'increase' | 'decrease';
  source?: EventsNode;
  series?: EventsNode[];
  numerator?: EventsNode;
  denominator?: EventsNode;
}

export interface Experiment {
  id: number;
  name: string;
  description: string;
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  status: 'draft' | 'running' | 'stopped';
  feature_flag_key: string;
  feature_flag: { id: number; key: string; active: boolean };
  parameters: { feature_flag_variants?: Variant[] };
  metrics: Metric[];
  metrics_secondary: Metric[];
  stats_config: { method?: 'bayesian' | 'frequentist'; alpha?: number; ci_level?: number } | null;
  holdout_id: number | null;
}

export interface VariantStats {
  key: string;
  number_of_samples: number;
  sum: number;
  sum_squares: number;
  denominator_sum?: number;
  validation_failures?: string[];
  step_counts?: number[];
}

export interface VariantResult extends VariantStats {
  method: 'bayesian' | 'frequentist';
  significant: boolean;
  p_value?: number | null;
  confidence_interval?: [number, number] | null;
  chance_to_win?: number | null;
  credible_interval?: [number, number] | null;
}

export interface ExperimentResult {
  baseline: VariantStats;
  variant_results: VariantResult[];
}

export interface ExposureResult {
  timeseries: { variant: string; days: string[]; exposure_counts: number[] }[];
  total_exposures: Record<string, number>;
}

/** PostHog's words for the states: a stopped experiment is complete. */
export const STATUS_LABEL: Record<Experiment['status'], string> = {
  draft: 'Draft',
  running: 'Running',
  stopped: 'Complete',
};

export const statusOf = (e: Experiment) => (e.archived ? 'Archived' : STATUS_LABEL[e.status]);

/** The events a metric counts, for its title and for the planner's baseline. */
export function metricEvents(m: Metric): string[] {
  if (m.metric_type === 'funnel') return (m.series ?? []).map((s) => s.event ?? 'All events');
  if (m.metric_type === 'ratio')
    return [m.numerator?.event ?? 'All events', m.denominator?.event ?? 'All events'];
  return [m.source?.event ?? 'All events'];
}

export function metricTitle(m: Metric): string {
  if (m.name) return m.name;
  const events = metricEvents(m);
  if (m.metric_type === 'funnel') return `Conversion: ${events.join(' → ')}`;
  if (m.metric_type === 'ratio') return `${events[0]} per ${events[1]}`;
  return `Mean ${events[0]} per user`;
}
