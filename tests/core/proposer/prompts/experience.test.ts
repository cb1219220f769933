// experience(): the reflection's sections, every protocol token its parser needs, one text for
// both packs, and a format template that the parsers never mistake for a lesson.
import { describe, expect, test } from "bun:test";
import {
  experience,
  experienceRepair,
  HEADING,
} from "../../../../src/core/proposer/prompts/index.ts";
import {
  EDIT_KEYS,
  EDIT_VERDICTS,
  EXPERIENCE_KEYS,
  NO_ENTRY,
  parseEdits,
  parseExperience,
} from "../../../../src/core/proposer/reply.ts";
import { forbiddenWordsIn } from "../../../../src/core/seams/bench-prompts.ts";
import { bareBench, bench, headings, SLOTS, sectionBody } from "./variants.ts";

describe("experience", () => {
  const text = experience(bench());

  test("sections in the spec's order", () => {
    expect(headings(text)).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.ADOPTED_IS_NOT_ONLY_EVIDENCE,
      HEADING.WHAT_EACH_EDIT_DID,
      HEADING.ONE_LESSON,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      HEADING.OUTPUT_FORMAT,
    ]);
    expect(headings(experience(bareBench()))).not.toContain(HEADING.LENS);
    expect(sectionBody(text, HEADING.WORK).trim()).toBe(SLOTS.work);
    expect(text).not.toContain(SLOTS.yardstick);
  });

  test("one text for both packs", () => {
    expect(experience(bench({ promptPack: "tts" }))).toBe(text);
  });

  test("every token the parser reads is asked for", () => {
    const out = sectionBody(text, HEADING.OUTPUT_FORMAT);
    for (const tag of ["<edits>", "</edits>", "<experience>", "</experience>"])
      expect(out).toContain(tag);
    for (const key of [...EDIT_KEYS, ...EXPERIENCE_KEYS])
      expect(out).toMatch(new RegExp(`^${key}: `, "m"));
    for (const v of EDIT_VERDICTS)
      expect(sectionBody(text, HEADING.WHAT_EACH_EDIT_DID)).toContain(`\`${v}\``);
    expect(sectionBody(text, HEADING.ONE_LESSON)).toContain(
      `the single line \`${NO_ENTRY}\` in place of the \`<experience>\` block`,
    );
    expect(sectionBody(text, HEADING.WHAT_EACH_EDIT_DID)).toContain("context/base_harness/");
    expect(sectionBody(text, HEADING.ADOPTED_IS_NOT_ONLY_EVIDENCE)).toContain(
      "not which edit worked",
    );
  });

  test("the format template parses as no rows and no lesson", () => {
    expect(parseEdits(text)?.rows).toEqual([]);
    const withoutNoEntry = text.replaceAll(NO_ENTRY, "");
    expect(parseExperience(withoutNoEntry).kind).toBe("error");
  });

  test("the repair text states the problem and both usable shapes, and names no measurement", () => {
    const repair = experienceRepair("Problem: the <experience> block lacks a non-empty evidence:.");
    expect(headings(repair)).toEqual(["Your previous reply could not be used"]);
    expect(repair).toContain("lacks a non-empty evidence:");
    for (const token of ["<edits>", "<experience>", "cue:", "lesson:", "evidence:", NO_ENTRY]) {
      expect(repair).toContain(token);
    }
    expect(forbiddenWordsIn(repair)).toEqual([]);
    expect(repair.endsWith("\n")).toBe(true);
    expect(repair).not.toContain("\n\n\n");
  });
});
