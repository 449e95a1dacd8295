/**
 * An upper bound on how many instructions RE2 compiles a pattern to, read from its text in one
 * pass without compiling it. Compiling is the costly part for patterns that expand
 * (`a{1000}` repeated 500 times took re2js 9 s), so a pattern is measured before it is compiled.
 *
 * Counts one per literal, class, escape or assertion; a group is the sum of its alternatives; a
 * counted repetition `x{n,m}` costs x × max(n, m) + 1 (RE2 expands it into that many copies), and
 * `*`, `+`, `?` cost x + 1. Sums saturate at `cap + 1`, so the answer is exact up to the cap and
 * "more than cap" past it. Malformed text is measured as best it can be: the compiler that runs
 * afterwards reports the syntax error.
 */
export function estimatedProgramSize(pattern: string, cap: number): number {
  const over = cap + 1;
  const add = (a: number, b: number) => Math.min(over, a + b);
  const times = (a: number, k: number) => Math.min(over, a * k);
  interface Frame {
    done: number; // alternatives already closed
    seq: number; // the alternative being read
    last: number; // size of its last atom (what a quantifier repeats)
  }
  const stack: Frame[] = [{ done: 0, seq: 0, last: 0 }];
  const top = () => stack[stack.length - 1] as Frame;
  const atom = (size: number) => {
    const f = top();
    f.seq = add(f.seq, size);
    f.last = size;
  };
  const repeat = (k: number) => {
    const f = top();
    const grown = add(times(f.last, k), 1);
    f.seq = add(Math.max(0, f.seq - f.last), grown);
    f.last = grown;
  };
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i] as string;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? n : end;
        for (let k = i + 2; k < stop; k++) atom(1);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if ((next === 'p' || next === 'P' || next === 'x') && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i + 3);
        i = end < 0 ? n : end + 1;
      } else i += 2;
      atom(1);
      continue;
    }
    if (c === '[') {
      i = classEnd(pattern, i);
      atom(1);
      continue;
    }
    if (c === '(') {
      stack.push({ done: 0, seq: 0, last: 0 });
      i++;
      continue;
    }
    if (c === ')') {
      if (stack.length > 1) {
        const f = stack.pop() as Frame;
        atom(add(f.done, f.seq));
      }
      i++;
      continue;
    }
    if (c === '|') {
      const f = top();
      f.done = add(f.done, f.seq);
      f.seq = 0;
      f.last = 0;
      i++;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      repeat(1);
      i++;
      if (pattern[i] === '?') i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d{1,7})(?:,(\d{0,7}))?\}/.exec(pattern.slice(i, i + 18));
      if (m) {
        const low = Number(m[1]);
        const high = m[2] === undefined || m[2] === '' ? low + 1 : Number(m[2]);
        repeat(Math.max(low, high, 1));
        i += m[0].length;
        if (pattern[i] === '?') i++;
        continue;
      }
    }
    atom(1);
    i++;
  }
  while (stack.length > 1) {
    const f = stack.pop() as Frame;
    atom(add(f.done, f.seq));
  }
  const f = top();
  return add(f.done, f.seq);
}

/** Index just past the class starting at `start` (`[...]`, `[^]...]`, `[[:alpha:]]`, escapes). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') i += 2;
    else if (c === '[' && pattern[i + 1] === ':') {
      const end = pattern.indexOf(':]', i + 2);
      i = end < 0 ? i + 1 : end + 2;
    } else if (c === ']') return i + 1;
    else i++;
  }
  return pattern.length;
}
