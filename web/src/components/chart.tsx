import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { GroupedBars } from './svg-charts';

/** Bars up to this many are drawn side by side in SVG; past it uPlot's canvas stays fast. */
const SVG_BARS_MAX = 1500;

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

export interface ChartProps {
  /** Unix seconds for time axes, or 0..n-1 with `labels` for categories. */
  x: number[];
  series: ChartSeries[];
  labels?: string[];
  kind?: 'line' | 'bars';
  /**
   * `x` holds wall-clock times of the project's zone written as if UTC (an insight's days): they
   * are labelled as UTC, so every browser shows the project's days whatever its own zone.
   */
  wallClock?: boolean;
  height?: number;
  /** Called with the milliseconds from data to a drawn chart (the bench reads it). */
  onDrawn?: (ms: number) => void;
  title: string;
  /** The value axis's labels (uPlot's own round numbers show dollars of 0.0001 as "0"). */
  yFormat?: (n: number) => string;
}

const PALETTE = ['#d9822b', '#3b82c4', '#4caf7d', '#b05cc8', '#d94a4a', '#8c9a2b', '#2bb3b3', '#7a6a5a'];

let uplotModule: Promise<typeof uPlot> | undefined;
/** uPlot and its stylesheet load with the first chart, not with the app. */
const loadUPlot = () => {
  uplotModule ??= Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([m]) => m.default);
  return uplotModule;
};

function cssVar(name: string) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** The x value of a point as people read it: a category, a day, or a day and time. */
function xText(x: number, labels: string[] | undefined, wallClock: boolean): string {
  if (labels) return labels[Math.round(x)] ?? String(x);
  const date = new Date(x * 1000);
  const midnight = wallClock ? x % 86_400 === 0 : date.getHours() === 0 && date.getMinutes() === 0;
  return new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    ...(midnight ? {} : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
    ...(wallClock ? { timeZone: 'UTC' } : {}),
  }).format(date);
}

/**
 * A tooltip with every series' value at the cursor: uPlot moves the cursor on hover, and the arrow
 * keys move it when the chart has focus, so values are readable without a mouse.
 */
function tooltipPlugin(tip: HTMLElement, labels: string[] | undefined, wallClock: boolean): uPlot.Plugin {
  return {
    hooks: {
      setCursor: (u) => {
        const i = u.cursor.idx;
        if (i === null || i === undefined || u.cursor.left === undefined || u.cursor.left < 0) {
          tip.hidden = true;
          return;
        }
        const x = u.data[0][i] as number;
        tip.replaceChildren();
        const head = document.createElement('strong');
        head.textContent = xText(x, labels, wallClock);
        tip.append(head);
        u.series.forEach((s, k) => {
          if (k === 0 || s.show === false) return;
          const row = document.createElement('div');
          const swatch = document.createElement('i');
          swatch.style.background = PALETTE[(k - 1) % PALETTE.length]!;
          const v = u.data[k]?.[i];
          row.append(swatch, `${s.label}: ${v === null || v === undefined ? '–' : v.toLocaleString()}`);
          tip.append(row);
        });
        tip.hidden = false;
        const over = u.over;
        const left = over.offsetLeft + u.cursor.left;
        const flip = left + tip.offsetWidth + 16 > (over.parentElement?.clientWidth ?? Infinity);
        tip.style.left = `${flip ? left - tip.offsetWidth - 12 : left + 12}px`;
        tip.style.top = `${over.offsetTop + Math.max(0, (u.cursor.top ?? 0) - tip.offsetHeight - 8)}px`;
      },
    },
  };
}

/** Arrow keys, Home and End move the cursor between points; Escape hides the tooltip. */
function keyboardCursor(plot: uPlot, key: string): boolean {
  const xs = plot.data[0];
  if (xs.length === 0) return false;
  const now = plot.cursor.idx ?? -1;
  let next: number;
  if (key === 'ArrowRight') next = Math.min(xs.length - 1, now + 1);
  else if (key === 'ArrowLeft') next = now < 0 ? xs.length - 1 : Math.max(0, now - 1);
  else if (key === 'Home') next = 0;
  else if (key === 'End') next = xs.length - 1;
  else if (key === 'Escape') {
    plot.setCursor({ left: -10, top: -10 });
    return true;
  } else return false;
  let top = Number.POSITIVE_INFINITY;
  for (let k = 1; k < plot.data.length; k++) {
    const v = plot.data[k]?.[next];
    if (typeof v === 'number') top = Math.min(top, plot.valToPos(v, 'y'));
  }
  plot.setCursor({ left: plot.valToPos(xs[next] as number, 'x'), top: Number.isFinite(top) ? top : 0 });
  return true;
}

