/**
 * Tile positions as PostHog stores them: `layouts.sm` on a 12-column grid (`xs` is the one-column
 * phone layout). PostHog's grid lets tiles float anywhere; the console keeps them in reading order
 * (top to bottom, left to right) and packs rows, so "move up/down" and the keyboard are enough.
 */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface Layouts {
  sm?: Box;
  xs?: Box;
}
export interface Placed {
  id: number;
  layouts?: Layouts | null;
}

export const COLUMNS = 12;
export const DEFAULT_BOX = { w: 6, h: 5 };

export const WIDTHS: Record<number, string> = { 4: 'Third', 6: 'Half', 8: 'Two thirds', 12: 'Full width' };
export const HEIGHTS: Record<number, string> = { 3: 'Short', 5: 'Medium', 8: 'Tall' };

export function sizeOf(tile: Placed): { w: number; h: number } {
  const sm = tile.layouts?.sm;
  const w = Math.min(COLUMNS, Math.max(1, Math.round(sm?.w ?? DEFAULT_BOX.w)));
  const h = Math.max(1, Math.round(sm?.h ?? DEFAULT_BOX.h));
  return { w, h };
}

/** Reading order: tiles with a position first (by row, then column), then the rest as added. */
export function ordered<T extends Placed>(tiles: readonly T[]): T[] {
  return [...tiles].sort((a, b) => {
    const pa = a.layouts?.sm;
    const pb = b.layouts?.sm;
    if (pa && pb) return pa.y - pb.y || pa.x - pb.x || a.id - b.id;
    if (pa) return -1;
    if (pb) return 1;
    return a.id - b.id;
  });
}

/** Positions for tiles in this order with these sizes: rows filled left to right, no gaps. */
export function flow(
  tiles: readonly { id: number; w: number; h: number }[],
): { id: number; layouts: Layouts }[] {
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  let xsY = 0;
  return tiles.map((t) => {
    if (x + t.w > COLUMNS) {
      x = 0;
      y += rowHeight;
      rowHeight = 0;
    }
    const sm = { x, y, w: t.w, h: t.h };
    const xs = { x: 0, y: xsY, w: 1, h: t.h };
    x += t.w;
    rowHeight = Math.max(rowHeight, t.h);
    xsY += t.h;
    return { id: t.id, layouts: { sm, xs } };
  });
}

/** The layouts after moving one tile by `delta` places (−1 up, +1 down) or resizing it. */
export function relayout(
  tiles: readonly Placed[],
  change: { id: number; delta?: number; w?: number; h?: number },
): { id: number; layouts: Layouts }[] {
  const list = ordered(tiles).map((t) => ({ id: t.id, ...sizeOf(t) }));
  const at = list.findIndex((t) => t.id === change.id);
  if (at < 0) return flow(list);
  const item = list[at] as { id: number; w: number; h: number };
  if (change.w) item.w = change.w;
  if (change.h) item.h = change.h;
  if (change.delta) {
    const to = Math.min(list.length - 1, Math.max(0, at + change.delta));
    list.splice(at, 1);
    list.splice(to, 0, item);
  }
  return flow(list);
}
