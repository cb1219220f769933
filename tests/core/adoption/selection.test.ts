// Blind selection: finals-only pool, drop rules, anonymity of everything the selector sees, the
// parse, the never-ok fallback, the k=1 trivial pick, selection.json and the events.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  compareLabels,
  finalLabels,
  SelectionInputError,
  selectionPool,
} from "../../../src/core/adoption/pool.ts";
import {
  readSelectionFile,
  runSelection,
  Selection,
  selectionDir,
  trivialSelection,
} from "../../../src/core/adoption/selection.ts";
import { renderPool } from "../../../src/core/adoption/selection-render.ts";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import { InterruptedError } from "../../../src/core/lib/interrupt.ts";
import { walkFiles } from "../../../src/core/lib/safe-fs.ts";
import { TripwireError } from "../../../src/core/safety/tripwire.ts";
import type { RunView } from "../../../src/core/seams/benchmark.ts";
import { ProposerError } from "../../../src/core/seams/channel.ts";
import { FakeAdapter, type FakeRun, fixedClock, ScriptedProposer } from "../selection-fakes.ts";

let root: string;
let sink: RecordingSink;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "h2-selection-"));
  sink = new RecordingSink();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const scope = () => ({ sweep: "sw", domain: "ledgers", sink, clock: fixedClock() });
const workDir = () => join(root, "work");

function setup(
  runs: FakeRun[],
  opts: { stateDeliverable?: boolean; assetsReferenceOnly?: boolean } = {},
) {
  const adapter = new FakeAdapter({ root, ...opts });
  const rollouts = adapter.makeRuns(runs);
  return { adapter, rollouts };
}

const THREE: FakeRun[] = [
  { label: "agg1", out: "total: 10\nbalance ok\n" },
  { label: "agg2", out: "total: 12\n" },
  { label: "agg3", out: "total: 10\nnotes: none\n" },
];

function choose(id: string, why = "It reconciles.") {
  return `<why>${why}</why>\n\n\`\`\`choice\n${id}\n\`\`\`\n`;
}

describe("selectionPool", () => {
  test("is exactly the mode's finals that exist, in label order; bases and stages never enter", () => {
    const { rollouts } = setup([
      { label: "base1", out: "x" },
      { label: "inv1", out: "x" },
      { label: "dom2", out: "x" },
      { label: "agg2", out: "x" },
      { label: "agg1", out: "x" },
      { label: "c1", out: "x" },
    ]);
    const base = [rollouts.get("base1") as RunView];
    expect(selectionPool("agg", 3, rollouts, base).map((r) => r.label)).toEqual(["agg1", "agg2"]);
    expect(selectionPool("seq", 2, rollouts, base).map((r) => r.label)).toEqual(["c1"]);
    expect(finalLabels("seq", 3)).toEqual(["c1", "c2", "c3"]);
  });

  test("refuses a final that is really a base rollout", () => {
    const { rollouts } = setup([{ label: "base1", out: "x" }]);
    const base = rollouts.get("base1") as RunView;
    const sneaky = new Map([["agg1", { ...base, label: "agg1" }]]);
    expect(() => selectionPool("agg", 1, sneaky, [base])).toThrow(SelectionInputError);
  });

  test("labels sort naturally (agg2 before agg10)", () => {
    expect(["agg10", "agg2", "agg1"].sort(compareLabels)).toEqual(["agg1", "agg2", "agg10"]);
  });
});

