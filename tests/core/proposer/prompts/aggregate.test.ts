// aggregate(): structure per pack, counts that make sense for every k (never "2/1"), a distinct
// prompt and leaning for each of the k parallel composers, "merging does not launder", and a
// notes example that the decision-line parser reads back.
import { describe, expect, test } from "bun:test";
import {
  aggregate,
  COMPOSER_LEANINGS,
  HEADING,
} from "../../../../src/core/proposer/prompts/index.ts";
import { KEEP_BASE, parseDecisionLines } from "../../../../src/core/proposer/reply.ts";
import { CODEX_SURFACE } from "../../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../../src/substrate/opencode/surface.ts";
import { bareBench, bench, headings, PACKS, SLOTS, SURFACES, sectionBody } from "./variants.ts";

const adapt = bench();
const tts = bench({ promptPack: "tts" });

describe("structure", () => {
  test("adapt sections in the spec's order", () => {
    expect(headings(aggregate(adapt, OPENCODE_SURFACE, { k: 2, index: 1 }))).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.WHAT_YOU_HAVE,
      HEADING.HOW_TO_WEIGH,
      HEADING.YOUR_JOB,
      HEADING.GOOD_PROCESS,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      HEADING.WHAT_YOU_CAN_CHANGE,
      HEADING.HOW_TO_CHANGE,
      HEADING.NOTES_FORMAT,
    ]);
  });

  test("tts sections in the spec's order, with the workspace map", () => {
    const text = aggregate(tts, CODEX_SURFACE, { k: 2, index: 1 });
    expect(headings(text)).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.WHAT_YOU_HAVE,
      HEADING.YOUR_JOB,
      HEADING.GOOD_PROCESS,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      HEADING.EDITABLE_SURFACE,
      HEADING.HOW_TO_CHANGE,
      HEADING.NOTES_FORMAT,
    ]);
    const have = sectionBody(text, HEADING.WHAT_YOU_HAVE);
    for (const p of [
      "context/task.md",
      "context/harness/",
      "context/rollouts/<label>.md",
      "context/deliverables/",
      "context/pool/<label>/",
      "context/library/",
    ]) {
      expect(have).toContain(p);
    }
    expect(have).toContain(`earlier adoptions in this ${SLOTS.domainWord}`);
  });

  test("blank lens and yardstick vanish", () => {
    const h = headings(aggregate(bareBench("tts"), OPENCODE_SURFACE, { k: 1, index: 1 }));
    expect(h).not.toContain(HEADING.LENS);
    expect(h).not.toContain(HEADING.GOOD_PROCESS);
  });

  test.each(PACKS)("%s: outcomes, KEEP_BASE and the surface's paths", (pack) => {
    const bp = bench({ promptPack: pack });
    const oc = aggregate(bp, OPENCODE_SURFACE, { k: 2, index: 2 });
    const cx = aggregate(bp, CODEX_SURFACE, { k: 2, index: 2 });
    expect(sectionBody(oc, HEADING.YOUR_JOB)).toContain(KEEP_BASE);
    expect(sectionBody(oc, HEADING.YOUR_JOB)).toContain(
      "KEEP_BASE is a real answer, not a failure",
    );
    expect(oc).toContain("skills/<name>/SKILL.md");
    expect(oc).toContain("systemprompt.md");
    expect(cx).toContain(".agents/skills/<name>/SKILL.md");
    expect(cx).toContain("AGENTS.md");
    expect(cx).not.toContain("systemprompt.md");
  });
});

describe("merging never launders an edit (docs/differences.md E6)", () => {
  test.each(PACKS)("%s", (pack) => {
    const text = aggregate(bench({ promptPack: pack }), OPENCODE_SURFACE, { k: 2, index: 1 });
    expect(text).toMatch(/\b[Mm]erging does not launder an edit/);
    expect(text).not.toMatch(/\blaunders\b/);
  });
});

describe("counts for every k (docs/differences.md E1)", () => {
  test.each(PACKS)("%s: every m/n in the text has 1 <= m <= n = k", (pack) => {
    for (let k = 1; k <= 8; k++) {
      const text = aggregate(bench({ promptPack: pack }), OPENCODE_SURFACE, { k, index: 1 });
      for (const m of text.matchAll(/\b(\d+)\/(\d+)\b/g)) {
        const [a, b] = [Number(m[1]), Number(m[2])];
        expect(b).toBe(k);
        expect(a >= 1 && a <= b).toBe(true);
      }
      expect(text).not.toContain("2/1");
    }
  });

  test("k = 1 speaks of a single base rollout, in the singular", () => {
    const text = aggregate(adapt, OPENCODE_SURFACE, { k: 1, index: 1 });
    expect(text).toContain("1 base rollout under the unmodified harness");
    expect(text).not.toContain("1 base rollouts");
    expect(sectionBody(text, HEADING.HOW_TO_WEIGH)).toContain("There is one base rollout");
    expect(sectionBody(text, HEADING.NOTES_FORMAT)).toContain("in the single base rollout");
    const four = aggregate(adapt, OPENCODE_SURFACE, { k: 4, index: 1 });
    expect(four).toContain("4 base rollouts");
    expect(sectionBody(four, HEADING.NOTES_FORMAT)).toContain("in 3/4 base rollouts");
    expect(sectionBody(four, HEADING.HOW_TO_WEIGH)).toContain("A defect in 1/4 runs is");
  });
});

describe("the k parallel composers (docs/differences.md E3)", () => {
  test.each(PACKS)("%s: each gets its index and a distinct prompt", (pack) => {
    const bp = bench({ promptPack: pack });
    for (const surface of SURFACES) {
      const texts = [1, 2, 3, 4].map((index) => aggregate(bp, surface, { k: 4, index }));
      expect(new Set(texts).size).toBe(4);
      texts.forEach((text, i) => {
        expect(text).toContain(` ${i + 1} of 4, working in parallel`);
        expect(text).toContain(COMPOSER_LEANINGS[i] as string);
      });
    }
  });

  test("the leanings cycle past four composers, and k = 1 has none", () => {
    expect(aggregate(adapt, OPENCODE_SURFACE, { k: 6, index: 5 })).toContain(
      COMPOSER_LEANINGS[0] as string,
    );
    const one = aggregate(adapt, OPENCODE_SURFACE, { k: 1, index: 1 });
    expect(one).not.toContain("working in parallel");
    for (const l of COMPOSER_LEANINGS) expect(one).not.toContain(l);
  });
});

describe("notes format", () => {
  test.each(PACKS)("%s: the line shape and an example the parser reads back", (pack) => {
    for (const k of [1, 2, 4]) {
      const body = sectionBody(
        aggregate(bench({ promptPack: pack }), CODEX_SURFACE, { k, index: 1 }),
        HEADING.NOTES_FORMAT,
      );
      expect(body).toContain("`kept|revised|dropped -> <which edit> -> ");
      expect(body).toContain("`<notes>` block");
      const example = /For example: `([^`]+)`/.exec(body)?.[1] ?? "";
      const parsed = parseDecisionLines(example);
      expect(parsed).toHaveLength(1);
      expect(parsed[0]?.decision).toBe("kept");
      expect(parsed[0]?.edit.startsWith(`inv${Math.min(k, 2)}:`)).toBe(true);
    }
  });
});

describe("bad arguments", () => {
  test("index outside 1..k", () => {
    expect(() => aggregate(adapt, OPENCODE_SURFACE, { k: 2, index: 0 })).toThrow("index 0");
    expect(() => aggregate(adapt, { name: "x", alwaysOnMax: 1 }, { k: 1, index: 1 })).toThrow(
      'surface "x"',
    );
  });
});
