// Reflection: the round's record laid out, the lesson parsed, and only a real lesson reaching the
// library; NO_ENTRY, failures and tripwires give none and never unmake the selection.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selectionPool } from "../../../src/core/adoption/pool.ts";
import { reflectAdoption, reflectionDir } from "../../../src/core/adoption/reflection.ts";
import {
  readSelectionFile,
  runSelection,
  type Selection,
  selectionDir,
} from "../../../src/core/adoption/selection.ts";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import type { Tree } from "../../../src/core/harness/surface.ts";
import { writeTree } from "../../../src/core/harness/tree.ts";
import { InterruptedError } from "../../../src/core/lib/interrupt.ts";
import { walkFiles } from "../../../src/core/lib/safe-fs.ts";
import { Library } from "../../../src/core/library/library.ts";
import { assignIds, idOfLabel } from "../../../src/core/safety/anon-ids.ts";
import type { RunView } from "../../../src/core/seams/benchmark.ts";
import { ProposerError } from "../../../src/core/seams/channel.ts";
import {
  FakeAdapter,
  type FakeRun,
  fixedClock,
  type Scripted,
  ScriptedProposer,
  SURFACE,
} from "../selection-fakes.ts";

let root: string;
let sink: RecordingSink;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "h2-reflection-"));
  sink = new RecordingSink();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const scope = () => ({ sweep: "sw", domain: "ledgers", sink, clock: fixedClock() });
const workDir = () => join(root, "work");

const BASE: Tree = { "systemprompt.md": "base prompt\n" };
const HARNESSES: Record<string, Tree> = {
  inv1: { "systemprompt.md": "base prompt\n", "guardrails.md": "Recompute totals.\n" },
  dom1: { "systemprompt.md": "base prompt\nLedgers balance.\n" },
  agg1: { "systemprompt.md": "base prompt\n", "guardrails.md": "Recompute totals.\n" },
  agg2: { "systemprompt.md": "base prompt\nLedgers balance.\n" },
};

const RUNS: FakeRun[] = [
  { label: "base1", out: "total: 9\n", trajectory: "[ACTION] summed without checking\n" },
  { label: "inv1", out: "total: 10\n", trajectory: "[ACTION] re-ran the totals\n" },
  { label: "dom1", out: "total: 9\n" },
  { label: "agg1", out: "total: 10\n", trajectory: "[ACTION] re-ran the totals\n" },
  { label: "agg2", out: "total: 9\n" },
];

const LESSON_REPLY = `<edits>
component: guardrails.md
candidates: inv1, agg1
change: added a rule to recompute totals
observed: inv1 and agg1 re-ran the totals and fixed the sum (rollouts/agg1.md)
verdict: helped
</edits>

<experience>
cue: a figure must be reconciled against a second source
lesson: add a guardrails.md rule to recompute every total before finishing
evidence: row 1 (guardrails.md, helped)
confidence: medium, two rollouts
</experience>`;

/** Rollouts, harness folders and an ok selection of agg1 over agg1/agg2. */
async function adopted() {
  const adapter = new FakeAdapter({ root, baseTree: BASE });
  const rollouts = adapter.makeRuns(RUNS);
  for (const [label, tree] of Object.entries(HARNESSES)) {
    writeTree(SURFACE, tree, join(workDir(), "harnesses", label));
  }
  // Ids are deterministic, so the selector can be scripted to pick agg1.
  const agg1 = idOfLabel(assignIds(["agg1", "agg2"], "t1", 2, "agg"), "agg1");
  const sel = await runSelection({
    taskId: "t1",
    k: 2,
    mode: "agg",
    candidates: selectionPool("agg", 2, rollouts, []),
    workDir: workDir(),
    scope: scope(),
    adapter,
    prop: new ScriptedProposer([
      `<why>${agg1} balances; the other is off by one.</why>\n\`\`\`choice\n${agg1}\n\`\`\``,
    ]),
  });
  return { adapter, rollouts, sel };
}

async function reflect(
  sel: Selection,
  adapter: FakeAdapter,
  rollouts: Map<string, RunView>,
  script: Scripted[],
) {
  const prop = new ScriptedProposer(script);
  const result = await reflectAdoption({
    taskId: "t1",
    sel,
    rollouts: [...rollouts.values()],
    adapter,
    prop,
    workDir: workDir(),
    decisions: { inv1: "kept -> totals rule -> base1 summed blindly", dom1: "" },
    scope: scope(),
  });
  return { result, prop };
}

