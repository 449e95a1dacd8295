/**
 * The distribution functions the experiment statistics need, small and dependency-free; the tests
 * check them against @stdlib's independent implementations.
 */

/** log Γ(x) by Lanczos (g = 7, 9 terms): ~15 significant digits for x > 0. */
export function logGamma(x: number): number {
  const c = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
    12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta (modified Lentz); converges for x < (a+1)/(a+b+2). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta I_x(a, b): the Beta(a, b) CDF at x. */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaFraction(a, b, x)) / a
    : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** Student's t CDF with `df` degrees of freedom (df may be fractional, as Welch's is). */
export function tCdf(t: number, df: number): number {
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  if (!(df > 0)) return Number.NaN;
  const tail = 0.5 * betaCdf(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/**
 * erfc to near double precision: the Taylor series of erf below |x| = 3 (at most 100 terms), the
 * Laplace continued fraction of erfc above (evaluated bottom-up from 60 levels).
 */
function erfc(x: number): number {
  const z = Math.abs(x);
  let r: number;
  if (z < 3) {
    let term = z;
    let sum = z;
    for (let n = 1; n < 100 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
      term *= (-z * z) / n;
      sum += term / (2 * n + 1);
    }
    r = 1 - (2 / Math.sqrt(Math.PI)) * sum;
  } else {
    let f = z;
    for (let k = 60; k >= 1; k--) f = z + k / 2 / f;
    r = Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
  }
  return x >= 0 ? r : 2 - r;
}

/** The standard normal CDF. */
export function normalCdf(x: number, mean = 0, sd = 1): number {
  if (sd <= 0) return x < mean ? 0 : 1;
  return 0.5 * erfc(-(x - mean) / (sd * Math.SQRT2));
}

/** The standard normal quantile (Acklam's rational approximation, ~1e-9 relative). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  const poly = (k: number[], x: number) => k.reduce((s, v) => s * x + v, 0);
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - lo) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -poly(c, q) / (poly(d, q) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

/** The Beta(a, b) density at x. */
export function betaPdf(x: number, a: number, b: number): number {
  if (x < 0 || x > 1) return 0;
  if ((x === 0 && a < 1) || (x === 1 && b < 1)) return Number.POSITIVE_INFINITY;
  const logB = logGamma(a) + logGamma(b) - logGamma(a + b);
  const la = a === 1 ? 0 : (a - 1) * Math.log(x);
  const lb = b === 1 ? 0 : (b - 1) * Math.log(1 - x);
  return Math.exp(la + lb - logB);
}

/** The Gamma(shape, rate) density at x. */
export function gammaPdf(x: number, shape: number, rate: number): number {
  if (x < 0) return 0;
  if (x === 0) return shape === 1 ? rate : shape < 1 ? Number.POSITIVE_INFINITY : 0;
  return Math.exp(shape * Math.log(rate) + (shape - 1) * Math.log(x) - rate * x - logGamma(shape));
}

/**
 * The Gamma(shape, rate) CDF: the regularized lower incomplete gamma P(shape, rate·x), by its
 * series below shape + 1 and its continued fraction (modified Lentz) above.
 */
export function gammaCdf(x: number, shape: number, rate: number): number {
  if (x <= 0) return 0;
  const z = rate * x;
  const front = shape * Math.log(z) - z - logGamma(shape);
  if (z < shape + 1) {
    let term = 1 / shape;
    let sum = term;
    for (let n = 1; n < 10_000 && Math.abs(term) > 1e-16 * Math.abs(sum); n++) {
      term *= z / (shape + n);
      sum += term;
    }
    return Math.min(1, sum * Math.exp(front));
  }
  const tiny = 1e-300;
  let b = z + 1 - shape;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - shape);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return Math.max(0, 1 - Math.exp(front) * h);
}

/** Student's t density with `df` degrees of freedom (standard: location 0, scale 1). */
export function tPdf(t: number, df: number): number {
  return Math.exp(
    logGamma((df + 1) / 2) -
      logGamma(df / 2) -
      0.5 * Math.log(df * Math.PI) -
      ((df + 1) / 2) * Math.log(1 + (t * t) / df),
  );
}

/** The p-quantile of a continuous CDF increasing on [lo, hi], by bisection (bounded: 200 steps). */
export function quantileOf(cdf: (x: number) => number, p: number, lo: number, hi: number): number {
  let a = lo;
  let b = hi;
  for (let i = 0; i < 200 && b - a > 1e-15 * Math.max(1, Math.abs(b)); i++) {
    const mid = (a + b) / 2;
    if (cdf(mid) < p) a = mid;
    else b = mid;
  }
  return (a + b) / 2;
}