describe("drop rules", () => {
  test("drops what did not run, did not deliver, failed to render or rendered blank", async () => {
    const { adapter, rollouts } = setup([
      { label: "agg1", out: "good\n" },
      { label: "agg2", ok: false },
      { label: "agg3" },
      { label: "agg4", out: "x", renderError: "broken reader" },
      { label: "agg5", out: "  \n" },
    ]);
    const r = await renderPool([...rollouts.values()], adapter);
    expect(r.pool.map((c) => c.label)).toEqual(["agg1"]);
    expect(r.dropped.map((d) => d.label)).toEqual(["agg2", "agg3", "agg4", "agg5"]);
    expect(r.dropped[2]?.cause).toBe("render failed: Error: broken reader");
    expect(r.evidence).toBe("deliverable");
  });

  test("a state deliverable falls back to transcripts, and shown labels leave dropped", async () => {
    const { adapter, rollouts } = setup(
      [
        { label: "c1", trajectory: "[ACTION] edited the workspace\n" },
        { label: "c2", out: "x", renderError: "nope", trajectory: "[ACTION] other\n" },
        { label: "c3", trajectory: "(no trajectory recorded)" },
      ],
      { stateDeliverable: true },
    );
    const r = await renderPool([...rollouts.values()], adapter);
    expect(r.evidence).toBe("trajectory");
    expect(r.pool.map((c) => c.label)).toEqual(["c1", "c2"]);
    expect(r.dropped.map((d) => d.label)).toEqual(["c3"]);
    expect(r.artifacts.get("c1")).toContain("shown as its session transcript");
    expect(r.artifacts.get("c1")).toContain("[ACTION] edited the workspace");
  });

  test("without a state deliverable there is no transcript fallback", async () => {
    const { adapter, rollouts } = setup([{ label: "c1" }]);
    const r = await renderPool([...rollouts.values()], adapter);
    expect(r.pool).toEqual([]);
  });
});

