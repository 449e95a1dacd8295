/** Small SVG charts for shapes uPlot does not draw: grouped and stacked bars, flows. Scales with the box. */
import { useEffect, useRef, useState } from 'preact/hooks';

export const COLORS = [
  '#d9822b',
  '#3b82c4',
  '#4caf7d',
  '#b05cc8',
  '#d94a4a',
  '#8c9a2b',
  '#2bb3b3',
  '#7a6a5a',
];

export interface BarSeries {
  label: string;
  values: (number | null)[];
  /** Shown after the label in the legend, e.g. a group's total or conversion. */
  total?: string;
}

/** Arrow keys, Home and End move between buckets; Escape leaves none active. */
function nextBucket(key: string, now: number | null, count: number): number | null | undefined {
  if (count === 0) return undefined;
  if (key === 'ArrowRight') return now === null ? 0 : Math.min(count - 1, now + 1);
  if (key === 'ArrowLeft') return now === null ? count - 1 : Math.max(0, now - 1);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (key === 'Escape') return null;
  return undefined;
}

/**
 * Bars side by side in each bucket, one per series, so several series never cover each other
 * (stickiness, a funnel's breakdown groups). Hovering a bucket, or the arrow keys once the chart has
 * focus, shows every series' value there.
 */
export function GroupedBars({
  labels,
  series,
  title,
  height = 280,
  format = (v: number) => v.toLocaleString(),
  onDrawn,
}: {
  labels: string[];
  series: BarSeries[];
  title: string;
  height?: number;
  format?: (v: number, series: number, bucket: number) => string;
  onDrawn?: (ms: number) => void;
}) {
  const [active, setActive] = useState<number | null>(null);
  // Drawn at the box's own width, so labels keep their size on a phone instead of shrinking with it.
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(280, Math.round(element.clientWidth))));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const started = performance.now();
  useEffect(() => {
    onDrawn?.(performance.now() - started);
  }, [labels, series]);
  const pad = { left: 52, right: 8, top: 10, bottom: 28 };
  const max = Math.max(1, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
  const plotH = height - pad.top - pad.bottom;
  const y = (v: number) => pad.top + (1 - v / max) * plotH;
  const band = (width - pad.left - pad.right) / Math.max(1, labels.length);
  const inner = band * 0.8;
  const barW = inner / Math.max(1, series.length);
  const every = Math.ceil(labels.length / Math.max(2, Math.floor(width / 70)));
  const ticks = [max, max / 2, 0];
  const tipLeft = active === null ? 0 : ((pad.left + (active + 0.5) * band) / width) * 100;
  return (
    <figure class="svg-chart bars-chart">
      <div class="svg-chart-plot" ref={box}>
        <svg
          viewBox={`0 0 ${width} ${height}`}
          role="application"
          aria-roledescription="chart"
          aria-label={`${title}. Arrow keys read the values.`}
          tabIndex={0}
          onKeyDown={(e) => {
            const next = nextBucket(e.key, active, labels.length);
            if (next === undefined) return;
            e.preventDefault();
            setActive(next);
          }}
          onBlur={() => setActive(null)}
          onMouseLeave={() => setActive(null)}
          // The whole bucket answers the pointer, not only its bars (a bar may be 0 high).
          onMouseMove={(e) => {
            const box = (e.currentTarget as SVGSVGElement).getBoundingClientRect();
            const at = ((e.clientX - box.left) / box.width) * width;
            const i = Math.floor((at - pad.left) / band);
            setActive(i >= 0 && i < labels.length ? i : null);
          }}
        >
          {ticks.map((v) => (
            <g key={v}>
              <line
                x1={pad.left}
                x2={width - pad.right}
                y1={y(v)}
                y2={y(v)}
                class={v ? 'gridline' : 'axis'}
              />
              <text x={pad.left - 6} y={y(v) + 4} text-anchor="end" class="tick">
                {Number.isInteger(v)
                  ? v.toLocaleString()
                  : v.toLocaleString(undefined, { maximumFractionDigits: 1 })}
              </text>
            </g>
          ))}
          {labels.map((label, i) => {
            const x0 = pad.left + i * band + (band - inner) / 2;
            return (
              <g key={`${i}-${label}`} class={active === i ? 'bucket active' : 'bucket'}>
                <rect x={pad.left + i * band} y={pad.top} width={band} height={plotH} class="hit" />
                {series.map((s, j) => {
                  const v = s.values[i] ?? 0;
                  return (
                    <rect
                      key={j}
                      class="bar"
                      data-series={j}
                      data-bucket={i}
                      x={x0 + j * barW + (series.length > 1 ? 1 : 0)}
                      width={Math.max(1, barW - (series.length > 1 ? 2 : 0))}
                      y={y(v)}
                      height={Math.max(0, y(0) - y(v))}
                      fill={COLORS[j % COLORS.length]}
                      pointer-events="none"
                    />
                  );
                })}
                {i % every === 0 && (
                  <text x={pad.left + (i + 0.5) * band} y={height - 8} text-anchor="middle" class="tick">
                    {label.length > (band * every) / 7.5
                      ? `${label.slice(0, Math.max(3, Math.floor((band * every) / 7.5) - 1))}…`
                      : label}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
        <div
          class="chart-tip"
          role="status"
          hidden={active === null}
          style={{
            left: `${tipLeft}%`,
            transform: tipLeft > 60 ? 'translateX(calc(-100% - 12px))' : 'translateX(12px)',
          }}
        >
          {active !== null && (
            <>
              <strong>{labels[active]}</strong>
              {series.map((s, j) => {
                const v = s.values[active];
                return (
                  <div key={j}>
                    <i style={{ background: COLORS[j % COLORS.length] }} />
                    {s.label}: {v === null || v === undefined ? '–' : format(v, j, active)}
                  </div>
                );
              })}
            </>
          )}
        </div>
      </div>
      {series.length > 1 || series[0]?.total ? (
        <figcaption class="legend">
          {series.map((s, j) => (
            <span key={j}>
              <i style={{ background: COLORS[j % COLORS.length] }} /> {s.label}
              {s.total ? <span class="muted"> · {s.total}</span> : null}
            </span>
          ))}
        </figcaption>
      ) : null}
    </figure>
  );
}

export interface StackSeries {
  label: string;
  values: number[];
  color?: string;
}

/** Bars stacked per bucket, positive above the axis and negative below (lifecycle's dormant). */
export function StackedBars({
  labels,
  series,
  title,
}: {
  labels: string[];
  series: StackSeries[];
  title: string;
}) {
  const width = 800;
  const height = 280;
  const pad = { left: 48, right: 8, top: 8, bottom: 28 };
  const up = labels.map((_, i) => series.reduce((s, x) => s + Math.max(0, x.values[i] ?? 0), 0));
  const down = labels.map((_, i) => series.reduce((s, x) => s + Math.min(0, x.values[i] ?? 0), 0));
  const max = Math.max(1, ...up);
  const min = Math.min(0, ...down);
  const plotH = height - pad.top - pad.bottom;
  const y = (v: number) => pad.top + ((max - v) / (max - min)) * plotH;
  const band = (width - pad.left - pad.right) / Math.max(1, labels.length);
  const every = Math.ceil(labels.length / 10);
  return (
    <figure class="svg-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} class="axis" />
        {[max, 0, min]
          .filter((v, i, a) => a.indexOf(v) === i)
          .map((v) => (
            <text key={v} x={pad.left - 6} y={y(v) + 4} text-anchor="end" class="tick">
              {Math.round(v).toLocaleString()}
            </text>
          ))}
        {labels.map((label, i) => {
          let top = 0;
          let bottom = 0;
          const x = pad.left + i * band + band * 0.15;
          return (
            <g key={label}>
              {series.map((s, j) => {
                const v = s.values[i] ?? 0;
                const from = v >= 0 ? top : bottom;
                const to = from + v;
                if (v >= 0) top = to;
                else bottom = to;
                return (
                  <rect
                    key={s.label}
                    x={x}
                    width={band * 0.7}
                    y={Math.min(y(from), y(to))}
                    height={Math.abs(y(from) - y(to))}
                    fill={s.color ?? COLORS[j % COLORS.length]}
                  >
                    <title>{`${s.label} ${label}: ${v.toLocaleString()}`}</title>
                  </rect>
                );
              })}
              {i % every === 0 && (
                <text x={x + band * 0.35} y={height - 8} text-anchor="middle" class="tick">
                  {label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {series.map((s, j) => (
          <span key={s.label}>
            <i style={{ background: s.color ?? COLORS[j % COLORS.length] }} /> {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

export interface FlowEdge {
  source: string;
  target: string;
  value: number;
}

/**
 * Paths as a flow: one column per step ("1_/home" is step 1's "/home"), nodes sized by the sessions
 * through them, links as bands whose width is the sessions taking them.
 */
export function Flow({ edges, title }: { edges: FlowEdge[]; title: string }) {
  const step = (id: string) => Number(id.slice(0, id.indexOf('_')));
  const name = (id: string) => id.slice(id.indexOf('_') + 1);
  const nodes = new Map<string, { id: string; in: number; out: number }>();
  for (const e of edges) {
    for (const id of [e.source, e.target]) if (!nodes.has(id)) nodes.set(id, { id, in: 0, out: 0 });
    nodes.get(e.source)!.out += e.value;
    nodes.get(e.target)!.in += e.value;
  }
  const columns = new Map<number, { id: string; size: number }[]>();
  for (const n of nodes.values()) {
    const s = step(n.id);
    if (!columns.has(s)) columns.set(s, []);
    columns.get(s)!.push({ id: n.id, size: Math.max(n.in, n.out) });
  }
  const steps = [...columns.keys()].sort((a, b) => a - b);
  const width = 900;
  const height = 380;
  const gap = 8;
  const colWidth = 12;
  const xOf = (s: number) => 10 + (steps.indexOf(s) / Math.max(1, steps.length - 1)) * (width - 170);
  const total = Math.max(1, ...[...columns.values()].map((c) => c.reduce((a, n) => a + n.size, 0)));
  const maxCount = Math.max(1, ...[...columns.values()].map((c) => c.length));
  const scale = (height - gap * maxCount) / total;
  const pos = new Map<string, { x: number; y: number; h: number; outY: number; inY: number }>();
  for (const s of steps) {
    let y = 0;
    for (const n of columns.get(s)!.sort((a, b) => b.size - a.size)) {
      const h = Math.max(2, n.size * scale);
      pos.set(n.id, { x: xOf(s), y, h, outY: y, inY: y });
      y += h + gap;
    }
  }
  return (
    <figure class="svg-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        {[...edges]
          .sort((a, b) => b.value - a.value)
          .map((e) => {
            const a = pos.get(e.source)!;
            const b = pos.get(e.target)!;
            const w = Math.max(1, e.value * scale);
            const y1 = a.outY + w / 2;
            const y2 = b.inY + w / 2;
            a.outY += w;
            b.inY += w;
            const x1 = a.x + colWidth;
            const x2 = b.x;
            const mid = (x1 + x2) / 2;
            return (
              <path
                key={`${e.source}>${e.target}`}
                d={`M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`}
                class="flow-link"
                stroke-width={w}
              >
                <title>{`${name(e.source)} → ${name(e.target)}: ${e.value.toLocaleString()}`}</title>
              </path>
            );
          })}
        {[...pos.entries()].map(([id, p]) => (
          <g key={id}>
            <rect x={p.x} y={p.y} width={colWidth} height={p.h} class="flow-node" />
            <text x={p.x + colWidth + 4} y={p.y + Math.min(p.h / 2, 12) + 4} class="tick">
              {name(id).length > 28 ? `${name(id).slice(0, 27)}…` : name(id)}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
