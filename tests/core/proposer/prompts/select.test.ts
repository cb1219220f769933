// select(): both packs complete (lens, lead, checks, conformance honoured), criteria numbered
// without gaps, the value rule stated once, the <why> + ```choice protocol, substrate-free.
import { describe, expect, test } from "bun:test";
import { HEADING, PromptInputError, select } from "../../../../src/core/proposer/prompts/index.ts";
import { parseSelection } from "../../../../src/core/proposer/reply.ts";
import { bareBench, bench, CONFORMANCES, headings, PACKS, SLOTS, sectionBody } from "./variants.ts";

const VALUE_RULE = "A requested value must be present as a value";

function criteria(text: string): { n: number; name: string }[] {
  const body = sectionBody(text, HEADING.HOW_TO_DECIDE_ORDERED);
  return [...body.matchAll(/^(\d+)\. (?:\*\*([A-Z ]+)\.\*\*|(.*))/gm)].map((m) => ({
    n: Number(m[1]),
    name: m[2] ?? (m[3] as string),
  }));
}

describe("structure", () => {
  test.each(PACKS)("%s: sections in order, every slot honoured", (pack) => {
    const text = select(bench({ promptPack: pack }), 4, { poolKind: "finals", assetsNote: "" });
    expect(headings(text)).toEqual([
      HEADING.WORK,
      HEADING.LENS,
      HEADING.ANONYMOUS,
      HEADING.WHAT_YOU_SEE,
      HEADING.HOW_TO_DECIDE_ORDERED,
      HEADING.CORRECTNESS_FOR_THIS_WORK,
      HEADING.NO_ANSWER_KEY,
      HEADING.EVIDENCE_IS_DATA,
      HEADING.OUTPUT_FORMAT,
    ]);
    expect(sectionBody(text, HEADING.LENS).trim()).toBe(SLOTS.domainGuidance);
    expect(sectionBody(text, HEADING.CORRECTNESS_FOR_THIS_WORK).trim()).toBe(SLOTS.selectionChecks);
    expect(criteria(text)[0]).toEqual({ n: 0, name: SLOTS.selectionLead });
    expect(sectionBody(text, HEADING.WHAT_YOU_SEE)).toContain(
      `the ${SLOTS.deliverableWord}, rendered`,
    );
    expect(text).not.toContain(SLOTS.yardstick);
    expect(text).not.toContain(SLOTS.invLevers);
  });

  test.each(PACKS)("%s: blank slots leave no section and no criterion 0", (pack) => {
    const text = select(bareBench(pack), 2, { poolKind: "mixed", assetsNote: "" });
    expect(headings(text)).not.toContain(HEADING.LENS);
    expect(headings(text)).not.toContain(HEADING.CORRECTNESS_FOR_THIS_WORK);
    expect(criteria(text)[0]?.n).toBe(1);
  });

  test("the openers name n and the pack's framing", () => {
    expect(select(bench(), 3, { poolKind: "finals", assetsNote: "" })).toStartWith(
      "Choose which of 3 candidate answers should be delivered to the person who asked.",
    );
    expect(
      select(bench({ promptPack: "tts" }), 3, { poolKind: "finals", assetsNote: "" }),
    ).toStartWith("Choose which of 3 candidate ANSWERS to a workplace task");
  });

  test("the assets note sits verbatim in the listing", () => {
    const note = "- `context/candidates/<id>/`: raw originals (report.xlsx)";
    const body = sectionBody(
      select(bench(), 2, { poolKind: "finals", assetsNote: note }),
      HEADING.WHAT_YOU_SEE,
    );
    expect(body).toContain(`rendered\n${note}\n\nYou are choosing between ARTIFACTS.`);
    for (const p of ["context/task.md", "context/source/", "context/candidates/<id>.md"])
      expect(body).toContain(p);
  });

  test("mixed and finals pools get their own anonymity text", () => {
    const mixed = sectionBody(
      select(bench(), 2, { poolKind: "mixed", assetsNote: "" }),
      HEADING.ANONYMOUS,
    );
    const finals = sectionBody(
      select(bench(), 2, { poolKind: "finals", assetsNote: "" }),
      HEADING.ANONYMOUS,
    );
    expect(mixed).toContain("UNMODIFIED harness");
    expect(finals).not.toContain("UNMODIFIED");
    expect(finals).toContain("no candidate is privileged");
  });

  test("substrate-free: no harness path appears", () => {
    for (const pack of PACKS) {
      const text = select(bench({ promptPack: pack }), 2, { poolKind: "mixed", assetsNote: "" });
      for (const p of ["systemprompt.md", "AGENTS.md", "SKILL.md", "hooks.json", "plugin/"])
        expect(text).not.toContain(p);
    }
  });
});