/** A line or bar chart drawn on canvas by uPlot: fast enough for thousands of points per series. */
export function Chart({
  x,
  series,
  labels,
  kind = 'line',
  wallClock = false,
  height = 260,
  onDrawn,
  title,
  yFormat,
}: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const tip = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | undefined>(undefined);
  const [failed, setFailed] = useState<string | null>(null);
  // uPlot draws bars of several series on top of each other: those are grouped side by side in SVG.
  // One series stays on uPlot's canvas (Home's days), with the same tooltip.
  const grouped = kind === 'bars' && series.length > 1 && x.length * series.length <= SVG_BARS_MAX;
  useEffect(() => {
    if (grouped) return;
    let plot: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    const started = performance.now();
    loadUPlot()
      .then((UPlot) => {
        const element = host.current;
        if (cancelled || !element || !tip.current) return;
        const axis = {
          stroke: cssVar('--muted'),
          grid: { stroke: cssVar('--grid'), width: 1 },
          ticks: { show: false },
        };
        const bars = kind === 'bars' ? UPlot.paths.bars?.({ size: [0.7, 48] }) : undefined;
        const opts: uPlot.Options = {
          width: element.clientWidth || 600,
          height,
          legend: { show: series.length > 1 },
          cursor: { points: { size: 6 } },
          plugins: [tooltipPlugin(tip.current, labels, wallClock)],
          scales: { x: { time: !labels } },
          ...(wallClock ? { tzDate: (ts: number) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
          axes: [
            labels ? { ...axis, values: (_u, ticks) => ticks.map((t) => labels[Math.round(t)] ?? '') } : axis,
            yFormat
              ? { ...axis, size: 64, values: (_u: uPlot, ticks: number[]) => ticks.map((t) => yFormat(t)) }
              : { ...axis, size: 56 },
          ],
          series: [
            {},
            ...series.map((s, i) => ({
              label: s.label,
              stroke: PALETTE[i % PALETTE.length],
              width: 2,
              fill:
                kind === 'bars'
                  ? `${PALETTE[i % PALETTE.length]}cc`
                  : series.length === 1
                    ? `${PALETTE[i % PALETTE.length]}22`
                    : undefined,
              ...(bars ? { paths: bars } : {}),
              points: { show: kind !== 'bars' && x.length < 60 },
            })),
          ],
        };
        const drawStart = performance.now();
        plot = new UPlot(opts, [x, ...series.map((s) => s.values)] as uPlot.AlignedData, element);
        plotRef.current = plot;
        // A standard User Timing entry: the bench (and a browser's profiler) reads the draw time.
        performance.measure('burrow:chart-draw', { start: drawStart });
        onDrawn?.(performance.now() - started);
        observer = new ResizeObserver(() => plot?.setSize({ width: element.clientWidth, height }));
        observer.observe(element);
      })
      .catch((e: Error) => setFailed(e.message));
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
      plotRef.current = undefined;
    };
  }, [x, series, labels, kind, wallClock, height, grouped, yFormat]);
  if (grouped) {
    return (
      <GroupedBars
        title={title}
        height={height}
        labels={labels ?? x.map((v) => xText(v, undefined, wallClock))}
        series={series}
        onDrawn={onDrawn}
      />
    );
  }
  if (failed) return <p class="error-note">The chart could not load: {failed}</p>;
  return (
    <div class="chart-box">
      {/* Focusable so the arrow keys walk the points: it handles keys itself, as an application does. */}
      <div
        class="chart"
        ref={host}
        role="application"
        aria-roledescription="chart"
        aria-label={`${title}. Arrow keys read the values.`}
        tabIndex={0}
        style={{ minHeight: `${height}px` }}
        onKeyDown={(e) => {
          if (plotRef.current && keyboardCursor(plotRef.current, e.key)) e.preventDefault();
        }}
        onBlur={() => plotRef.current?.setCursor({ left: -10, top: -10 })}
      />
      <div class="chart-tip" ref={tip} role="status" hidden />
    </div>
  );
}
