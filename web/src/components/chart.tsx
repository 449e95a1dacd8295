import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';

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
}: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let plot: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    const started = performance.now();
    loadUPlot()
      .then((UPlot) => {
        const element = host.current;
        if (cancelled || !element) return;
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
          scales: { x: { time: !labels } },
          ...(wallClock ? { tzDate: (ts: number) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
          axes: [
            labels ? { ...axis, values: (_u, ticks) => ticks.map((t) => labels[Math.round(t)] ?? '') } : axis,
            { ...axis, size: 56 },
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
    };
  }, [x, series, labels, kind, wallClock, height]);
  if (failed) return <p class="error-note">The chart could not load: {failed}</p>;
  return <div class="chart" ref={host} role="img" aria-label={title} style={{ minHeight: `${height}px` }} />;
}
