// composeRound(): checkpoint t of k; round 1 talks of no earlier round, the last round composes
// THE FINAL harness, KEEP_BASE means the current checkpoint, and both packs are served.
import { describe, expect, test } from "bun:test";
import { composeRound, HEADING } from "../../../../src/core/proposer/prompts/index.ts";
import { parseDecisionLines } from "../../../../src/core/proposer/reply.ts";
import { CODEX_SURFACE } from "../../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../../src/substrate/opencode/surface.ts";
import { bareBench, bench, headings, PACKS, SLOTS, sectionBody } from "./variants.ts";

const adapt = bench();

describe("structure", () => {
  test.each(PACKS)("%s: sections in order, with the pack's surface text", (pack) => {
    const text = composeRound(bench({ promptPack: pack }), OPENCODE_SURFACE, { t: 2, k: 3 });
    const surfaceHead = pack === "tts" ? HEADING.EDITABLE_SURFACE : HEADING.WHAT_YOU_CAN_CHANGE;
    expect(headings(text)).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.WHAT_YOU_HAVE,
      HEADING.YOUR_JOB,
      HEADING.GOOD_PROCESS,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      surfaceHead,
      HEADING.HOW_TO_CHANGE,
      HEADING.NOTES_FORMAT,
    ]);
    expect(text.startsWith("You compose checkpoint 2 of 3 in a sequential adaptation loop.")).toBe(
      true,
    );
    expect(sectionBody(text, HEADING.WORK).trim()).toBe(SLOTS.work);
    expect(sectionBody(text, HEADING.GOOD_PROCESS).trim()).toBe(SLOTS.yardstick);
  });

  test("the pack names the dimensions its own way", () => {
    const a = sectionBody(
      composeRound(adapt, CODEX_SURFACE, { t: 2, k: 2 }),
      HEADING.WHAT_YOU_HAVE,
    );
    const t = sectionBody(
      composeRound(bench({ promptPack: "tts" }), CODEX_SURFACE, { t: 2, k: 2 }),
      HEADING.WHAT_YOU_HAVE,
    );
    expect(a).toContain("INV and DOM candidates (`inv2`, `dom2`)");
    expect(t).toContain("INVARIANT and DOMAIN candidates (`inv2`, `dom2`)");
  });

  test("blank lens and yardstick vanish", () => {
    const h = headings(composeRound(bareBench(), OPENCODE_SURFACE, { t: 1, k: 2 }));
    expect(h).not.toContain(HEADING.LENS);
    expect(h).not.toContain(HEADING.GOOD_PROCESS);
  });
});

describe("rounds", () => {
  test("round 1: only the base rollouts and two candidates, no earlier checkpoint", () => {
    const text = composeRound(adapt, OPENCODE_SURFACE, { t: 1, k: 3 });
    const have = sectionBody(text, HEADING.WHAT_YOU_HAVE);
    expect(have).toContain("This is the FIRST round");
    expect(have).not.toContain("earlier round");
    expect(text).not.toMatch(/\bc0\b|checkpoint 0|REPRODUCE|restored\b/);
    expect(sectionBody(text, HEADING.YOUR_JOB)).toContain(
      "keeping the base harness in `context/harness/` unchanged",
    );
    expect(sectionBody(text, HEADING.NOTES_FORMAT)).toContain("`kept|revised|dropped -> ");
  });

  test("a middle round: checkpoint t for the next round; KEEP_BASE keeps the current checkpoint", () => {
    const text = composeRound(adapt, OPENCODE_SURFACE, { t: 2, k: 3 });
    const job = sectionBody(text, HEADING.YOUR_JOB);
    expect(job).toContain("Compose checkpoint 2, the harness the next round builds on.");
    expect(job).not.toContain("FINAL");
    expect(job).toContain("keeping the CURRENT checkpoint (c1) in `context/harness/`");
    expect(job).toContain("not the original base harness");
    for (const outcome of [
      "MERGE across rounds",
      "REPRODUCE an earlier checkpoint",
      "ADOPT this round's best candidate",
      "KEEP_BASE",
    ]) {
      expect(job).toContain(outcome);
    }
    expect(sectionBody(text, HEADING.WHAT_YOU_HAVE)).toContain(
      "(`c1`) is this round's on-policy evidence",
    );
    const format = sectionBody(text, HEADING.NOTES_FORMAT);
    expect(format).toContain("`kept|revised|dropped|restored -> ");
    expect(parseDecisionLines(/For example: `([^`]+)`/.exec(format)?.[1] ?? "")).toHaveLength(1);
  });

  test("the last round composes THE FINAL harness from the whole history", () => {
    const job = sectionBody(composeRound(adapt, CODEX_SURFACE, { t: 3, k: 3 }), HEADING.YOUR_JOB);
    expect(job).toContain("Compose THE FINAL harness of the loop from the WHOLE history.");
    expect(job).not.toContain("next round builds on");
  });

  test("t outside 1..k is refused", () => {
    expect(() => composeRound(adapt, OPENCODE_SURFACE, { t: 4, k: 3 })).toThrow(
      "t 4 is not allowed",
    );
    expect(() => composeRound(adapt, OPENCODE_SURFACE, { t: 0, k: 3 })).toThrow("t 0");
  });
});
