/** Small SVG charts for shapes uPlot does not draw: stacked bars and flows. Scales with the box. */

const COLORS = ['#d9822b', '#3b82c4', '#4caf7d', '#b05cc8', '#d94a4a', '#8c9a2b'];

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
