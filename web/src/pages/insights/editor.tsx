import { DraftInput } from '../../components/draft-input';
import { CohortPicker } from './cohort-picker';
import {
  BREAKDOWN_TYPES,
  type BreakdownType,
  INTERVALS,
  type InsightForm,
  KINDS,
  MATHS,
  type MathKey,
  PROPERTY_MATHS,
  RANGES,
  type Series,
} from './form';
import { PropertyFilters, useSuggestions } from './property-filters';
import './insights.css';

/** 1st, 2nd, 3rd, 4th…: names a series for screen readers without repeating its field's label. */
const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

/** Keeps a funnel at two steps or more when switching to it. */
export function normalise(form: InsightForm): InsightForm {
  if (form.kind === 'Funnels' && form.series.length < 2)
    return {
      ...form,
      series: [...form.series, { event: form.series[0]?.event ?? '$pageview', math: 'total' }],
    };
  return form;
}

/** The insight's query as a form: kind tabs, series with math and filters, range and breakdown. */
export function InsightEditor({
  teamId,
  form,
  onChange,
  eventNames,
  testFilters,
}: {
  teamId: number;
  form: InsightForm;
  onChange: (next: InsightForm) => void;
  eventNames: string[];
  /** How many test-account filters the project has. */
  testFilters: number;
}) {
  const update = (patch: Partial<InsightForm>) => onChange(normalise({ ...form, ...patch }));
  const setSeries = (i: number, patch: Partial<Series>) =>
    update({ series: form.series.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
  const seriesLabel =
    form.kind === 'Funnels'
      ? 'Step'
      : form.kind === 'Retention'
        ? ['Started with', 'Came back for']
        : 'Series';
  const showSeries = form.kind !== 'Paths';
  const maxSeries = form.kind === 'Lifecycle' ? 1 : form.kind === 'Retention' ? 2 : 10;
  const seriesFilters = form.kind !== 'Retention' && form.kind !== 'Paths';
  const breakdownType = form.breakdownType ?? 'event';
  const events = [...new Set(form.series.map((s) => s.event).filter(Boolean))];
  const propertyMath = form.kind === 'Trends' && form.series.some((s) => PROPERTY_MATHS.has(s.math));
  // Numeric properties for the "of property" maths, asked for only once such a math is chosen.
  const numeric = useSuggestions(
    propertyMath
      ? `/api/projects/${teamId}/property_definitions/?type=event&is_numerical=true&limit=100`
      : null,
    (d) => ((d as { results?: { name: string }[] }).results ?? []).map((r) => r.name),
  );
  return (
    <>
      <div class="tabs" role="tablist" aria-label="Insight type">
        {KINDS.map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={form.kind === k}
            onClick={() => update({ kind: k })}
          >
            {k}
          </button>
        ))}
      </div>
      <section class="card">
        <datalist id="numeric-properties">
          {numeric.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        <datalist id="event-names">
          {eventNames.map((e) => (
            <option key={e} value={e} />
          ))}
        </datalist>
        {showSeries && (
          <fieldset class="series">
            <legend class="sr-only">Series</legend>
            {form.series.slice(0, maxSeries).map((s, i) => {
              const name = Array.isArray(seriesLabel) ? seriesLabel[i] : `${seriesLabel} ${i + 1}`;
              return (
                <div class="series-row" key={i}>
                  <div class="row wrap">
                    <label>
                      {name}
                      <DraftInput
                        list="event-names"
                        value={s.event}
                        placeholder="All events"
                        onCommit={(event) => setSeries(i, { event })}
                      />
                    </label>
                    {form.kind === 'Trends' && (
                      <label>
                        Measure
                        <select
                          value={s.math}
                          onChange={(e) =>
                            setSeries(i, { math: (e.currentTarget as HTMLSelectElement).value as MathKey })
                          }
                        >
                          {Object.entries(MATHS).map(([v, l]) => (
                            <option key={v} value={v}>
                              {l}
                            </option>
                          ))}
                        </select>
                      </label>
                    )}
                    {form.kind === 'Trends' && PROPERTY_MATHS.has(s.math) && (
                      <label>
                        Of property
                        <DraftInput
                          list="numeric-properties"
                          value={s.mathProperty ?? ''}
                          placeholder="e.g. amount"
                          onCommit={(mathProperty) => setSeries(i, { mathProperty: mathProperty.trim() })}
                        />
                      </label>
                    )}
                    {Math.min(form.series.length, maxSeries) > (form.kind === 'Funnels' ? 2 : 1) && (
                      <button
                        type="button"
                        class="link"
                        aria-label={`Remove ${i + 1}`}
                        onClick={() => update({ series: form.series.filter((_, j) => j !== i) })}
                      >
                        Remove
                      </button>
                    )}
                  </div>
                  {seriesFilters && (
                    <PropertyFilters
                      teamId={teamId}
                      filters={s.properties ?? []}
                      onChange={(properties) => setSeries(i, { properties })}
                      label={`the ${ordinal(i + 1)} ${form.kind === 'Funnels' ? 'step' : 'series'}`}
                      events={s.event ? [s.event] : []}
                    />
                  )}
                </div>
              );
            })}
            {form.series.length < maxSeries && (
              <button
                type="button"
                class="link"
                onClick={() => update({ series: [...form.series, { event: '$pageview', math: 'total' }] })}
              >
                + Add {form.kind === 'Funnels' ? 'step' : 'series'}
              </button>
            )}
          </fieldset>
        )}
        <div class="filters-line">
          <span class="muted small">Filters for every series</span>
          <PropertyFilters
            teamId={teamId}
            filters={form.properties ?? []}
            onChange={(properties) => update({ properties })}
            label="the insight"
            events={events}
          />
        </div>
        <div class="row wrap">
          <label>
            Date range
            <select
              value={form.dateFrom}
              onChange={(e) =>
                update({ dateFrom: (e.currentTarget as HTMLSelectElement).value as InsightForm['dateFrom'] })
              }
            >
              {Object.entries(RANGES).map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          </label>
          {form.kind !== 'Funnels' && form.kind !== 'Paths' && (
            <label>
              {form.kind === 'Retention' ? 'Period' : 'Interval'}
              <select
                value={form.interval}
                onChange={(e) =>
                  update({
                    interval: (e.currentTarget as HTMLSelectElement).value as InsightForm['interval'],
                  })
                }
              >
                {INTERVALS.map((i) => (
                  <option key={i} value={i}>
                    {i}
                  </option>
                ))}
              </select>
            </label>
          )}
          {(form.kind === 'Trends' || form.kind === 'Funnels') && (
            <>
              <label>
                Breakdown type
                <select
                  value={breakdownType}
                  onChange={(e) =>
                    update({ breakdownType: (e.currentTarget as HTMLSelectElement).value as BreakdownType })
                  }
                >
                  {Object.entries(BREAKDOWN_TYPES)
                    // Funnels break down by properties and cohorts (a HogQL expression is a 400).
                    .filter(([v]) => form.kind !== 'Funnels' || v !== 'hogql' || breakdownType === v)
                    .map(([v, l]) => (
                      <option key={v} value={v}>
                        {l[0]?.toUpperCase() + l.slice(1)}
                      </option>
                    ))}
                </select>
              </label>
              {breakdownType === 'cohort' ? (
                <CohortPicker
                  teamId={teamId}
                  value={form.breakdown}
                  onChange={(breakdown) => update({ breakdown })}
                />
              ) : (
                <label>
                  Breakdown by {BREAKDOWN_TYPES[breakdownType]}
                  <DraftInput
                    value={form.breakdown}
                    placeholder={breakdownType === 'hogql' ? 'e.g. properties.$browser' : 'e.g. $browser'}
                    onCommit={(breakdown) => update({ breakdown: breakdown.trim() })}
                  />
                </label>
              )}
            </>
          )}
        </div>
        <div class="row wrap">
          <label class="check">
            <input
              type="checkbox"
              checked={form.filterTestAccounts === true}
              disabled={testFilters === 0 && form.filterTestAccounts !== true}
              aria-describedby="test-accounts-hint"
              onChange={(e) => update({ filterTestAccounts: (e.currentTarget as HTMLInputElement).checked })}
            />{' '}
            Filter out test accounts
          </label>
          <span id="test-accounts-hint" class="muted small">
            {testFilters > 0 ? (
              <>
                {testFilters} {testFilters === 1 ? 'filter' : 'filters'} from{' '}
                <a href="/settings/project#test-accounts">the project's settings</a>
              </>
            ) : (
              <>
                No test account filters yet: <a href="/settings/project#test-accounts">set them</a>
              </>
            )}
          </span>
        </div>
      </section>
    </>
  );
}
