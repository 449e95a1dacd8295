import type { VariantResult } from './types';
import { groupName, intervalOf, signedPercent } from './verdict';

/**
 * Each variant's interval for the change against control, drawn on one shared axis with a zero
 * line: an interval clear of zero is a difference. Plain boxes and CSS, so it fits any width and
 * follows the colour scheme; the text beside each bar says the same for screen readers.
 */
export function IntervalBars({
  results,
  deltas,
  lowerIsBetter,
  level,
}: {
  results: VariantResult[];
  deltas: Map<string, number | null>;
  lowerIsBetter: boolean;
  level: number;
}) {
  const drawn = results.map((r) => ({ r, interval: intervalOf(r), delta: deltas.get(r.key) ?? null }));
  const ends = drawn.flatMap((d) => (d.interval ? d.interval : []));
  let lo = Math.min(0, ...ends);
  let hi = Math.max(0, ...ends);
  if (hi - lo < 1e-9) {
    lo = -0.1;
    hi = 0.1;
  }
  const pad = (hi - lo) * 0.08;
  lo -= pad;
  hi += pad;
  const at = (x: number) => `${((x - lo) / (hi - lo)) * 100}%`;
  const zeroAt = (0 - lo) / (hi - lo);
  const label = `${Math.round(level * 100)}% interval`;
  return (
    <div class="intervals">
      {drawn.map(({ r, interval, delta }) => {
        const tone =
          !r.significant || !interval ? 'neutral' : interval[0] > 0 !== lowerIsBetter ? 'good' : 'bad';
        const text = interval
          ? `${groupName(r.key)}: ${delta === null ? '' : `${signedPercent(delta)}, `}${label} ${signedPercent(interval[0])} to ${signedPercent(interval[1])}`
          : `${groupName(r.key)}: no interval yet`;
        return (
          <div class="interval-row" key={r.key}>
            <span class="interval-key">{groupName(r.key)}</span>
            <div class="interval-track" role="img" aria-label={text} title={text}>
              <span class="interval-zero" style={{ left: at(0) }} />
              {interval && (
                <span
                  class={`interval-bar ${tone}`}
                  style={{ left: at(interval[0]), width: `calc(${at(interval[1])} - ${at(interval[0])})` }}
                />
              )}
              {delta !== null && interval && <span class="interval-dot" style={{ left: at(delta) }} />}
            </div>
            <span class="interval-text small">
              {interval ? `${signedPercent(interval[0])} … ${signedPercent(interval[1])}` : '–'}
            </span>
          </div>
        );
      })}
      <div class="interval-row interval-axis small muted" aria-hidden="true">
        <span class="interval-key" />
        <div class="interval-scale">
          {/* An end's label gives way to the zero's when they would overlap. */}
          <span>{zeroAt > 0.15 ? signedPercent(lo, 0) : ''}</span>
          <span style={{ left: at(0) }} class="interval-zero-label">
            0
          </span>
          <span>{zeroAt < 0.85 ? signedPercent(hi, 0) : ''}</span>
        </div>
        <span class="interval-text" />
      </div>
    </div>
  );
}
