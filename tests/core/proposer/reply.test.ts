// Reply-protocol parsers on many reply shapes: tags missing, unclosed, repeated, mis-cased; the
// selector's choice fence; the reflection's edit rows, lesson and NO_ENTRY.
import { describe, expect, test } from "bun:test";
import {
  closedTagBlocks,
  confidenceLevel,
  extractNotes,
  firstTagBlock,
  parseDecisionLines,
  parseEdits,
  parseExperience,
  parseSelection,
  saysKeepBase,
  WHY_MAX,
} from "../../../src/core/proposer/reply.ts";

describe("firstTagBlock", () => {
  test("finds a block among other text, trimmed", () => {
    expect(firstTagBlock("before <notes>\n  hello \n</notes> after", "notes")).toEqual({
      body: "hello",
      closed: true,
    });
  });
  test("the first complete block wins over later ones", () => {
    const b = firstTagBlock("<notes>one</notes>\n<notes>two</notes>", "notes");
    expect(b?.body).toBe("one");
  });
  test("a stray earlier opening tag does not swallow the block", () => {
    const b = firstTagBlock("I will now write <notes> as asked.\n<notes>real</notes>", "notes");
    expect(b?.body).toBe("real");
  });
  test("tags match in any case and with inner spaces", () => {
    expect(firstTagBlock("<NOTES>x</Notes>", "notes")?.body).toBe("x");
    expect(firstTagBlock("< notes >y</ notes >", "notes")?.body).toBe("y");
  });
  test("an unclosed block runs to the end", () => {
    expect(firstTagBlock("text <notes>\nkept everything", "notes")).toEqual({
      body: "kept everything",
      closed: false,
    });
  });
  test("no opening tag gives null", () => {
    expect(firstTagBlock("just text </notes>", "notes")).toBeNull();
  });
});

describe("closedTagBlocks", () => {
  test("every complete block in order; an unclosed tail is not one", () => {
    expect(closedTagBlocks("<edits>a</edits> x <edits> b </edits> <edits>c", "edits")).toEqual([
      "a",
      "b",
    ]);
    expect(closedTagBlocks("no blocks", "edits")).toEqual([]);
  });
});

describe("extractNotes", () => {
  test("the tagged block", () => {
    expect(extractNotes("thinking…\n<notes>\n- changed x\n</notes>\n")).toEqual({
      notes: "- changed x",
      tagged: true,
    });
  });
  test("no block: the whole reply, trimmed", () => {
    expect(extractNotes("\n  I changed the skill.  \n")).toEqual({
      notes: "I changed the skill.",
      tagged: false,
    });
  });
  test("an empty block stays empty and tagged", () => {
    expect(extractNotes("<notes></notes>")).toEqual({ notes: "", tagged: true });
  });
});

describe("saysKeepBase", () => {
  test.each([
    ["KEEP_BASE", true],
    ["keep_base — nothing warranted", true],
    ["Decision: Keep-Base.", true],
    ["`KEEP BASE`", true],
    ["KEEP_BASELINE", false],
    ["keep the base rollout in mind", false],
    ["MY_KEEP_BASE", false],
    ["", false],
  ])("%p → %p", (text, want) => {
    expect(saysKeepBase(text)).toBe(want);
  });
});

describe("parseDecisionLines", () => {
  test("plain, bulleted, numbered and decorated lines; other lines skipped", () => {
    const notes = [
      "Summary of my work:",
      "kept -> inv1 re-open check -> unreadable output in 2/3 base rollouts",
      "- **dropped** → dom2 memory line → no rollout shows the need",
      "2. `Revised` -> inv2 script -> it crashed on empty input (inv2 rollout, step 14)",
      "restored -> c1 skill -> round 2 lost the trigger and the c2 rollout stalled",
      "dropped -> missing evidence part",
    ].join("\n");
    expect(parseDecisionLines(notes)).toEqual([
      {
        decision: "kept",
        edit: "inv1 re-open check",
        evidence: "unreadable output in 2/3 base rollouts",
      },
      { decision: "dropped", edit: "dom2 memory line", evidence: "no rollout shows the need" },
      {
        decision: "revised",
        edit: "inv2 script",
        evidence: "it crashed on empty input (inv2 rollout, step 14)",
      },
      {
        decision: "restored",
        edit: "c1 skill",
        evidence: "round 2 lost the trigger and the c2 rollout stalled",
      },
    ]);
  });
  test("no decision lines gives an empty list", () => {
    expect(parseDecisionLines("KEEP_BASE")).toEqual([]);
  });
});

