// ARIA table roles on divs: virtualised rows are absolutely positioned, which <table> layout cannot do;
// the scroll container takes focus so keyboards can scroll it (biome.json relaxes a11y rules here).
import { useMemo, useRef, useState } from 'preact/hooks';

const ROW_HEIGHT = 30;
const OVERSCAN = 10;
/** Column widths come from about this many rows: enough to see a column's shape, cheap for 50 000. */
const SAMPLE_ROWS = 200;
const CHAR_PX = 7.6;
const CELL_PAD_PX = 20;
const MIN_COL_PX = 72;
const MAX_COL_PX = 360;
const ROWNUM_PX = 56;

/**
 * One set of pixel widths for the header and every row. Each row is its own grid (rows are
 * positioned one by one for virtualisation), so content-sized tracks (`1fr`, `max-content`) would
 * give each row its own columns and cells would drift from their headers.
 */
export function columnWidths(columns: string[], rows: unknown[][]): number[] {
  // Rows spread over the whole result, not only its top: values often grow down a sorted result.
  const step = Math.max(1, Math.ceil(rows.length / SAMPLE_ROWS));
  const sample: unknown[][] = [];
  for (let i = 0; i < rows.length; i += step) sample.push(rows[i]!);
  if (rows.length > 0) sample.push(rows[rows.length - 1]!);
  return columns.map((name, j) => {
    let chars = name.length;
    for (const row of sample) chars = Math.max(chars, Math.min(60, cell(row[j]).length));
    return Math.round(Math.min(MAX_COL_PX, Math.max(MIN_COL_PX, chars * CHAR_PX + CELL_PAD_PX)));
  });
}

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
  const widths = useMemo(() => columnWidths(columns, rows), [columns, rows]);
  const template = [ROWNUM_PX, ...widths].map((w) => `${w}px`).join(' ');
  const rowWidth = ROWNUM_PX + widths.reduce((a, w) => a + w, 0);
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
      <div class="thead" role="row" style={{ gridTemplateColumns: template, width: `${rowWidth}px` }}>
        <span role="columnheader" class="rownum">
          #
        </span>
        {columns.map((c) => (
          <span role="columnheader" key={c} title={c}>
            {c}
          </span>
        ))}
      </div>
      <div style={{ height: `${rows.length * ROW_HEIGHT}px`, width: `${rowWidth}px`, position: 'relative' }}>
        {visible.map((row, i) => {
          const index = first + i;
          return (
            <div
              key={index}
              role="row"
              aria-rowindex={index + 2}
              class="trow"
              style={{
                gridTemplateColumns: template,
                width: `${rowWidth}px`,
                transform: `translateY(${index * ROW_HEIGHT}px)`,
              }}
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