describe("criteria (docs/differences.md E7)", () => {
  const cases = PACKS.flatMap((pack) => CONFORMANCES.map((c) => [pack, c] as const));
  test.each(cases)("%s / %s: numbered 0..m without gaps, value rule once", (pack, conformance) => {
    const text = select(bench({ promptPack: pack, selectionConformance: conformance }), 2, {
      poolKind: "finals",
      assetsNote: "",
    });
    const list = criteria(text);
    expect(list.map((c) => c.n)).toEqual(list.map((_, i) => i));
    expect(text.split(VALUE_RULE).length - 1).toBe(1);
    const names = list.slice(1).map((c) => c.name);
    if (pack === "adapt") {
      expect(names).toEqual(
        conformance === "full"
          ? [
              "DELIVERY",
              "CONFORMANCE",
              "FIDELITY",
              "INTERNAL CONSISTENCY",
              "OPERATIONAL FITNESS",
              "FINISH",
            ]
          : [
              "DELIVERY",
              "FIDELITY",
              "INTERNAL CONSISTENCY",
              "OPERATIONAL FITNESS",
              "FINISH",
              "VALUES ARE VALUES",
            ],
      );
    } else {
      expect(names).toEqual(
        conformance === "full"
          ? ["COVERAGE", "CORRECTNESS", "FIDELITY"]
          : ["COVERAGE", "CORRECTNESS", "FIDELITY", "VALUES ARE VALUES"],
      );
    }
    const shape =
      conformance === "full"
        ? pack === "adapt"
          ? "CONFORMANCE"
          : "FIDELITY"
        : "VALUES ARE VALUES";
    expect(sectionBody(text, HEADING.OUTPUT_FORMAT)).toContain(`if a candidate lost on ${shape},`);
  });

  test("a multi-line lead stays inside its list item", () => {
    const text = select(bench({ selectionLead: "FIRST LINE\nSECOND LINE" }), 2, {
      poolKind: "finals",
      assetsNote: "",
    });
    expect(sectionBody(text, HEADING.HOW_TO_DECIDE_ORDERED)).toContain(
      "0. FIRST LINE\n   SECOND LINE\n1. **DELIVERY.**",
    );
  });
});

describe("reply protocol", () => {
  test.each(PACKS)("%s: <why> with its line limit, then the choice fence", (pack) => {
    const text = select(bench({ promptPack: pack }), 2, { poolKind: "finals", assetsNote: "" });
    const out = sectionBody(text, HEADING.OUTPUT_FORMAT);
    expect(out).toContain(`\`<why>…</why>\` block of at most ${pack === "tts" ? 5 : 6} lines`);
    expect(out).toContain("info string is `choice`");
    expect(out).toContain("```choice\n<id>\n```");
    expect(sectionBody(text, HEADING.NO_ANSWER_KEY)).toContain("what the source material shows");
    // The template in the prompt is never mistaken for a choice.
    expect(parseSelection(text, ["A", "B", "id"]).ok).toBe(false);
  });

  test("pool kind and n are checked", () => {
    expect(() => select(bench(), 2, { poolKind: "all" as "mixed", assetsNote: "" })).toThrow(
      'poolKind "all" is not allowed: mixed or finals',
    );
    expect(() => select(bench(), 0, { poolKind: "mixed", assetsNote: "" })).toThrow(
      PromptInputError,
    );
  });
});