describe("parseSelection", () => {
  const ids = ["A", "B", "C"];
  test("multi-line fence after a why block", () => {
    const r = parseSelection("<why>\nB is complete.\n</why>\n\n```choice\nB\n```\n", ids);
    expect(r).toEqual({ ok: true, id: "B", why: "B is complete." });
  });
  test("single-line fence", () => {
    expect(parseSelection("```choice C```", ids)).toEqual({ ok: true, id: "C", why: "" });
  });
  test("info string and id in another case", () => {
    expect(parseSelection("```Choice\nb\n```", ids)).toMatchObject({ ok: true, id: "B" });
  });
  test("an exact id wins over a case-folded one", () => {
    expect(parseSelection("```choice\nab\n```", ["AB", "ab"])).toMatchObject({
      ok: true,
      id: "ab",
    });
  });
  test("an echoed <id> template is skipped and the real fence decides", () => {
    const reply = "Format: ```choice\n<id>\n```\n<why>A wins</why>\n```choice\nA\n```";
    expect(parseSelection(reply, ids)).toEqual({ ok: true, id: "A", why: "A wins" });
  });
  test("the last valid fence wins when two disagree (docs/differences.md S1)", () => {
    expect(parseSelection("```choice\nA\n```\n```choice\nC\n```", ids)).toMatchObject({
      ok: true,
      id: "C",
    });
  });
  test("an earlier choice of A and a last choice of B picks B", () => {
    const reply =
      "First I leaned to\n```choice\nA\n```\n<why>B handles the edge case A misses.</why>\n\n```choice\nB\n```\n";
    expect(parseSelection(reply, ids)).toEqual({
      ok: true,
      id: "B",
      why: "B handles the edge case A misses.",
    });
  });
  test("a last fence naming no candidate is an error, not the earlier valid fence", () => {
    const r = parseSelection("```choice\nA\n```\nOn reflection:\n```choice\nZ\n```", ids);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe("the choice 'Z' is not one of the candidates (A, B, C)");
  });
  test("a template echoed after the real fence is skipped", () => {
    const reply = "```choice\nB\n```\nas asked: ```choice\n<id>\n```";
    expect(parseSelection(reply, ids)).toMatchObject({ ok: true, id: "B" });
  });
  test("other code fences are ignored", () => {
    const reply = "```python\nprint(1)\n```\n```choice\n  C  \n```";
    expect(parseSelection(reply, ids)).toMatchObject({ ok: true, id: "C" });
  });
  test("no fence is an error that still keeps the why", () => {
    const r = parseSelection("<why>close call</why>\nI pick B.", ids);
    expect(r).toEqual({ ok: false, error: "the reply has no ```choice block", why: "close call" });
  });
  test("a fence with a sentence is an error", () => {
    const r = parseSelection("```choice\nB because it is best\n```", ids);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("single id");
  });
  test("an unknown id is an error naming the candidates", () => {
    const r = parseSelection("```choice\nZ\n```", ids);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe("the choice 'Z' is not one of the candidates (A, B, C)");
  });
  test("an unclosed fence is not a choice", () => {
    expect(parseSelection("```choice\nA", ids).ok).toBe(false);
  });
  test("why is cut to WHY_MAX and an unclosed why is dropped", () => {
    const long = "x".repeat(WHY_MAX + 50);
    const r = parseSelection(`<why>${long}</why>\n\`\`\`choice\nA\n\`\`\``, ids);
    expect(r.why.length).toBe(WHY_MAX);
    expect(parseSelection("<why>dangling\n```choice\nA\n```", ids).why).toBe("");
  });
});

const EDITS = `<edits>
component: skills/reconcile/SKILL.md
candidates: inv1, agg2
change: added a reconcile-before-join step
observed: inv1 listed 3 unmatched rows that base1 silently dropped (rollouts/inv1.md step 22)
verdict: helped

- **component**: guardrails.md
- candidates: dom1
- change: two new rules
- observed: no difference in any run
- verdict: No Observed Effect

component: scripts/check.py
candidates: dom2
change: new script
observed: never run
verdict: maybe
</edits>`;

describe("parseEdits", () => {
  test("rows in order, bullets and bold keys, verdicts normalised or null", () => {
    const e = parseEdits(`preamble\n${EDITS}\nafter`);
    expect(e?.rows.map((r) => [r.component, r.verdict])).toEqual([
      ["skills/reconcile/SKILL.md", "helped"],
      ["guardrails.md", "no observed effect"],
      ["scripts/check.py", null],
    ]);
    expect(e?.rows[0]?.observed).toContain("step 22");
    expect(e?.rows[2]?.verdictText).toBe("maybe");
    expect(e?.text.startsWith("component: skills/reconcile/SKILL.md")).toBe(true);
  });
  test("a repeated key starts a new row even without component first", () => {
    const e = parseEdits("<edits>\ncomponent: a\nverdict: hurt\nverdict: helped\n</edits>");
    expect(e?.rows).toHaveLength(1);
    expect(e?.rows[0]?.verdict).toBe("hurt");
  });
  test("an unclosed block stops at the experience block", () => {
    const e = parseEdits(
      "<edits>\ncomponent: a\nverdict: hurt\n<experience>\ncue: x\n</experience>",
    );
    expect(e?.text).toBe("component: a\nverdict: hurt");
  });
  test("an echoed template of placeholders does not hide the real block", () => {
    const e = parseEdits(
      "<edits>\ncomponent: <path>\nverdict: <helped | hurt>\n</edits>\n<edits>\ncomponent: a.md\nverdict: hurt\n</edits>",
    );
    expect(e?.rows.map((r) => r.component)).toEqual(["a.md"]);
  });
  test("no edits tag gives null", () => {
    expect(parseEdits("nothing")).toBeNull();
  });
});