describe("runSelection", () => {
  async function run(
    script: ConstructorParameters<typeof ScriptedProposer>[0],
    runs = THREE,
    opts: { assetsReferenceOnly?: boolean } = {},
  ) {
    const { adapter, rollouts } = setup(runs, opts);
    const prop = new ScriptedProposer(script);
    const sel = await runSelection({
      taskId: "t1",
      k: runs.length,
      mode: "agg",
      candidates: selectionPool("agg", runs.length, rollouts, []),
      workDir: workDir(),
      scope: scope(),
      adapter,
      prop,
    });
    return { sel, prop, rollouts, adapter };
  }

  test("the selector sees no label, run id, score or answer key — only anonymous ids", async () => {
    const { sel, prop } = await run([choose("B")]);
    expect(prop.calls).toHaveLength(1);
    const seen = prop.calls[0];
    if (!seen) throw new Error("no call");
    expect(seen.label).toBe("select.agg3");
    expect(seen.opts.purpose).toBe("selection");
    const everything = [seen.mission, ...Object.keys(seen.files), ...Object.values(seen.files)];
    for (const text of everything) {
      for (const label of ["agg1", "agg2", "agg3"]) expect(text).not.toContain(label);
      expect(text).not.toContain("fake-oc-agg");
      expect(text).not.toContain("pass_rate");
      expect(text.toLowerCase()).not.toMatch(/\bscores?\b/);
    }
    expect(Object.keys(seen.files).sort()).toEqual([
      "candidates/A.md",
      "candidates/B.md",
      "candidates/C.md",
      "source/ledger.csv",
      "task.md",
    ]);
    expect(seen.mission).toContain("Choose exactly one of A, B, C.");
    expect(seen.mission).toContain("context/source/");
    const a = seen.files["candidates/A.md"] as string;
    expect(a).toMatch(/^<!-- candidate A: \d+ characters, \d+ lines\./);
    expect(a).toContain("COMPLETE artifact");
    expect(sel.ok).toBe(true);
  });

  test("a parsed choice decodes to its label; usd, why, and selection.json agree", async () => {
    const { sel, rollouts } = await run([choose("C", "C balances; A misses a row.")]);
    expect(sel).toMatchObject({ ok: true, fallback: false, chosenId: "C", nCandidates: 3 });
    expect(sel.chosenLabel).toBe(sel.idMap.C as string);
    expect(sel.why).toBe("C balances; A misses a row.");
    expect(sel.usd).toBe(0.25);
    const chosen = rollouts.get(sel.chosenLabel) as RunView;
    expect(sel.chosenRunId).toBe(chosen.runId);

    const file = readSelectionFile(
      readFileSync(join(selectionDir(workDir(), "agg", 3), "selection.json"), "utf8"),
    );
    expect(file.idMap[file.chosenId]).toBe(file.chosenLabel);
    expect(file.chosenLabel).toBe(sel.chosenLabel);
    expect(file.why).toBe(sel.why);
    expect(file.chosenRunDir).toBe(chosen.runDir);

    const made = sink.ofType("selection.made");
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      task: "t1",
      mode: "agg",
      k: 3,
      chosenLabel: sel.chosenLabel,
      anonId: "C",
      ok: true,
      fallback: false,
      trivial: false,
    });
  });

  test("the candidate file shows each label's own artifact under its id", async () => {
    const { sel } = await run([choose("A")]);
    const folder = selectionDir(workDir(), "agg", 3);
    for (const [id, label] of Object.entries(sel.idMap)) {
      const text = readFileSync(join(folder, "candidates", `${id}.md`), "utf8");
      const own = THREE.find((r) => r.label === label)?.out as string;
      expect(text.endsWith(`-->\n${own}`)).toBe(true);
    }
  });

  test("an unparseable reply gets one repair turn; a second failure falls back (never ok)", async () => {
    const { sel, prop } = await run(["I like the second one.", { text: "still no", usd: 0.5 }]);
    expect(prop.calls.map((c) => c.label)).toEqual(["select.agg3", "select.agg3.repair1"]);
    expect(prop.calls[1]?.mission).toContain("YOUR PREVIOUS REPLY COULD NOT BE USED");
    expect(sel).toMatchObject({ ok: false, fallback: true, chosenLabel: "agg1", usd: 0.75 });
    expect(sel.idMap[sel.chosenId]).toBe("agg1");
    expect(sel.error).toContain("choice");
    expect(sel.why).toBe("");
    expect(sink.ofType("selection.made")[0]).toMatchObject({ ok: false, fallback: true });
  });

  test("the repair turn can rescue the selection", async () => {
    const { sel } = await run(["no fence here", choose("b")]);
    expect(sel).toMatchObject({ ok: true, fallback: false, chosenId: "B", usd: 0.5 });
  });

  test("an id outside the pool falls back", async () => {
    const { sel } = await run([choose("Q"), choose("Z")]);
    expect(sel).toMatchObject({ ok: false, fallback: true, chosenLabel: "agg1" });
    expect(sel.error).toContain("'Z' is not one of the candidates");
  });

  test("a ProposerError falls back with its spend and no repair call", async () => {
    const { sel, prop } = await run([new ProposerError("timed out twice", 2, 0.4, "select.agg3")]);
    expect(prop.calls).toHaveLength(1);
    expect(sel).toMatchObject({ ok: false, fallback: true, usd: 0.4 });
    expect(sel.error).toContain("timed out twice");
  });

  test.each(["interrupted", "transport"] as const)(
    "an interrupt during the selector call (%s) records no selection: no fallback, no selection.json, no event; its spend is carried",
    async (failAs) => {
      const { adapter, rollouts } = setup(THREE);
      const controller = new AbortController();
      const prop = new ScriptedProposer([
        { text: "no choice here", usd: 0.1 },
        { interrupt: controller, usd: 0.3, failAs },
      ]);
      const err = await runSelection({
        taskId: "t1",
        k: 3,
        mode: "agg",
        candidates: selectionPool("agg", 3, rollouts, []),
        workDir: workDir(),
        scope: scope(),
        adapter,
        prop,
        signal: controller.signal,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InterruptedError);
      expect((err as InterruptedError).usd).toBeCloseTo(0.4, 6);
      expect(prop.calls.map((c) => c.label)).toEqual(["select.agg3", "select.agg3.repair1"]);
      expect(existsSync(join(selectionDir(workDir(), "agg", 3), "selection.json"))).toBe(false);
      expect(sink.ofType("selection.made")).toEqual([]);
    },
  );

  test("an interrupted sweep starts no selection and leaves the last selection folder alone", async () => {
    const { adapter, rollouts } = setup(THREE);
    const folder = selectionDir(workDir(), "agg", 3);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "selection.json"), "{}\n");
    const controller = new AbortController();
    controller.abort();
    const prop = new ScriptedProposer([choose("A")]);
    await expect(
      runSelection({
        taskId: "t1",
        k: 3,
        mode: "agg",
        candidates: selectionPool("agg", 3, rollouts, []),
        workDir: workDir(),
        scope: scope(),
        adapter,
        prop,
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(InterruptedError);
    expect(prop.calls).toEqual([]);
    expect(readFileSync(join(folder, "selection.json"), "utf8")).toBe("{}\n");
  });

  test("the fallback takes the first final in natural order", async () => {
    const { adapter, rollouts } = setup([
      { label: "agg10", out: "ten\n" },
      { label: "agg2", out: "two\n" },
    ]);
    const sel = await runSelection({
      taskId: "t1",
      k: 10,
      mode: "agg",
      candidates: selectionPool("agg", 10, rollouts, []),
      workDir: workDir(),
      scope: scope(),
      adapter,
      prop: new ScriptedProposer(["?", "?"]),
    });
    expect(sel).toMatchObject({ fallback: true, chosenLabel: "agg2" });
  });

  test("an empty pool makes no call, wipes a stale folder, and records the failure", async () => {
    const stale = selectionDir(workDir(), "agg", 2);
    mkdirSync(join(stale, "candidates"), { recursive: true });
    writeFileSync(join(stale, "candidates", "A.md"), "old");
    const { sel, prop } = await run(
      [],
      [
        { label: "agg1", ok: false },
        { label: "agg2", out: "" },
      ],
    );
    expect(prop.calls).toHaveLength(0);
    expect(sel).toMatchObject({ ok: false, fallback: false, chosenLabel: "", nCandidates: 0 });
    expect(sel.error).toBe("no candidate produced an artifact");
    expect(walkFiles(stale)).toEqual(["selection.json"]);
    expect(readSelectionFile(readFileSync(join(stale, "selection.json"), "utf8")).ok).toBe(false);
  });

  test("a grader verdict in an artifact trips before any call and leaves no folder", async () => {
    const runs = [
      { label: "agg1", out: "fine\n" },
      { label: "agg2", out: 'log: {"passed_count": 3}\n' },
    ];
    const { adapter, rollouts } = setup(runs);
    const prop = new ScriptedProposer([choose("A")]);
    await expect(
      runSelection({
        taskId: "t1",
        k: 2,
        mode: "agg",
        candidates: selectionPool("agg", 2, rollouts, []),
        workDir: workDir(),
        scope: scope(),
        adapter,
        prop,
      }),
    ).rejects.toBeInstanceOf(TripwireError);
    expect(prop.calls).toHaveLength(0);
    expect(existsSync(selectionDir(workDir(), "agg", 2))).toBe(false);
    const fired = sink.ofType("tripwire.fired");
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ kind: "grader_verdict", stage: "selection", task: "t1" });
    expect(sink.ofType("selection.made")).toHaveLength(0);
  });

  test("named assets are copied per candidate, and only they leave the run folder", async () => {
    const { prop } = await run(
      [choose("A")],
      [
        { label: "agg1", out: "one\n", assets: { "chart.png": "PNG1" } },
        { label: "agg2", out: "two\n", assets: { "chart.png": "PNG2" } },
      ],
    );
    const files = prop.calls[0]?.files ?? {};
    expect(files["candidates/A/chart.png"]).toBeDefined();
    expect(files["candidates/B/chart.png"]).toBeDefined();
    expect(Object.keys(files).some((f) => f.includes("verdict") || f.includes("out.md"))).toBe(
      false,
    );
    expect(files["candidates/A.md"]).toContain("context/candidates/A/");
    expect(files["candidates/A.md"]).toContain("rendered evidence of what this artifact does");
    const mission = prop.calls[0]?.mission ?? "";
    expect(mission).toContain("including the rendered evidence in its directory");
    expect(mission).toContain("rendered evidence of what the artifact does when run (chart.png)");
    expect(mission).toContain("rendered evidence per candidate (chart.png)");
    expect(mission).not.toContain("raw original");
  });

  test("reference-only assets (docs/differences.md S16) are called raw original files, never rendered evidence", async () => {
    const { prop, sel } = await run(
      [choose("B")],
      [
        { label: "agg1", out: "one\n", assets: { "report.xlsx": "XLSX1" } },
        { label: "agg2", out: "two\n", assets: { "report.xlsx": "XLSX2" } },
      ],
      { assetsReferenceOnly: true },
    );
    expect(sel.ok).toBe(true);
    const seen = prop.calls[0];
    if (!seen) throw new Error("no call");
    expect(seen.files["candidates/B/report.xlsx"]).toBeDefined();
    // The candidate file's note, the "what you are looking at" line and the evidence listing.
    expect(seen.files["candidates/B.md"]).toContain(
      "Its raw original files are in context/candidates/B/ (report.xlsx)",
    );
    expect(seen.mission).toContain(
      "- `context/candidates/<id>/`: raw original files of the artifact, for reference (report.xlsx)",
    );
    expect(seen.mission).toContain("raw originals per candidate (report.xlsx)");
    expect(seen.mission).toContain("Open every candidate before choosing. Choose exactly one of");
    for (const text of [
      seen.mission,
      seen.files["candidates/A.md"],
      seen.files["candidates/B.md"],
    ]) {
      expect(text).toContain("report.xlsx");
      expect(text).not.toContain("rendered evidence");
      expect(text).not.toContain("does when run");
    }
  });
});

