import { call, type FunctionTable, table } from './define.js';
import type { CallContext } from './types.js';

const win = { window: true } as const;

/** PostgreSQL's lag/lead: NULL (not the type's default) when there is no such row. */
const inFrame = (name: string) => ({
  clickhouse: name,
  window: true,
  unboundedFrame: true,
  print: (ctx: CallContext) => call(name, [`toNullable(${ctx.args[0]})`, ...ctx.args.slice(1)]),
});

/** Functions only valid with OVER. Aggregations may also take OVER; they live in ./aggregations.ts. */
export const WINDOW_FUNCTIONS: FunctionTable = table({
  row_number: [0, 0, win],
  rank: [0, 0, win],
  dense_rank: [0, 0, win],
  percent_rank: [0, 0, win],
  cume_dist: [0, 0, win],
  ntile: [1, 1, win],
  first_value: [1, 1, win],
  last_value: [1, 1, win],
  nth_value: [2, 2, win],
  lagInFrame: [1, 3, win],
  leadInFrame: [1, 3, win],
  lag: [1, 3, inFrame('lagInFrame')],
  lead: [1, 3, inFrame('leadInFrame')],
});