const LESSON = `<experience>
cue: several acts must happen in sequence and one ends the actor's authority
lesson: in the drafting skill, put the authority-ending act last
evidence: row skills/reconcile/SKILL.md (helped)
confidence: medium — one rollout per side
</experience>`;

describe("parseExperience", () => {
  test("a complete lesson with edits", () => {
    const r = parseExperience(`${EDITS}\n\n${LESSON}`);
    expect(r.kind).toBe("entry");
    if (r.kind !== "entry") return;
    expect(r.entry).toEqual({
      cue: "several acts must happen in sequence and one ends the actor's authority",
      lesson: "in the drafting skill, put the authority-ending act last",
      evidence: "row skills/reconcile/SKILL.md (helped)",
      confidence: "medium — one rollout per side",
    });
    expect(r.edits?.rows).toHaveLength(3);
  });
  test("bold, bulleted and capitalised keys; multi-line values kept", () => {
    const r = parseExperience(
      "<experience>\n**Cue:** a join across files\n- **lesson**: reconcile first\n  then list leftovers\nEvidence: row 1\n</experience>",
    );
    expect(r).toMatchObject({
      kind: "entry",
      entry: {
        cue: "a join across files",
        lesson: "reconcile first\nthen list leftovers",
        evidence: "row 1",
        confidence: "",
      },
    });
  });
  test("a later duplicate key overwrites", () => {
    const r = parseExperience(
      "<experience>\ncue: a\ncue: b\nlesson: l\nevidence: e\n</experience>",
    );
    expect(r.kind === "entry" && r.entry.cue).toBe("b");
  });
  test("NO_ENTRY in place of the block, with edits kept", () => {
    const r = parseExperience(`${EDITS}\n\nNO_ENTRY\n`);
    expect(r.kind).toBe("no_entry");
    expect(r.edits?.rows).toHaveLength(3);
  });
  test("NO_ENTRY inside the block, any case", () => {
    expect(parseExperience("<experience>\n`no_entry`\n</experience>").kind).toBe("no_entry");
  });
  test("an incomplete block plus NO_ENTRY is no_entry", () => {
    expect(parseExperience("<experience>\ncue: x\n</experience>\nNO_ENTRY").kind).toBe("no_entry");
  });
  test("placeholders from an echoed template count as empty", () => {
    const r = parseExperience(
      "<experience>\ncue: <the situation>\nlesson: …\nevidence: <rows>\n</experience>",
    );
    expect(r).toMatchObject({
      kind: "error",
      error: "the <experience> block lacks a non-empty cue:, lesson:, evidence:",
    });
  });
  test("a value of mere placeholders and punctuation is empty; real text around one is kept", () => {
    const r = parseExperience(
      "<experience>\ncue: c\nlesson: use <b>bold</b> headers\nevidence: e\nconfidence: <high | medium | low>, <why>\n</experience>",
    );
    expect(r).toMatchObject({
      kind: "entry",
      entry: { lesson: "use <b>bold</b> headers", confidence: "" },
    });
  });
  test("missing evidence is an error naming it", () => {
    const r = parseExperience("<experience>\ncue: c\nlesson: l\n</experience>");
    expect(r).toMatchObject({ kind: "error", error: expect.stringContaining("evidence:") });
  });
  test("an unclosed block at the end still parses", () => {
    const r = parseExperience("<experience>\ncue: c\nlesson: l\nevidence: e");
    expect(r).toMatchObject({ kind: "entry", entry: { cue: "c", lesson: "l", evidence: "e" } });
  });
  test("nothing at all is an error", () => {
    expect(parseExperience("I could not decide.")).toMatchObject({
      kind: "error",
      error: "the reply has neither an <experience> block nor NO_ENTRY",
      edits: null,
    });
  });
  test("an echoed template does not hide the real lesson", () => {
    const r = parseExperience(
      `<experience>\ncue: <the shape of the situation>\nlesson: <…>\nevidence: <rows>\n</experience>\n${LESSON}`,
    );
    expect(r.kind === "entry" && r.entry.evidence).toBe("row skills/reconcile/SKILL.md (helped)");
  });
  test("the first complete block wins", () => {
    const r = parseExperience(
      `${LESSON}\n<experience>\ncue: z\nlesson: z\nevidence: z\n</experience>`,
    );
    expect(r.kind === "entry" && r.entry.lesson).toBe(
      "in the drafting skill, put the authority-ending act last",
    );
  });
});

describe("confidenceLevel", () => {
  test.each([
    ["high — three rollouts agree", "high"],
    ["**Medium**: one rollout", "medium"],
    ["(low) guess", "low"],
    ["unsure", null],
    ["", null],
  ])("%p → %p", (text, want) => {
    expect(confidenceLevel(text)).toBe(want as "high" | "medium" | "low" | null);
  });
});