describe("trivialSelection (k = 1)", () => {
  test("delivers the single final without any session and writes only selection.json", async () => {
    const { adapter, rollouts } = setup([{ label: "c1", out: "result\n" }]);
    const stale = selectionDir(workDir(), "seq", 1);
    mkdirSync(join(stale, "candidates"), { recursive: true });
    const sel = await trivialSelection({
      taskId: "t1",
      k: 1,
      mode: "seq",
      candidates: selectionPool("seq", 1, rollouts, []),
      workDir: workDir(),
      scope: scope(),
      adapter,
    });
    expect(sel).toMatchObject({
      ok: true,
      trivial: true,
      fallback: false,
      chosenId: "A",
      chosenLabel: "c1",
      idMap: { A: "c1" },
      usd: 0,
    });
    expect(sel.why).toContain("Trivial pool");
    expect(walkFiles(stale)).toEqual(["selection.json"]);
    expect(sink.ofType("selection.made")[0]).toMatchObject({ trivial: true, ok: true });
  });

  test("applies the drop rules, and refuses more than one candidate", async () => {
    const { adapter, rollouts } = setup([
      { label: "c1", out: " " },
      { label: "c2", out: "x" },
    ]);
    const input = {
      taskId: "t1",
      k: 1,
      mode: "seq" as const,
      workDir: workDir(),
      scope: scope(),
      adapter,
    };
    const sel = await trivialSelection({ ...input, candidates: [rollouts.get("c1") as RunView] });
    expect(sel).toMatchObject({ ok: false, trivial: false, chosenLabel: "" });
    expect(sel.error).toContain("no candidate produced an artifact");
    await expect(
      trivialSelection({ ...input, candidates: [...rollouts.values()] }),
    ).rejects.toThrow(SelectionInputError);
  });
});

