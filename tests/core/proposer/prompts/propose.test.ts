// propose(): section structure per pack, BenchPrompts slots, surface paths and phrases, the
// protocol tokens, the parallel "candidate i of k" sentence and the sequential round paragraph.
import { describe, expect, test } from "bun:test";
import { HEADING, PromptInputError, propose } from "../../../../src/core/proposer/prompts/index.ts";
import { KEEP_BASE } from "../../../../src/core/proposer/reply.ts";
import { CODEX_SURFACE } from "../../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../../src/substrate/opencode/surface.ts";
import { bareBench, bench, headings, SLOTS, sectionBody } from "./variants.ts";

const adapt = bench();
const tts = bench({ promptPack: "tts" });
const GENERALIZE_ADAPT = `Ground it in this workspace; shape it for the ${SLOTS.domainWord.toUpperCase()}`;

describe("adapt propose", () => {
  test("sections in the spec's order", () => {
    const text = propose(adapt, "INV", OPENCODE_SURFACE, { k: 2, index: 1 });
    expect(headings(text)).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.DIM_INV,
      GENERALIZE_ADAPT,
      HEADING.HOW_TO_DECIDE,
      HEADING.GOOD_PROCESS,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      HEADING.WHAT_YOU_CAN_CHANGE,
      HEADING.HOW_TO_CHANGE,
    ]);
    expect(headings(propose(adapt, "DOM", OPENCODE_SURFACE, { k: 2, index: 1 }))[2]).toBe(
      HEADING.DIM_DOM,
    );
  });

  test("optional sections vanish when their slot is blank", () => {
    const h = headings(propose(bareBench(), "INV", OPENCODE_SURFACE, { k: 1, index: 1 }));
    expect(h).not.toContain(HEADING.LENS);
    expect(h).not.toContain(HEADING.GOOD_PROCESS);
    expect(h).toContain(HEADING.WORK);
  });

  test("slots land in their sections; each dimension gets only its own levers", () => {
    const inv = propose(adapt, "INV", OPENCODE_SURFACE, { k: 1, index: 1 });
    const dom = propose(adapt, "DOM", OPENCODE_SURFACE, { k: 1, index: 1 });
    expect(sectionBody(inv, HEADING.WORK).trim()).toBe(SLOTS.work);
    expect(sectionBody(inv, HEADING.LENS).trim()).toBe(SLOTS.domainGuidance);
    expect(sectionBody(inv, HEADING.GOOD_PROCESS).trim()).toBe(SLOTS.yardstick);
    expect(sectionBody(inv, HEADING.DIM_INV)).toContain(SLOTS.invLevers);
    expect(inv).not.toContain(SLOTS.domLevers);
    expect(sectionBody(dom, HEADING.DIM_DOM)).toContain(SLOTS.domLevers);
    expect(dom).not.toContain(SLOTS.invLevers);
    expect(sectionBody(inv, HEADING.DIM_INV)).toContain(`check the ${SLOTS.deliverableWord}`);
    expect(sectionBody(dom, GENERALIZE_ADAPT)).toContain(`true across the ${SLOTS.domainWord}`);
    for (const text of [inv, dom]) {
      expect(text).not.toContain(SLOTS.selectionChecks);
      expect(text).not.toContain(SLOTS.selectionLead);
    }
  });

  test("the loop lever and trigger sentence follow the surface", () => {
    const ocInv = sectionBody(
      propose(adapt, "INV", OPENCODE_SURFACE, { k: 1, index: 1 }),
      HEADING.DIM_INV,
    );
    const cxInv = sectionBody(
      propose(adapt, "INV", CODEX_SURFACE, { k: 1, index: 1 }),
      HEADING.DIM_INV,
    );
    expect(ocInv).toContain(
      `\`plugin/<name>.ts\` hook, e.g. one that stops the agent from finishing before a ${SLOTS.deliverableWord} exists`,
    );
    expect(cxInv).toContain(
      `a hook in \`.codex/hooks.json\`, e.g. one that blocks finishing before a ${SLOTS.deliverableWord} exists`,
    );
    const ocDom = sectionBody(
      propose(adapt, "DOM", OPENCODE_SURFACE, { k: 1, index: 1 }),
      HEADING.DIM_DOM,
    );
    const cxDom = sectionBody(
      propose(adapt, "DOM", CODEX_SURFACE, { k: 1, index: 1 }),
      HEADING.DIM_DOM,
    );
    expect(ocDom).toContain("appears in the always-on text, so write its trigger line");
    expect(cxDom).toContain("appears in `AGENTS.md`, so write its trigger line there");
  });

  test("the opencode text names opencode paths and never codex ones", () => {
    const text = propose(adapt, "DOM", OPENCODE_SURFACE, { k: 1, index: 1 });
    for (const p of [
      "systemprompt.md",
      "guardrails.md",
      "LongTermMEMORY.md",
      "tool_descriptions/tool_guidance.md",
      "skills/<name>/SKILL.md",
      "sub_agents/<name>/AGENT.md",
      "scripts/<name>.py",
      "plugin/<name>.ts",
      "mode: subagent",
    ]) {
      expect(text).toContain(p);
    }
    for (const p of ["AGENTS.md", ".agents/skills", ".codex/hooks.json"])
      expect(text).not.toContain(p);
  });

  test("the codex text names codex paths and never opencode ones", () => {
    const text = propose(adapt, "INV", CODEX_SURFACE, { k: 1, index: 1 });
    for (const p of [
      "AGENTS.md",
      ".agents/skills/<name>/SKILL.md",
      ".agents/skills/<skill>/scripts/<file>.py",
      ".codex/hooks.json",
      "PostToolUse",
      '"decision": "block"',
      "8,000 characters",
    ]) {
      expect(text).toContain(p);
    }
    for (const p of ["systemprompt.md", "guardrails.md", "plugin/<name>.ts", "mode: subagent"]) {
      expect(text).not.toContain(p);
    }
  });

  test("protocol: edit in place, one <notes> block, KEEP_BASE", () => {
    const body = sectionBody(
      propose(adapt, "INV", CODEX_SURFACE, { k: 1, index: 1 }),
      HEADING.HOW_TO_CHANGE,
    );
    expect(body).toContain("context/harness/");
    expect(body).toContain("exactly one `<notes>` block");
    expect(body).toContain(`\`${KEEP_BASE}\``);
  });
});

