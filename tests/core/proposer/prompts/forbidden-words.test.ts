// No prompt the method sends may name how the work is measured: every variant (both packs, both
// surfaces, both dimensions, k ∈ {1,2,4}, both conformance settings, both pool kinds, slots filled
// or blank) is scanned with word-boundary patterns, plus the seam's own scan and the tripwire's
// grader-verdict markers.
import { describe, expect, test } from "bun:test";
import { GRADER_VERDICT_MARKERS } from "../../../../src/core/safety/markers.ts";
import { forbiddenWordsIn } from "../../../../src/core/seams/bench-prompts.ts";
import { allVariants } from "./variants.ts";

const FORBIDDEN: readonly RegExp[] = [
  /\bbenchmark\w*/i,
  /\bgrad(?:e|es|ed|er|ers|ing)\b/i,
  /\brubrics?\b/i,
  /\bjudg\w*/i,
  /\bscor(?:e|es|ed|er|ers|ing)\b/i,
  /\bevaluat\w*/i,
];

const variants = allVariants();

describe("no prompt names a benchmark, grader, rubric, judge or score", () => {
  test("the sweep covers every variant", () => {
    // 2 packs × 2 conformances × 2 slot fillings × (per k: 2 select + 2 surfaces × (4k propose + 2k composers)) + experience
    const perFilling = [1, 2, 4].reduce((sum, k) => sum + 2 + 2 * (4 * k + 2 * k), 0) + 1;
    expect(variants.length).toBe(2 * 2 * 2 * perFilling);
    expect(new Set(variants.map((v) => v.name)).size).toBe(variants.length);
  });

  test("the patterns catch what they must and spare neighbours", () => {
    const hits = (s: string) => FORBIDDEN.some((re) => re.test(s));
    for (const bad of [
      "Benchmark",
      "the grader",
      "graded",
      "a rubric",
      "judge",
      "judging",
      "score",
      "Scored",
      "evaluation",
    ]) {
      expect(hits(bad)).toBe(true);
    }
    for (const ok of ["underscore", "gradual", "upgrade", "prejudged", "scorecard"]) {
      expect(hits(ok)).toBe(false);
    }
  });

  test.each(FORBIDDEN.map((re) => [re.source, re] as const))(
    "%s appears in no variant",
    (_, re) => {
      const offenders = variants
        .filter((v) => re.test(v.text))
        .map((v) => `${v.name}: ${re.exec(v.text)?.[0]}`);
      expect(offenders).toEqual([]);
    },
  );

  test("the seam's own forbidden-word scan finds nothing", () => {
    const offenders = variants
      .filter((v) => forbiddenWordsIn(v.text).length > 0)
      .map((v) => v.name);
    expect(offenders).toEqual([]);
  });

  test("no variant carries a grader-verdict marker", () => {
    const offenders = variants.filter((v) =>
      GRADER_VERDICT_MARKERS.some((m) => v.text.includes(m)),
    );
    expect(offenders.map((v) => v.name)).toEqual([]);
  });

  test("every variant is tidy: no triple newline, one trailing newline, no trailing spaces", () => {
    for (const v of variants) {
      expect(v.text.includes("\n\n\n")).toBe(false);
      expect(v.text.endsWith("\n") && !v.text.endsWith("\n\n")).toBe(true);
      expect(/[ \t]+\n/.test(v.text)).toBe(false);
    }
  });
});
