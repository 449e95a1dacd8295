import { parseExpr } from './expressions.js';
import type { Node, Parser } from './parser.js';
import { attempt } from './special-forms.js';
import { INTERVAL_UNITS, T } from './tokens.js';

/**
 * INTERVAL expr unit, or INTERVAL '3 day', or null when "interval" is a name or a function here;
 * the cursor is on INTERVAL.
 */
export function parseIntervalForm(p: Parser): Node | null {
  const next = p.peek();
  if (p.intervals > 0) {
    // retrying an enclosing INTERVAL that found no unit: read this one so as to leave it one
    if (p.stringIntervals > 0 && next === T.STRING) return parseIntervalString(p);
    if (p.plainIntervals > 0) return null;
  }
  const interval = attempt(p, () => parseInterval(p));
  if (interval !== null) return interval;
  // `interval interval '1 day' <> x day`, `interval interval(1) day`: the nested INTERVALs read
  // differently; tried only near the top, as each level of tries multiplies the work
  if (p.intervals < 2) {
    const retried =
      attempt(p, () => retryInterval(p, 'stringIntervals')) ??
      attempt(p, () => retryInterval(p, 'plainIntervals'));
    if (retried !== null) return retried;
  }
  return next === T.STRING ? parseIntervalString(p) : null;
}

/** Parses INTERVAL expr unit again, with nested INTERVALs read as strings or as names / calls. */
function retryInterval(p: Parser, mode: 'stringIntervals' | 'plainIntervals'): Node {
  p[mode]++;
  try {
    return parseInterval(p);
  } finally {
    p[mode]--;
  }
}

/** INTERVAL expr unit → toInterval<Unit>(expr). */
function parseInterval(p: Parser): Node {
  const first = p.pos++;
  p.intervals++;
  let expr: Node;
  try {
    expr = parseExpr(p);
  } finally {
    p.intervals--;
  }
  const unit = INTERVAL_UNITS.get(p.t);
  if (unit === undefined) throw p.unexpected('an interval unit');
  p.pos++;
  return p.span({ node: 'Call', name: `toInterval${unit}`, args: [expr] }, first);
}

const UNIT_NAMES: Record<string, string> = {
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
};

/** INTERVAL '3 day' → toIntervalDay(3); the string must be exactly "<count> <unit>". */
function parseIntervalString(p: Parser): Node {
  const first = p.pos;
  p.pos += 2;
  const text = p.stringAt(first + 1);
  const space = text.indexOf(' ');
  const count = space === -1 ? '' : text.slice(0, space);
  const unitText = text.slice(space + 1);
  const unit = UNIT_NAMES[unitText.endsWith('s') ? unitText.slice(0, -1) : unitText];
  if (space === -1)
    p.defer(p.unsupported("Unsupported interval: must be in the format '<count> <unit>'", first + 1));
  else if (!/^[0-9]+$/.test(count))
    p.defer(p.unsupported(`Unsupported interval count: '${count}' is not a valid integer`, first + 1));
  else if (unit === undefined) p.defer(p.unsupported(`Unsupported interval unit: ${unitText}`, first + 1));
  const args = [{ node: 'Constant', value: Number(count) }];
  return p.span({ node: 'Call', name: `toInterval${unit ?? 'Day'}`, args }, first);
}
