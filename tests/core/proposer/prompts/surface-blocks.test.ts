// The per-surface "what you can change" texts: the surface enters only by name, the cap comes
// from the surface value, tts texts are complete, and every text ends with the edit protocol.
import { describe, expect, test } from "bun:test";
import { HEADING } from "../../../../src/core/proposer/prompts/index.ts";
import {
  loopLever,
  surfaceBlock,
  triggerSentence,
} from "../../../../src/core/proposer/prompts/surface-blocks.ts";
import { CODEX_SURFACE } from "../../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../../src/substrate/opencode/surface.ts";
import { headings, PACKS, SURFACES } from "./variants.ts";

describe("surfaceBlock", () => {
  test.each(PACKS)("%s: every text ends with HOW-TO-CHANGE and the one-<notes> rule", (pack) => {
    for (const surface of SURFACES) {
      const text = surfaceBlock(surface, pack);
      expect(headings(`\n${text}`).at(-1)).toBe(HEADING.HOW_TO_CHANGE);
      expect(text.trimEnd()).toEndWith("no machine applies them.");
      expect(text).toContain("The shape of the deliverable belongs to the request.");
    }
  });

  test("adapt opencode: the table, the pitfalls, the preference order and the three discard rules", () => {
    const text = surfaceBlock(OPENCODE_SURFACE, "adapt");
    expect(headings(`\n${text}`)).toEqual([HEADING.WHAT_YOU_CAN_CHANGE, HEADING.HOW_TO_CHANGE]);
    const order = ["1. SKILL", "2. SCRIPT", "3. SUBAGENT", "4. PLUGIN", "5. ALWAYS-ON"].map((s) =>
      text.indexOf(s),
    );
    expect(order.every((at, i) => at > 0 && (i === 0 || at > (order[i - 1] as number)))).toBe(true);
    expect(text).toContain("Three rules make validation discard your whole proposal");
    expect(text).toContain("`{{ … }}`");
  });

  test("adapt codex: hooks instead of plugins, never-empty AGENTS.md, no template-brace rule", () => {
    const text = surfaceBlock(CODEX_SURFACE, "adapt");
    expect(text).toContain("4. HOOK");
    expect(text).not.toContain("PLUGIN");
    expect(text).toContain("`AGENTS.md` must never be left empty or deleted");
    expect(text).not.toContain("{{");
    expect(text).toContain("a PreToolUse command can deny a call");
  });

  test("tts heads carry component ids; opencode explains c6's two homes", () => {
    const oc = surfaceBlock(OPENCODE_SURFACE, "tts");
    const cx = surfaceBlock(CODEX_SURFACE, "tts");
    expect(headings(`\n${oc}`)[0]).toBe(HEADING.EDITABLE_SURFACE);
    expect(oc).toContain("| `guardrails.md` | c6 (rules) |");
    expect(oc).toContain("| `skills/<name>/SKILL.md` | c6 (skills) |");
    expect(oc).toContain("Component c6 has two homes");
    expect(oc).toContain("`@opencode-ai/plugin`");
    expect(cx).toContain("| `AGENTS.md` | c1/c3/c4/c6 |");
    // Complete where the original's tts copy was not: stdin fields and the PreToolUse deny.
    expect(cx).toContain("`tool_name`, `tool_input`");
    expect(cx).toContain("a PreToolUse command can deny a call");
  });

  test("the always-on cap comes from the surface value", () => {
    expect(surfaceBlock(CODEX_SURFACE, "adapt")).toContain("hard-capped at 8,000 characters");
    expect(surfaceBlock(OPENCODE_SURFACE, "tts")).toContain("capped at 24,000 characters");
    expect(surfaceBlock({ name: "codex", alwaysOnMax: 1234 }, "tts")).toContain(
      "hard-capped at 1,234 characters",
    );
  });

  test("unknown surfaces are refused", () => {
    expect(() => surfaceBlock({ name: "aider", alwaysOnMax: 1 }, "adapt")).toThrow(
      'surface "aider"',
    );
  });
});

describe("per-surface phrases", () => {
  test("loop lever and trigger sentence", () => {
    expect(loopLever(OPENCODE_SURFACE, "report")).toContain("`plugin/<name>.ts`");
    expect(loopLever(OPENCODE_SURFACE, "report")).toContain("before a report exists");
    expect(loopLever(CODEX_SURFACE, "report")).toContain("`.codex/hooks.json`");
    expect(triggerSentence(CODEX_SURFACE)).toContain("`AGENTS.md`");
    expect(triggerSentence(OPENCODE_SURFACE)).toContain("always-on text");
  });
});
