// The report's sense of spread: sample standard deviation and a 95% Student-t interval of a mean
// over tasks (mean scores and paired per-task differences). Pure arithmetic; it never rounds (the
// report rounds) and never invents an interval: below two values there is none (null, drawn "—").

/** Two-sided 95% Student-t critical values t(0.975, df) for df = 1..30 (index df − 1). */
const T975: readonly number[] = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
];

/**
 * t(0.975, df). Between the tabled points beyond 30 the value of the next LOWER tabled df is used
 * (slightly wider, never narrower, than the exact interval); from df 120 on, t(0.975, 120) = 1.980,
 * which every larger df's exact value (between 1.960 and 1.980) stays below.
 */
export function tCritical95(df: number): number {
  if (!Number.isInteger(df) || df < 1) {
    throw new RangeError(`t critical value needs an integer df ≥ 1, got ${df}`);
  }
  if (df <= T975.length) return T975[df - 1] as number;
  if (df < 40) return 2.042;
  if (df < 60) return 2.021;
  if (df < 120) return 2.0;
  return 1.98;
}

export type Interval = {
  n: number;
  mean: number | null;
  /** Sample standard deviation (divisor n − 1); null below two values. */
  sd: number | null;
  /** The t critical value used (df = n − 1); null below two values. */
  t: number | null;
  /** t · sd / √n; null below two values. */
  halfWidth: number | null;
  low: number | null;
  high: number | null;
};

/** Mean, sd and the 95% t-interval of the mean of `xs`. */
export function meanInterval(xs: readonly number[]): Interval {
  const n = xs.length;
  if (n === 0) return { n, mean: null, sd: null, t: null, halfWidth: null, low: null, high: null };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, sd: null, t: null, halfWidth: null, low: null, high: null };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const t = tCritical95(n - 1);
  const halfWidth = (t * sd) / Math.sqrt(n);
  return { n, mean, sd, t, halfWidth, low: mean - halfWidth, high: mean + halfWidth };
}
