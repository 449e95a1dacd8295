// ARIA table roles on divs: virtualised rows are absolutely positioned, which <table> layout cannot do;
// the scroll container takes focus so keyboards can scroll it (biome.json relaxes a11y rules here).
import { useMemo, useRef, useState } from 'preact/hooks';

const ROW_HEIGHT = 30;
const OVERSCAN = 10;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Only the rows in view are in the DOM (plus a few either side), so 50 000 rows scroll as smoothly
 * as 50. Rows have one fixed height; long values are cut with an ellipsis and shown whole on hover.
 */
export function DataTable({
  columns,
  rows,
  height = 420,
}: {
  columns: string[];
  rows: unknown[][];
  height?: number;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const frame = useRef(0);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const count = Math.ceil(height / ROW_HEIGHT) + OVERSCAN * 2;
  const visible = useMemo(() => rows.slice(first, first + count), [rows, first, count]);
  const template = `3.5rem repeat(${columns.length}, minmax(8rem, 1fr))`;
  return (
    <div
      class="data-table"
      role="table"
      aria-rowcount={rows.length + 1}
      aria-colcount={columns.length}
      tabIndex={0}
      style={{ maxHeight: `${height}px` }}
      onScroll={(e) => {
        const top = (e.currentTarget as HTMLDivElement).scrollTop;
        cancelAnimationFrame(frame.current);
        frame.current = requestAnimationFrame(() => setScrollTop(top));
      }}
    >
      <div class="thead" role="row" style={{ gridTemplateColumns: template }}>
        <span role="columnheader" class="rownum">
          #
        </span>
        {columns.map((c) => (
          <span role="columnheader" key={c} title={c}>
            {c}
          </span>
        ))}
      </div>
      <div style={{ height: `${rows.length * ROW_HEIGHT}px`, position: 'relative' }}>
        {visible.map((row, i) => {
          const index = first + i;
          return (
            <div
              key={index}
              role="row"
              aria-rowindex={index + 2}
              class="trow"
              style={{ gridTemplateColumns: template, transform: `translateY(${index * ROW_HEIGHT}px)` }}
            >
              <span role="cell" class="rownum">
                {index + 1}
              </span>
              {row.map((value, j) => {
                const text = cell(value);
                return (
                  <span role="cell" key={j} title={text.length > 40 ? text.slice(0, 2000) : undefined}>
                    {text}
                  </span>
                );
              })}
            </div>
          );
        })}
      </div>
    </div>
  );
}