describe("Selection record", () => {
  test("refuses contradictory states", () => {
    const base = { taskId: "t", mode: "agg", k: 2 };
    expect(() =>
      Selection.parse({ ...base, ok: true, fallback: true, chosenLabel: "agg1" }),
    ).toThrow();
    expect(() => Selection.parse({ ...base, ok: true })).toThrow();
    expect(() =>
      Selection.parse({
        ...base,
        ok: true,
        chosenLabel: "agg1",
        chosenId: "A",
        idMap: { A: "agg2" },
      }),
    ).toThrow();
    expect(() =>
      Selection.parse({
        ...base,
        experience: { cue: "c", lesson: "l", evidence: "e" },
      }),
    ).toThrow();
    expect(Selection.parse({ ...base, ok: true, chosenLabel: "agg1" }).usd).toBe(0);
  });
});

describe("selector mission", () => {
  test("lists context/source/ only when source material was copied", async () => {
    const { adapter, rollouts } = setup(THREE);
    adapter.taskFiles = async () => null;
    const prop = new ScriptedProposer([choose("A")]);
    await runSelection({
      taskId: "t1",
      k: 3,
      mode: "agg",
      candidates: selectionPool("agg", 3, rollouts, []),
      workDir: workDir(),
      scope: scope(),
      adapter,
      prop,
    });
    const mission = prop.calls[0]?.mission ?? "";
    const evidence = mission.slice(mission.indexOf("# YOUR EVIDENCE"));
    expect(evidence).toContain("context/candidates/<id>.md");
    expect(evidence).not.toContain("context/source/");
    expect(Object.keys(prop.calls[0]?.files ?? {}).some((f) => f.startsWith("source/"))).toBe(
      false,
    );
  });
});
