// The report's spread arithmetic: sample sd and the 95% Student-t interval of a
// mean, checked against hand-computed values; no interval below two values.
import { describe, expect, test } from "bun:test";
import { meanInterval, tCritical95 } from "../../src/judge/report-stats.ts";

describe("tCritical95", () => {
  test("the tabled two-sided 95% values for small df, t(120) = 1.980 for large df", () => {
    expect(tCritical95(1)).toBe(12.706);
    expect(tCritical95(3)).toBe(3.182);
    expect(tCritical95(5)).toBe(2.571);
    expect(tCritical95(10)).toBe(2.228);
    expect(tCritical95(30)).toBe(2.042);
    expect(tCritical95(120)).toBe(1.98);
    expect(tCritical95(500)).toBe(1.98);
  });

  test("never narrower than the exact value, large df included", () => {
    // Exact t(0.975, df) to 4 decimals (statistical tables).
    const exact: [number, number][] = [
      [35, 2.0301],
      [45, 2.0141],
      [90, 1.9867],
      [120, 1.9799],
      [200, 1.9719],
      [500, 1.9647],
      [1000, 1.9623],
      [100_000, 1.96],
    ];
    for (const [df, t] of exact) expect(tCritical95(df)).toBeGreaterThanOrEqual(t);
  });

  test("between tabled points beyond 30 it takes the wider value, never a narrower one", () => {
    // Exact t(0.975, 35) is 2.030 and t(0.975, 45) is 2.014.
    expect(tCritical95(35)).toBe(2.042);
    expect(tCritical95(45)).toBe(2.021);
    expect(tCritical95(90)).toBe(2.0);
    // Monotone non-increasing in df.
    const ts = Array.from({ length: 200 }, (_, i) => tCritical95(i + 1));
    for (let i = 1; i < ts.length; i++)
      expect(ts[i] as number).toBeLessThanOrEqual(ts[i - 1] as number);
  });

  test("a df below 1 or not an integer is refused", () => {
    expect(() => tCritical95(0)).toThrow("integer df ≥ 1, got 0");
    expect(() => tCritical95(2.5)).toThrow("got 2.5");
  });
});

describe("meanInterval", () => {
  test("differences [1, 0, 1, 1]: mean 0.75, sd 0.5, df 3 t 3.182, half-width 0.7955", () => {
    const i = meanInterval([1, 0, 1, 1]);
    expect(i.n).toBe(4);
    expect(i.mean).toBe(0.75);
    expect(i.sd).toBeCloseTo(0.5, 12);
    expect(i.t).toBe(3.182);
    // 3.182 × 0.5 / √4
    expect(i.halfWidth).toBeCloseTo(0.7955, 12);
    expect(i.low).toBeCloseTo(-0.0455, 12);
    expect(i.high).toBeCloseTo(1.5455, 12);
  });

  test("scores [0.2, 0.4, 0.9]: sd √0.13, df 2 t 4.303", () => {
    const i = meanInterval([0.2, 0.4, 0.9]);
    expect(i.mean).toBeCloseTo(0.5, 12);
    // deviations −0.3, −0.1, 0.4 → squares 0.09 + 0.01 + 0.16 = 0.26, / 2 = 0.13
    expect(i.sd).toBeCloseTo(Math.sqrt(0.13), 12);
    expect(i.halfWidth).toBeCloseTo((4.303 * Math.sqrt(0.13)) / Math.sqrt(3), 12);
  });

  test("one value has a mean but no sd and no interval (null, never 0); none has nothing", () => {
    expect(meanInterval([0.25])).toEqual({
      n: 1,
      mean: 0.25,
      sd: null,
      t: null,
      halfWidth: null,
      low: null,
      high: null,
    });
    expect(meanInterval([])).toEqual({
      n: 0,
      mean: null,
      sd: null,
      t: null,
      halfWidth: null,
      low: null,
      high: null,
    });
  });

  test("identical values give sd 0 and a zero-width interval at the mean", () => {
    expect(meanInterval([1, 1])).toMatchObject({ sd: 0, t: 12.706, halfWidth: 0, low: 1, high: 1 });
  });
});
