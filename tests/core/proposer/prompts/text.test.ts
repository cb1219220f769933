// The prompt text plumbing: sections that vanish when blank, tidy joining, the prose reflow tag,
// counted nouns, argument checks and the surface lookup.
import { describe, expect, test } from "bun:test";
import {
  checkK,
  counted,
  PromptInputError,
  prose,
  section,
  surfaceName,
  thousands,
  tidy,
} from "../../../../src/core/proposer/prompts/text.ts";

describe("section and tidy", () => {
  test("a section is a level-1 heading, a blank line and the trimmed body", () => {
    expect(section("Title", "\n body \n")).toBe("# Title\n\nbody");
  });
  test("a blank body gives no section at all", () => {
    expect(section("Title", "  \n ")).toBe("");
  });
  test("tidy drops empty parts without gaps and ends with one newline", () => {
    expect(tidy(["a", "", section("X", ""), "b\n\n\n\nc", ""])).toBe("a\n\nb\n\nc\n");
  });
});

describe("prose", () => {
  test("single breaks inside a paragraph become spaces, indentation dropped", () => {
    expect(prose`one
two
   three`).toBe("one two three");
  });
  test("blank lines, list items, table rows, headings and numbered items keep their breaks", () => {
    const text = prose`para one
continues

- item one
  continues
- item two
| a | b |
|---|---|
# Head
1. first
2. second`;
    expect(text).toBe(
      "para one continues\n\n- item one continues\n- item two\n| a | b |\n|---|---|\n# Head\n1. first\n2. second",
    );
  });
  test("fenced code is left alone, and the line after a fence keeps its break", () => {
    const text = prose`before
\`\`\`
line one
line two
\`\`\`
after`;
    expect(text).toBe("before\n```\nline one\nline two\n```\nafter");
  });
  test("interpolated values are inserted verbatim, never reflowed", () => {
    const value = "keep\nthese\nbreaks";
    expect(prose`start ${value} end`).toBe("start keep\nthese\nbreaks end");
  });
  test("a break before or after a value joins unless the value starts a list item or is blank", () => {
    expect(prose`the
${"domain"} word`).toBe("the domain word");
    expect(prose`list:
${"- a"}`).toBe("list:\n- a");
    expect(prose`x

${""}

y`).toBe("x\n\n\n\ny");
  });
});

describe("small helpers", () => {
  test("counted", () => {
    expect(counted(1, "base rollout")).toBe("1 base rollout");
    expect(counted(3, "base rollout")).toBe("3 base rollouts");
  });
  test("thousands", () => {
    expect(thousands(24000)).toBe("24,000");
  });
  test("checkK accepts 1 <= value <= k and names the bad field", () => {
    expect(() => checkK(3, { index: 3, roundT: undefined })).not.toThrow();
    expect(() => checkK(0)).toThrow(PromptInputError);
    expect(() => checkK(2.5)).toThrow("k 2.5 is not allowed: a positive integer");
    expect(() => checkK(2, { index: 3 })).toThrow(
      "index 3 is not allowed: an integer from 1 to k (2)",
    );
    expect(() => checkK(2, { roundT: 0 })).toThrow("roundT 0");
  });
  test("surfaceName knows opencode and codex only", () => {
    expect(surfaceName({ name: "codex", alwaysOnMax: 1 })).toBe("codex");
    try {
      surfaceName({ name: "claude", alwaysOnMax: 1 });
      throw new Error("no throw");
    } catch (err) {
      expect(err).toBeInstanceOf(PromptInputError);
      expect((err as PromptInputError).field).toBe("surface");
      expect((err as Error).message).toBe('surface "claude" is not allowed: opencode or codex');
    }
  });
});