function library(): Library {
  return new Library({
    root: join(root, "library", "agg"),
    domain: "ledgers",
    surface: SURFACE,
    mode: "agg",
    k: 2,
    sweep: "sw",
    sink,
    clock: fixedClock(),
  });
}

describe("reflectAdoption", () => {
  test("a lesson is parsed, persisted with the selection, and becomes a library entry", async () => {
    const { adapter, rollouts, sel } = await adopted();
    expect(sel).toMatchObject({ ok: true, chosenLabel: "agg1" });
    const { result, prop } = await reflect(sel, adapter, rollouts, [
      { text: LESSON_REPLY, usd: 0.3 },
    ]);

    expect(result).toMatchObject({ ran: true, ok: true, noEntry: false, usd: 0.3, error: "" });
    expect(result.experience).toMatchObject({
      cue: "a figure must be reconciled against a second source",
      lesson: "add a guardrails.md rule to recompute every total before finishing",
      evidence: "row 1 (guardrails.md, helped)",
      confidence: "medium, two rollouts",
    });
    expect(result.experience?.edits).toContain("verdict: helped");
    expect(result.selection.usd).toBeCloseTo(sel.usd + 0.3, 6);
    expect(result.selection.experience).toEqual(result.experience);

    const call = prop.calls[0];
    if (!call) throw new Error("no call");
    expect(call.label).toBe("experience.agg2");
    expect(call.opts.purpose).toBe("reflection");
    expect(call.mission).toContain("Harness `agg1` was adopted");
    expect(call.mission).toContain("balances; the other is off by one.");
    expect(call.mission).toContain("context/adoption.json");
    const files = Object.keys(call.files);
    for (const f of [
      "task.md",
      "source/ledger.csv",
      "rollouts/base1.md",
      "rollouts/agg2.md",
      "decisions/inv1.md",
      "harness/guardrails.md",
      "base_harness/systemprompt.md",
      "pool/inv1/harness.diff",
      "pool/agg1/harness.diff",
      "adoption.json",
    ]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.startsWith("library/"))).toBe(false);
    expect(files.some((f) => f.startsWith("pool/base"))).toBe(false);
    expect(files).not.toContain("source/RUBRICS.json");
    expect(Object.values(call.files).join("\n")).not.toContain("pass_rate");
    // The adopted candidate's diff is against the base, not against itself.
    expect(call.files["pool/agg1/harness.diff"]).toContain("+++ agg1/guardrails.md");
    expect(call.files["pool/agg1/harness.diff"]).toContain("--- base_harness/guardrails.md");
    const adoption = JSON.parse(call.files["adoption.json"] as string);
    expect(adoption.candidateIds[sel.chosenId]).toBe("agg1");

    const folder = reflectionDir(workDir(), sel);
    expect(readFileSync(join(folder, "edits.md"), "utf8")).toContain("component: guardrails.md");
    const file = readSelectionFile(
      readFileSync(join(selectionDir(workDir(), "agg", 2), "selection.json"), "utf8"),
    );
    expect(file.experience?.cue).toBe(result.experience?.cue as string);
    expect(file.usd).toBeCloseTo(result.selection.usd, 6);

    expect(sink.ofType("reflection.finished").at(-1)).toMatchObject({
      ok: true,
      noEntry: false,
      usd: 0.3,
    });

    const lib = library();
    const entry = lib.add("t1", lib.treeOf("none"), {
      why: result.selection.why,
      idMap: result.selection.idMap,
      label: result.selection.chosenLabel,
      runId: result.selection.chosenRunId,
      experience: result.experience,
    });
    expect(entry).not.toBeNull();
    expect(lib.contextDir()).not.toBeNull();
    expect(readFileSync(join(entry as string, "EXPERIENCE.md"), "utf8")).toContain(`= \`agg1\``);
  });

  test("NO_ENTRY gives no lesson (edit rows are still kept) and no library entry", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const reply = `<edits>\ncomponent: guardrails.md\ncandidates: agg1\nchange: x\nobserved: y\nverdict: confounded\n</edits>\n\nNO_ENTRY`;
    const { result } = await reflect(sel, adapter, rollouts, [reply]);
    expect(result).toMatchObject({ ok: true, noEntry: true, experience: null });
    expect(existsSync(join(reflectionDir(workDir(), sel), "edits.md"))).toBe(true);
    expect(result.selection.ok).toBe(true);
    expect(result.selection.experience).toBeNull();
    expect(library().add("t1", {}, { experience: result.experience })).toBeNull();
    expect(sink.ofType("reflection.finished").at(-1)).toMatchObject({ ok: true, noEntry: true });
  });

  test("a failed reflection call gives no lesson, keeps its spend, and leaves the selection ok", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const { result } = await reflect(sel, adapter, rollouts, [
      new ProposerError("channel died", 2, 0.2, "experience.agg2"),
    ]);
    expect(result).toMatchObject({ ok: false, noEntry: false, experience: null, usd: 0.2 });
    expect(result.error).toContain("channel died");
    expect(result.selection.ok).toBe(true);
    expect(result.selection.usd).toBeCloseTo(sel.usd + 0.2, 6);
    expect(sink.ofType("reflection.finished").at(-1)).toMatchObject({ ok: false });
  });

  test.each(["interrupted", "transport"] as const)(
    "an interrupt during the reflection call (%s) records nothing: no lesson, no reflection.finished, selection.json untouched; its spend is carried",
    async (failAs) => {
      const { adapter, rollouts, sel } = await adopted();
      const file = join(selectionDir(workDir(), "agg", 2), "selection.json");
      const before = readFileSync(file, "utf8");
      const controller = new AbortController();
      const prop = new ScriptedProposer([
        { text: "not a lesson", usd: 0.1 },
        { interrupt: controller, usd: 0.3, failAs },
      ]);
      const err = await reflectAdoption({
        taskId: "t1",
        sel,
        rollouts: [...rollouts.values()],
        adapter,
        prop,
        workDir: workDir(),
        decisions: {},
        scope: scope(),
        signal: controller.signal,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InterruptedError);
      expect((err as InterruptedError).usd).toBeCloseTo(0.4, 6);
      expect(prop.calls).toHaveLength(2);
      expect(sink.ofType("reflection.finished")).toEqual([]);
      expect(readFileSync(file, "utf8")).toBe(before);
    },
  );

  test("an interrupted sweep starts no reflection: no call, no folder", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const controller = new AbortController();
    controller.abort();
    const prop = new ScriptedProposer([LESSON_REPLY]);
    await expect(
      reflectAdoption({
        taskId: "t1",
        sel,
        rollouts: [...rollouts.values()],
        adapter,
        prop,
        workDir: workDir(),
        decisions: {},
        scope: scope(),
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(InterruptedError);
    expect(prop.calls).toEqual([]);
    expect(existsSync(reflectionDir(workDir(), sel))).toBe(false);
  });

  test("a reply with an incomplete lesson, twice, is a failure, not an entry", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const incomplete = "<experience>\ncue: something\nlesson: do it\n</experience>";
    const { result, prop } = await reflect(sel, adapter, rollouts, [
      { text: incomplete, usd: 0.1 },
      { text: incomplete, usd: 0.2 },
    ]);
    expect(result).toMatchObject({ ok: false, experience: null });
    expect(result.usd).toBeCloseTo(0.3, 6);
    expect(result.error).toContain("evidence");
    expect(prop.calls.map((c) => c.label)).toEqual(["experience.agg2", "experience.agg2.repair1"]);
  });

  test("the repair turn is told what was wrong and can rescue the lesson", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const rowsOnly = LESSON_REPLY.slice(0, LESSON_REPLY.indexOf("<experience>"));
    const lessonOnly = LESSON_REPLY.slice(LESSON_REPLY.indexOf("<experience>"));
    const { result, prop } = await reflect(sel, adapter, rollouts, [
      { text: rowsOnly, usd: 0.1 },
      { text: lessonOnly, usd: 0.2 },
    ]);
    expect(result).toMatchObject({ ok: true, noEntry: false, error: "" });
    expect(result.usd).toBeCloseTo(0.3, 6);
    expect(result.selection.usd).toBeCloseTo(sel.usd + 0.3, 6);
    expect(result.experience?.cue).toBe("a figure must be reconciled against a second source");
    // The first reply's rows survive a repair reply that wrote none.
    expect(result.experience?.edits).toContain("verdict: helped");
    const [first, repair] = prop.calls;
    if (!first || !repair) throw new Error("expected two calls");
    expect(repair.label).toBe("experience.agg2.repair1");
    expect(repair.opts.purpose).toBe("reflection");
    expect(repair.mission.startsWith(first.mission)).toBe(true);
    expect(repair.mission).toContain("# Your previous reply could not be used");
    expect(repair.mission).toContain("neither an <experience> block nor NO_ENTRY");
    expect(repair.files).toEqual(first.files);
    expect(sink.ofType("reflection.finished").at(-1)).toMatchObject({ ok: true, usd: 0.3 });
  });

  test("NO_ENTRY on the repair turn is a clean no-entry; repairTurns 0 makes no second call", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const { result } = await reflect(sel, adapter, rollouts, ["I am not sure.", "NO_ENTRY"]);
    expect(result).toMatchObject({ ok: true, noEntry: true, experience: null, error: "" });

    const prop = new ScriptedProposer(["I am not sure.", "NO_ENTRY"]);
    const once = await reflectAdoption({
      taskId: "t1",
      sel,
      rollouts: [...rollouts.values()],
      adapter,
      prop,
      workDir: workDir(),
      decisions: {},
      scope: scope(),
      repairTurns: 0,
    });
    expect(once).toMatchObject({ ok: false, experience: null });
    expect(prop.calls).toHaveLength(1);
  });

  test("a failed repair call keeps both spends and the selection", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const { result } = await reflect(sel, adapter, rollouts, [
      { text: "no block here", usd: 0.1 },
      new ProposerError("channel died", 2, 0.2, "experience.agg2.repair1"),
    ]);
    expect(result).toMatchObject({ ok: false, experience: null });
    expect(result.usd).toBeCloseTo(0.3, 6);
    expect(result.error).toContain("channel died");
    expect(result.selection.ok).toBe(true);
  });

  test("the reflector reads its own folder, untouched between turns; a failed repair keeps the first rows", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const rowsOnly = LESSON_REPLY.slice(0, LESSON_REPLY.indexOf("<experience>"));
    const { result, prop } = await reflect(sel, adapter, rollouts, [
      { text: rowsOnly, usd: 0.1 },
      new ProposerError("channel died", 2, 0.2, "experience.agg2.repair1"),
    ]);
    expect(result).toMatchObject({ ok: false, experience: null });
    const folder = reflectionDir(workDir(), sel);
    // The repair turn saw the folder as the first did (edits.md is written after the last turn),
    // and no `.experience` copy was made.
    expect(prop.calls).toHaveLength(2);
    expect(Object.keys(prop.calls[0]?.files ?? {})).not.toContain("edits.md");
    expect(prop.calls[1]?.files).toEqual(prop.calls[0]?.files as Record<string, string>);
    expect(existsSync(`${folder}.experience`)).toBe(false);
    expect(readFileSync(join(folder, "edits.md"), "utf8")).toContain("component: guardrails.md");
  });

  test("a lesson carrying a grader verdict is contained: tripwire event, no lesson, selection kept", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const poisoned = LESSON_REPLY.replace("row 1 (guardrails.md, helped)", 'saw "pass_rate": 1');
    const { result } = await reflect(sel, adapter, rollouts, [poisoned]);
    expect(result).toMatchObject({ ok: false, experience: null });
    expect(result.error).toContain("TripwireError");
    expect(result.selection.ok).toBe(true);
    expect(sink.ofType("tripwire.fired").at(-1)).toMatchObject({
      kind: "authored_tree",
      stage: "reflection",
    });
  });

  test("a verdict in the evidence trips before any call and leaves no reflection folder", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const leaky = adapter.makeRuns([
      { label: "dom1", out: "x", trajectory: '[OBSERVATION] {"test_pass_rate": 0.9}\n' },
    ]);
    const all = new Map([...rollouts, ...leaky]);
    const { result, prop } = await reflect(sel, adapter, all, [LESSON_REPLY]);
    expect(prop.calls).toHaveLength(0);
    expect(result).toMatchObject({ ok: false, experience: null });
    expect(existsSync(reflectionDir(workDir(), sel))).toBe(false);
    expect(sink.ofType("tripwire.fired").at(-1)).toMatchObject({ stage: "reflection" });
  });

  test("a selection that is not ok is never reflected on", async () => {
    const { adapter, rollouts, sel } = await adopted();
    const fallback = { ...sel, ok: false, fallback: true };
    const { result, prop } = await reflect(fallback, adapter, rollouts, [LESSON_REPLY]);
    expect(result).toMatchObject({ ran: false, experience: null });
    expect(prop.calls).toHaveLength(0);
    expect(existsSync(reflectionDir(workDir(), sel))).toBe(false);
    expect(walkFiles(join(workDir(), "reflection"))).toEqual([]);
    expect(sink.ofType("reflection.finished")).toHaveLength(0);
  });
});
