import { validationError } from '../../errors.js';

/**
 * PostHog's date expressions: `all`, relative (`-7d`, `-24h`, `-1mStart`, `dStart`) and absolute
 * dates or datetimes, which without an offset are read in the project's time zone.
 */
const RELATIVE = /^-?(\d{1,6})?([hdwmqyMs])(Start|End)?$/;
const ABSOLUTE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function checkDate(value: string, attr: string): string {
  const rel = RELATIVE.exec(value);
  const ok =
    value === 'all' || (rel && (rel[1] !== undefined || rel[3] !== undefined)) || validAbsolute(value);
  if (!ok)
    throw validationError(
      `Invalid date: "${value}". Use a date, a datetime or a relative date like -7d.`,
      attr,
    );
  return value;
}

function validAbsolute(value: string): boolean {
  const m = ABSOLUTE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return (
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    Number(m[4] ?? 0) < 24 &&
    Number(m[5] ?? 0) < 60
  );
}

type Wall = [number, number, number, number, number, number, number]; // y, month0, d, h, mi, s, ms

function wallOf(ms: number, tz: string): Wall {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return [
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
    ((ms % 1000) + 1000) % 1000,
  ];
}

/** The instant at which the wall clock of `tz` shows `wall` (twice adjusted for DST edges). */
function fromWall(wall: Wall, tz: string): number {
  const target = Date.UTC(...wall);
  let guess = target;
  for (let i = 0; i < 2; i++) guess = target - (Date.UTC(...wallOf(guess, tz)) - guess);
  return guess;
}

const UNIT_INDEX: Record<string, number> = { y: 0, q: 1, m: 1, w: 2, d: 2, h: 3, M: 4, s: 5 };

function startOf(wall: Wall, unit: string, weekStart: number): Wall {
  const w = [...wall] as Wall;
  const keep = UNIT_INDEX[unit] ?? 2;
  for (let i = keep + 1; i < 7; i++) w[i] = i === 2 ? 1 : 0;
  if (unit === 'q') w[1] = Math.floor(w[1] / 3) * 3;
  if (unit === 'w') w[2] -= (new Date(Date.UTC(w[0], w[1], w[2])).getUTCDay() - weekStart + 7) % 7;
  return w;
}

function shift(wall: Wall, unit: string, n: number): Wall {
  const w = [...wall] as Wall;
  const steps: Record<string, [number, number]> = {
    y: [0, 1],
    q: [1, 3],
    m: [1, 1],
    w: [2, 7],
    d: [2, 1],
    h: [3, 1],
    M: [4, 1],
    s: [5, 1],
  };
  const [index, size] = steps[unit] ?? [2, 1];
  w[index] = (w[index] as number) + n * size;
  return w;
}

/** The instant an expression names; `end` makes a bare date or `…End` mean the last moment of it. */
export function resolveDate(
  value: string,
  ctx: { tz: string; now: Date; weekStart?: number },
  end: boolean,
): Date | null {
  if (value === 'all') return null;
  const rel = RELATIVE.exec(value);
  if (rel) {
    const [, n, unit = 'd', position] = rel;
    let wall = shift(wallOf(ctx.now.getTime(), ctx.tz), unit, -Number(n ?? 0));
    if (position) wall = startOf(wall, unit, ctx.weekStart ?? 0);
    if (position === 'End') return new Date(fromWall(shift(wall, unit, 1), ctx.tz) - 1);
    return new Date(fromWall(wall, ctx.tz));
  }
  const m = ABSOLUTE.exec(value) as RegExpExecArray;
  const wall: Wall = [
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3)),
  ];
  const offset = m[8];
  if (offset) {
    const sign = offset === 'Z' ? 0 : offset.startsWith('-') ? -1 : 1;
    const digits = offset.replace(/[^0-9]/g, '');
    const minutes = sign * (Number(digits.slice(0, 2) || 0) * 60 + Number(digits.slice(2) || 0));
    return new Date(Date.UTC(...wall) - minutes * 60_000);
  }
  if (end && m[4] === undefined) return new Date(fromWall(shift(wall, 'd', 1), ctx.tz) - 1);
  return new Date(fromWall(wall, ctx.tz));
}