describe("tts propose", () => {
  test("sections in the spec's order, with the tts blocks", () => {
    const text = propose(tts, "INV", OPENCODE_SURFACE, { k: 2, index: 2 });
    expect(headings(text)).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.DIM_INVARIANT,
      HEADING.GENERALIZE_TTS,
      HEADING.HOW_TO_READ,
      HEADING.GOOD_PROCESS,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      HEADING.EDITABLE_SURFACE,
      HEADING.HOW_TO_CHANGE,
    ]);
    expect(
      text.startsWith(
        `You are the INVARIANT harness editor for one task in this ${SLOTS.domainWord}.`,
      ),
    ).toBe(true);
    const dom = propose(tts, "DOM", CODEX_SURFACE, { k: 2, index: 2 });
    expect(headings(dom)[2]).toBe(HEADING.DIM_DOMAIN);
    expect(dom.startsWith("You are the DOMAIN harness editor")).toBe(true);
  });

  test("the packs disagree on task facts on purpose, each consistently", () => {
    const a = propose(adapt, "DOM", OPENCODE_SURFACE, { k: 1, index: 1 });
    const t = propose(tts, "DOM", OPENCODE_SURFACE, { k: 1, index: 1 });
    expect(a).toContain('anchored as "In this workspace, …"');
    expect(a).toContain("never phrase it as a durable truth in long-term memory");
    expect(t).toContain("Findings specific to this task belong in your notes, not in the harness");
    expect(t).not.toContain("In this workspace");
  });

  test("HOW-TO-READ does not talk of replicates when there is one base rollout", () => {
    const one = sectionBody(
      propose(tts, "INV", OPENCODE_SURFACE, { k: 1, index: 1 }),
      HEADING.HOW_TO_READ,
    );
    const many = sectionBody(
      propose(tts, "INV", OPENCODE_SURFACE, { k: 4, index: 1 }),
      HEADING.HOW_TO_READ,
    );
    expect(one).toContain("no replicates to compare");
    expect(many).toContain("Variance between replicates is the signal");
  });

  test("the tts surface text keeps the deliverable-shape paragraph and the discard rules", () => {
    const oc = propose(tts, "INV", OPENCODE_SURFACE, { k: 1, index: 1 });
    const cx = propose(tts, "INV", CODEX_SURFACE, { k: 1, index: 1 });
    for (const text of [oc, cx])
      expect(text).toContain("The shape of the deliverable belongs to the request");
    expect(oc).toContain("Three rules make validation discard your whole proposal");
    expect(oc).toContain("Never write `AGENTS.md` or `harness.yaml`");
    expect(cx).toContain("`AGENTS.md` must never be left empty or deleted");
  });
});

describe("where the proposer stands", () => {
  const CANDIDATE = /candidate \d+ of \d+/;
  test.each(["adapt", "tts"] as const)(
    "%s: a lone parallel candidate gets no index sentence",
    (pack) => {
      const text = propose(bench({ promptPack: pack }), "INV", OPENCODE_SURFACE, {
        k: 1,
        index: 1,
      });
      expect(text).not.toMatch(CANDIDATE);
      expect(text).not.toContain("sequential loop");
    },
  );

  test.each(["adapt", "tts"] as const)(
    "%s: parallel candidate i of k, drawn independently",
    (pack) => {
      const text = propose(bench({ promptPack: pack }), "DOM", CODEX_SURFACE, { k: 4, index: 3 });
      expect(text).toContain("candidate 3 of 4 on this dimension, drawn independently");
      expect(text).not.toContain("sequential loop");
    },
  );

  test.each(["adapt", "tts"] as const)(
    "%s: a sequential round is never called an independent candidate",
    (pack) => {
      for (let t = 1; t <= 4; t++) {
        const text = propose(bench({ promptPack: pack }), "INV", OPENCODE_SURFACE, {
          k: 4,
          index: t,
          roundT: t,
        });
        expect(text).toContain(`round ${t} of 4 of a sequential loop`);
        expect(text).not.toMatch(CANDIDATE);
        expect(text).not.toContain("drawn independently");
        expect(text).toContain(
          t === 1 ? "(in round 1 that is the base harness)" : "never reset it",
        );
      }
    },
  );

  test("round 1 edits the base harness; later rounds edit the previous checkpoint", () => {
    const r1 = propose(adapt, "DOM", OPENCODE_SURFACE, { k: 3, index: 1, roundT: 1 });
    expect(r1).toContain("You edit the base harness; no earlier round exists yet.");
    expect(r1).not.toMatch(/checkpoint 0|c0\b/);
    expect(r1).toContain("checkpoint 1, which the next round builds on");
    const r3 = propose(adapt, "DOM", OPENCODE_SURFACE, { k: 3, index: 3, roundT: 3 });
    expect(r3).toContain("You edit checkpoint 2, the harness the previous round composed");
    expect(r3).toContain("`context/pool/c2/rollout.md`");
    expect(r3).toContain("checkpoint 3, the loop's final harness");
  });

  test("tts keeps its own text in a sequential round", () => {
    const text = propose(tts, "INV", CODEX_SURFACE, { k: 2, index: 2, roundT: 2 });
    expect(headings(text)).toContain(HEADING.DIM_INVARIANT);
    expect(headings(text)).not.toContain(HEADING.DIM_INV);
    expect(text).toContain("round 2 of 2 of a sequential loop");
  });
});

describe("bad arguments", () => {
  test("dimension, index, round, k and surface are checked", () => {
    expect(() => propose(adapt, "AGG" as "INV", OPENCODE_SURFACE, { k: 1, index: 1 })).toThrow(
      'dim "AGG" is not allowed: INV or DOM',
    );
    expect(() => propose(adapt, "INV", OPENCODE_SURFACE, { k: 2, index: 3 })).toThrow(
      PromptInputError,
    );
    expect(() => propose(adapt, "INV", OPENCODE_SURFACE, { k: 2, index: 1, roundT: 3 })).toThrow(
      "roundT 3",
    );
    expect(() => propose(adapt, "INV", OPENCODE_SURFACE, { k: 0, index: 1 })).toThrow("k 0");
    expect(() =>
      propose(tts, "INV", { name: "aider", alwaysOnMax: 10 }, { k: 1, index: 1 }),
    ).toThrow('surface "aider"');
  });
});
