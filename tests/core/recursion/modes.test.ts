// Recursion end to end on fakes: ledger identity and label orders in both modes, retries with
// verbatim rejection, fallbacks and degraded modes, phase barriers and concurrency bounds, dead
// rollouts, caching on a second run, and which tree each pool diff is against.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModeToken } from "../../../src/core/events/registry.ts";
import { treeDiff } from "../../../src/core/harness/diff.ts";
import {
  type PythonChecker,
  PythonCheckKilledError,
} from "../../../src/core/harness/python-check.ts";
import { readTree } from "../../../src/core/harness/tree.ts";
import { InterruptedError } from "../../../src/core/lib/interrupt.ts";
import { expectedLabels } from "../../../src/core/recursion/ledger.ts";
import { runMode } from "../../../src/core/recursion/modes.ts";
import { type ModeInputs, modeRecord } from "../../../src/core/recursion/records.ts";
import { rejectedBlock } from "../../../src/core/recursion/stage.ts";
import { rollBases } from "../../../src/core/rollout/rollouts.ts";
import { runId as makeRunId, taskDir } from "../../../src/core/run/naming.ts";
import {
  type Action,
  defaultAction,
  FakeAdapter,
  type FakeAdapterOptions,
  gate,
  LIMITS,
  labelsOf,
  RecordingSink,
  removeTempDirs,
  type ScriptedCall,
  ScriptedProposer,
  SURFACE,
  setMemory,
  stepClock,
  tempDir,
} from "../fakes.ts";

afterAll(removeTempDirs);

const TASK = "t1";

type Setup = {
  k: number;
  mode: ModeToken;
  script?: (call: ScriptedCall) => Action;
  hold?: (call: ScriptedCall) => Promise<void>;
  adapter?: Partial<FakeAdapterOptions>;
  phaseWidth?: number;
  root?: string;
  proposer?: ScriptedProposer;
};

async function setup(s: Setup) {
  const root = s.root ?? tempDir("modes");
  const adapter = new FakeAdapter({ root, tasks: { [TASK]: "books" }, ...s.adapter });
  const proposer = s.proposer ?? new ScriptedProposer(join(root, "sessions"), s.script, s.hold);
  const sink = new RecordingSink();
  const clock = stepClock();
  const cell = { benchmark: "fake", substrate: "oc", k: s.k };
  const runs = join(root, "runs");
  const scope = { sink, clock, sweep: "sw1", domain: "books", task: TASK, k: s.k };
  const aggNs = { ...cell, mode: "agg" as const };
  const base = await rollBases(
    {
      adapter,
      surface: SURFACE,
      scope,
      workDir: taskDir(runs, aggNs, TASK),
      runIdOf: (l) => makeRunId(aggNs, TASK, l),
      rolloutTimeoutS: null,
    },
    s.k,
    2,
  );
  const ns = { ...cell, mode: s.mode };
  const inputs: ModeInputs = {
    adapter,
    proposer,
    surface: SURFACE,
    limits: { ...LIMITS, phaseWidth: s.phaseWidth ?? 2 },
    scope: { ...scope, mode: s.mode },
    workDir: taskDir(runs, ns, TASK),
    runIdOf: (l) => makeRunId(ns, TASK, l),
    baseTree: readTree(SURFACE, await adapter.baseHarness()),
    base,
    library: null,
  };
  return { root, adapter, proposer, sink, inputs };
}

describe.each([1, 2])("k = %i", (k) => {
  test.each(["agg", "seq"] as const)(
    "%s: R = 4k, P = 3k and the exact label orders",
    async (mode) => {
      const { inputs, sink } = await setup({ k, mode });
      const result = await runMode(mode, inputs);
      const want = expectedLabels(mode, k);
      expect(result.ledger.R).toBe(4 * k);
      expect(result.ledger.P).toBe(3 * k);
      expect(result.ledger.labels("rollout")).toEqual(want.rollouts);
      expect(result.ledger.labels("session")).toEqual(want.sessions);
      expect(result.finals).toEqual(
        Array.from({ length: k }, (_, i) => `${mode === "agg" ? "agg" : "c"}${i + 1}`),
      );
      // The events carry the same sequence, with running counters.
      const entries = sink.ofType("ledger.recorded");
      expect(entries.map((e) => `${e.kind}:${e.label}`)).toEqual(
        result.ledger.entries.map((e) => `${e.kind}:${e.label}`),
      );
      expect(entries.at(-1)).toMatchObject({ R: 4 * k, P: 3 * k });
      // Similarity is computed in both modes (fix), over the finals.
      expect(result.similarity.n).toBe(k);
      const record = modeRecord(result);
      expect(record.status).toBe("ok");
      expect(record.ok).toBe(true);
      expect(record.similarity).toEqual(result.similarity);
      expect(record.ledger.rolloutUsd).toBe(0.25 * 4 * k);
      expect(record.ledger.sessionUsd).toBe(0.5 * 3 * k);
    },
  );
});

test("seq: each round edits the previous checkpoint, which is also its fallback and pool", async () => {
  const { inputs, root } = await setup({ k: 2, mode: "seq" });
  const result = await runMode("seq", inputs);
  const ctx = join(inputs.workDir, "context");
  // Round 2 edits c1: its context harness is c1's tree.
  expect(readFileSync(join(ctx, "inv2", "harness", "LongTermMEMORY.md"), "utf8")).toBe(
    "c1 memory\n",
  );
  // Round 2 sees every earlier entry in its pool, and the composer also this round's candidates.
  for (const label of ["inv1", "dom1", "c1"])
    expect(existsSync(join(ctx, "inv2", "pool", label))).toBe(true);
  for (const label of ["inv1", "dom1", "c1", "inv2", "dom2"]) {
    expect(existsSync(join(ctx, "c2", "pool", label, "rollout.md"))).toBe(true);
  }
  expect(existsSync(join(ctx, "c2", "decisions", "inv2.md"))).toBe(true);
  expect(result.rollouts.c1?.delivered).toBe(true);
  expect(root).toBeTruthy();
});

describe("pool diffs are against the harness each candidate edited (docs/differences.md R25)", () => {
  const read = (...parts: string[]) => readFileSync(join(...parts), "utf8");

  test("seq, k = 3: round 3 diffs inv1 against the base and inv2 against c1, each header naming it", async () => {
    const { inputs, proposer } = await setup({ k: 3, mode: "seq" });
    await runMode("seq", inputs);
    const tree = (label: string) => readTree(SURFACE, join(inputs.workDir, "harnesses", label));
    const ctx = join(inputs.workDir, "context");
    for (const stage of ["inv3", "c3"]) {
      const pool = join(ctx, stage, "pool");
      expect(read(pool, "inv1", "harness.diff")).toBe(
        treeDiff(tree("base"), tree("inv1"), "base", "inv1"),
      );
      expect(read(pool, "c1", "harness.diff")).toBe(
        treeDiff(tree("base"), tree("c1"), "base", "c1"),
      );
      expect(read(pool, "inv2", "harness.diff")).toBe(
        treeDiff(tree("c1"), tree("inv2"), "c1", "inv2"),
      );
      expect(read(pool, "c2", "harness.diff")).toBe(treeDiff(tree("c1"), tree("c2"), "c1", "c2"));
      expect(read(pool, "inv1", "harness.diff")).toContain(
        "--- base/LongTermMEMORY.md\n+++ inv1/LongTermMEMORY.md\n",
      );
      expect(read(pool, "inv2", "harness.diff")).toContain(
        "--- c1/LongTermMEMORY.md\n+++ inv2/LongTermMEMORY.md\n",
      );
    }
    // The round's own candidates edited the harness under edit (c2): `current`, as before.
    expect(read(ctx, "c3", "pool", "inv3", "harness.diff")).toBe(
      treeDiff(tree("c2"), tree("inv3"), "current", "inv3"),
    );
    // The mission says which tree each header names.
    const mission = proposer.calls.find((c) => c.label.startsWith("c3"))?.mission ?? "";
    expect(mission).toContain(
      "named on its `---` lines: `current` is context/harness/, `base` is the harness this task started from, `c1` is pool/c1/harness/",
    );
  });

  test("agg: every candidate is still diffed against the base, the harness under edit", async () => {
    const { inputs, proposer, sink } = await setup({ k: 2, mode: "agg" });
    await runMode("agg", inputs);
    const tree = (label: string) => readTree(SURFACE, join(inputs.workDir, "harnesses", label));
    for (const agg of ["agg1", "agg2"]) {
      for (const label of ["inv1", "dom1", "inv2", "dom2"]) {
        expect(read(evidenceOf(sink, agg), "pool", label, "harness.diff")).toBe(
          treeDiff(tree("base"), tree(label), "current", label),
        );
      }
    }
    const mission = proposer.calls.find((c) => c.label.startsWith("agg1"))?.mission ?? "";
    expect(mission).toContain("harness.diff");
    expect(mission).not.toContain("named on its `---` lines: `current`");
  });
});

/** The evidence folder a stage was handed (its `stage.started` event says which). */
function evidenceOf(sink: RecordingSink, label: string): string {
  const started = sink.ofType("stage.started").filter((e) => e.label === label);
  expect(started).toHaveLength(1);
  return started[0]?.evidenceDir as string;
}

test("stages built from the same inputs read one evidence folder, written once (issue 36)", async () => {
  for (const k of [1, 2]) {
    const { inputs, proposer, sink } = await setup({ k, mode: "agg" });
    await runMode("agg", inputs);
    const ctx = join(inputs.workDir, "context");
    // Every probe of the first wave (INV and DOM, each candidate) sees the same evidence: the
    // first builds it and the rest read that folder.
    const probes = ["inv", "dom"].flatMap((d) =>
      Array.from({ length: k }, (_, i) => `${d}${i + 1}`),
    );
    for (const label of probes) expect(evidenceOf(sink, label)).toBe(join(ctx, "inv1"));
    // The composers see the probes' pool: one folder for them too.
    for (let i = 1; i <= k; i++) expect(evidenceOf(sink, `agg${i}`)).toBe(join(ctx, "agg1"));
    expect(readdirSync(ctx).sort()).toEqual(["agg1", "inv1"]);
    // Each session was handed that folder, as the record says.
    for (const call of proposer.calls.filter((c) => c.label.endsWith(".a1"))) {
      expect(call.contextDir).toBe(evidenceOf(sink, call.label.replace(/\.a1$/, "")));
    }
  }
  // Sequential rounds: INV and DOM of a round share; each checkpoint has its own pool and notes.
  const { inputs, sink } = await setup({ k: 2, mode: "seq" });
  await runMode("seq", inputs);
  const ctx = join(inputs.workDir, "context");
  expect(evidenceOf(sink, "dom1")).toBe(join(ctx, "inv1"));
  expect(evidenceOf(sink, "dom2")).toBe(join(ctx, "inv2"));
  expect(readdirSync(ctx).sort()).toEqual(["c1", "c2", "inv1", "inv2"]);
});

test("an invalid proposal is retried once with the rejection verbatim, and its cost accumulates", async () => {
  const script = (call: ScriptedCall): Action => {
    if (call.label === "inv1.a1") {
      return {
        edit: (h) => {
          setMemory("inv1 memory")(h);
          const dir = join(h, "skills", "totals");
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, "SKILL.md"), "---\nname: totals\n---\nSum every amount.\n");
        },
        text: "<notes>first try</notes>",
        usd: 1,
      };
    }
    if (call.label === "inv1.a2") {
      // The retry starts from its own (autotrigger-repaired) invalid attempt, in a folder of its
      // own: the first attempt's evidence, which DOM reads too, is left as it was built.
      const ctx = call.contextDir as string;
      expect(ctx.endsWith(join("context", "inv1.a2"))).toBe(true);
      expect(existsSync(join(ctx, "harness", "skills", "totals", "SKILL.md"))).toBe(true);
      const first = join(ctx, "..", "inv1");
      expect(existsSync(join(first, "harness", "skills", "totals"))).toBe(false);
      expect(readdirSync(first).sort()).toEqual(readdirSync(ctx).sort());
      return {
        edit: (h) => {
          writeFileSync(
            join(h, "skills", "totals", "SKILL.md"),
            "---\nname: totals\ndescription: sum signed amounts\n---\nSum every amount.\n",
          );
        },
        text: "<notes>fixed the description</notes>",
        usd: 2,
      };
    }
    return defaultAction(call);
  };
  const { inputs, proposer } = await setup({ k: 1, mode: "agg", script });
  const result = await runMode("agg", inputs);
  const inv1 = result.stages.find((s) => s.label === "inv1");
  expect(inv1).toMatchObject({
    fellBack: false,
    attempts: 2,
    usd: 3,
    notes: "fixed the description",
  });
  expect(inv1?.tree["skills/totals/SKILL.md"]).toContain("description: sum signed amounts");
  const first = proposer.calls.find((c) => c.label === "inv1.a1") as ScriptedCall;
  const second = proposer.calls.find((c) => c.label === "inv1.a2") as ScriptedCall;
  expect(first.mission).not.toContain("REJECTED");
  expect(second.mission.startsWith(first.mission)).toBe(true);
  const rejection = second.mission.slice(first.mission.length + 2);
  expect(rejection.startsWith(rejectedBlock("").split("\n")[0] as string)).toBe(true);
  expect(rejection).toContain("skills/totals/SKILL.md needs a non-empty `description:`");
  expect(
    result.ledger.entries.find((e) => e.kind === "session" && e.label === "inv1"),
  ).toMatchObject({
    usd: 3,
    attempts: 2,
  });
});

test("a symlink in an edit is refused with feedback, never read as that file's deletion", async () => {
  const script = (call: ScriptedCall): Action => {
    if (call.label === "inv1.a1") {
      return { edit: (h) => rmSync(join(h, "guardrails.md")), skippedLinks: ["guardrails.md"] };
    }
    return defaultAction(call);
  };
  const { inputs, proposer } = await setup({ k: 1, mode: "agg", script });
  const result = await runMode("agg", inputs);
  const inv1 = result.stages.find((s) => s.label === "inv1");
  expect(inv1).toMatchObject({ fellBack: false, attempts: 2 });
  expect(inv1?.tree["guardrails.md"]).toBeDefined();
  const second = proposer.calls.find((c) => c.label === "inv1.a2") as ScriptedCall;
  expect(second.mission).toContain("the edit holds a symlink (guardrails.md)");
});

test("off-surface files reject the proposal; the retry edits its own on-surface attempt", async () => {
  const script = (call: ScriptedCall): Action => {
    if (call.label === "dom1.a1") {
      return {
        edit: (h) => {
          setMemory("dom1 draft")(h);
          writeFileSync(join(h, "Notes.TXT"), "stray");
        },
      };
    }
    if (call.label === "dom1.a2") {
      const ctx = call.contextDir as string;
      expect(readFileSync(join(ctx, "harness", "LongTermMEMORY.md"), "utf8")).toBe("dom1 draft\n");
      expect(existsSync(join(ctx, "harness", "Notes.TXT"))).toBe(false);
      expect(call.mission).toContain("not on the editable surface and were not kept: Notes.TXT");
    }
    return defaultAction(call);
  };
  const { inputs } = await setup({ k: 1, mode: "agg", script });
  const result = await runMode("agg", inputs);
  expect(result.stages.find((s) => s.label === "dom1")).toMatchObject({
    fellBack: false,
    attempts: 2,
  });
});

test("a stage whose two attempts are invalid falls back to its fallback; the mode still completes", async () => {
  const bad = (h: string) => writeFileSync(join(h, "systemprompt.md"), "x".repeat(30_000));
  const script = (call: ScriptedCall): Action =>
    call.label.startsWith("dom1.") ? { edit: bad, usd: 0.1 } : defaultAction(call);
  const { inputs } = await setup({ k: 1, mode: "agg", script });
  const result = await runMode("agg", inputs);
  const dom1 = result.stages.find((s) => s.label === "dom1");
  expect(dom1).toMatchObject({ fellBack: true, keptBase: false, attempts: 2, usd: 0.2, notes: "" });
  expect(dom1?.error).toContain("over the cap");
  expect(dom1?.error.length).toBeLessThanOrEqual(400);
  expect(dom1?.tree).toEqual(inputs.baseTree);
  // The fallen-back candidate is still rolled (the budget convention) and the mode is ok.
  expect(result.rollouts.dom1?.ok).toBe(true);
  expect(modeRecord(result)).toMatchObject({ status: "ok", ok: true, fellBack: ["dom1"] });
});

test("a transport failure falls back at once: no stage retry, its attempts and cost counted", async () => {
  const script = (call: ScriptedCall): Action =>
    call.label.startsWith("inv1.")
      ? { fail: "channel died", attempts: 2, usd: 0.3 }
      : defaultAction(call);
  const { inputs, proposer } = await setup({ k: 1, mode: "agg", script });
  const result = await runMode("agg", inputs);
  expect(proposer.calls.filter((c) => c.label.startsWith("inv1.")).map((c) => c.label)).toEqual([
    "inv1.a1",
  ]);
  expect(result.stages.find((s) => s.label === "inv1")).toMatchObject({
    fellBack: true,
    attempts: 2,
    usd: 0.3,
    cached: false,
    error: "channel died",
  });
});

test.each(["agg", "seq"] as const)(
  "%s: a mode where every stage fell back is degraded, not ok, and still balances its ledger",
  async (mode) => {
    const { inputs, sink } = await setup({ k: 2, mode, script: () => ({ fail: "no model" }) });
    const result = await runMode(mode, inputs);
    const record = modeRecord(result);
    expect(record.status).toBe("degraded");
    expect(record.ok).toBe(false);
    expect(record.errors[0]).toContain("every stage fell back");
    expect(record.fellBack.length).toBe(6);
    expect(result.ledger.R).toBe(8);
    expect(result.ledger.P).toBe(6);
    // Every final equals the base harness, so the finals are not diverse.
    expect(result.similarity.nDistinct).toBe(1);
    expect(sink.ofType("stage.finished").every((e) => e.fellBack)).toBe(true);
  },
);

test("an evidence failure falls back with attempts 0 and no proposer call", async () => {
  const { inputs, adapter, proposer } = await setup({ k: 1, mode: "agg" });
  adapter.trajectory = async () => {
    throw new Error("renderer broke");
  };
  const result = await runMode("agg", inputs);
  expect(proposer.calls).toEqual([]);
  for (const s of result.stages) {
    expect(s).toMatchObject({ fellBack: true, attempts: 0, usd: 0, cached: false });
    expect(s.error).toStartWith("could not build evidence: NoTrajectoryError");
  }
  expect(modeRecord(result).status).toBe("degraded");
});

test("dead rollouts never raise and are still counted", async () => {
  const { inputs } = await setup({
    k: 1,
    mode: "agg",
    adapter: { failLabels: new Set(["inv1", "agg1"]) },
  });
  const result = await runMode("agg", inputs);
  expect(result.rollouts.inv1).toMatchObject({ ok: false, delivered: false });
  expect(result.rollouts.inv1?.error).toBe("Error: executor crashed on inv1");
  expect(result.rollouts.inv1?.runDir).toBe(join(inputs.workDir, "missing"));
  expect(result.rollouts.agg1?.ok).toBe(false);
  expect(result.ledger.R).toBe(4);
  // a dead rollout's spend before it died is still counted
  expect(result.ledger.entries.find((e) => e.label === "inv1" && e.kind === "rollout")?.usd).toBe(
    0.02,
  );
});

test("an adapter bug in validateTree ends the mode instead of passing for an invalid proposal", async () => {
  const { inputs } = await setup({
    k: 1,
    mode: "agg",
    adapter: {
      treeProblems: () => {
        throw new TypeError("adapter bug");
      },
    },
  });
  await expect(runMode("agg", inputs)).rejects.toThrow("adapter bug");
});

test("an unknown mode is refused", async () => {
  const { inputs } = await setup({ k: 1, mode: "agg" });
  await expect(runMode("both", inputs)).rejects.toThrow("exactly two");
});

describe("phase concurrency", () => {
  test.each([1, 2, 3])(
    "proposals and rollouts reach but never exceed width %i; phases are barriers",
    async (width) => {
      const proposerGate = gate();
      const adapterGate = gate();
      const holder = (active: () => number, g: () => ReturnType<typeof gate>) => async () => {
        // The first `width` arrivals wait until `width` run at once; later ones pass.
        if (active() >= width) g().open();
        await g().wait;
      };
      let proposer: ScriptedProposer | null = null;
      let adapter: FakeAdapter | null = null;
      const env = await setup({
        k: 2,
        mode: "agg",
        phaseWidth: width,
        hold: holder(
          () => proposer?.active ?? 0,
          () => proposerGate,
        ),
      });
      proposer = env.proposer;
      adapter = env.adapter;
      // Bases ran already (with their own width); hold only the mode's rollouts.
      adapter.peak = 0;
      adapter.opts.onExecute = holder(
        () => adapter?.active ?? 0,
        () => adapterGate,
      );
      const result = await runMode("agg", env.inputs);
      expect(proposer.peak).toBe(width);
      expect(adapter.peak).toBe(width);
      expect(result.ledger.labels("rollout")).toEqual(expectedLabels("agg", 2).rollouts);
      // Barriers: no candidate rollout before every proposal finished; no composer before every
      // candidate rollout finished.
      const order = env.sink.events
        .filter(
          (e) =>
            e.type === "stage.finished" ||
            e.type === "rollout.started" ||
            e.type === "stage.started",
        )
        .map((e) => `${e.type}:${"label" in e ? e.label : ""}`);
      const lastProposal = Math.max(
        ...["inv1", "dom1", "inv2", "dom2"].map((l) => order.indexOf(`stage.finished:${l}`)),
      );
      const firstCandidateRoll = order.indexOf("rollout.started:inv1");
      expect(firstCandidateRoll).toBeGreaterThan(lastProposal);
      const firstComposer = order.indexOf("stage.started:agg1");
      const candidateRollsFinished = env.sink.events.findIndex(
        (e) => e.type === "ledger.recorded" && e.kind === "rollout" && e.label === "dom2",
      );
      expect(
        env.sink.events.findIndex((e) => e.type === "stage.started" && e.label === "agg1"),
      ).toBeGreaterThan(candidateRollsFinished);
      expect(firstComposer).toBeGreaterThan(firstCandidateRoll);
    },
  );

  test("a concurrent run records the same ledger sequence as a serial one", async () => {
    const serial = await runMode("agg", (await setup({ k: 3, mode: "agg", phaseWidth: 1 })).inputs);
    const wide = await runMode("agg", (await setup({ k: 3, mode: "agg", phaseWidth: 6 })).inputs);
    const view = (r: typeof serial) => r.ledger.entries.map((e) => ({ ...e }));
    expect(view(wide)).toEqual(view(serial));
  });
});

test("a second run of the same mode is served by run marks and the proposer cache", async () => {
  const first = await setup({ k: 2, mode: "agg" });
  await runMode("agg", first.inputs);
  const executedBefore = first.adapter.executed.length;
  const freshBefore = first.proposer.fresh.length;
  const again = await setup({ k: 2, mode: "agg", root: first.root, proposer: first.proposer });
  const result = await runMode("agg", again.inputs);
  expect(again.adapter.executed.length).toBe(0);
  expect(first.proposer.fresh.length).toBe(freshBefore);
  expect(executedBefore).toBeGreaterThan(0);
  for (const s of result.stages) expect(s).toMatchObject({ cached: true, attempts: 0, usd: 0 });
  // Reused rollouts were paid for by the run that produced them.
  const rollouts = result.ledger.entries.filter(
    (e) => e.kind === "rollout" && !e.label.startsWith("base"),
  );
  expect(rollouts.every((e) => e.cached && e.usd === 0)).toBe(true);
  expect(again.sink.ofType("rollout.finished").every((e) => e.reused)).toBe(true);
});

test("an interrupt during a rollout phase records none of its rollouts, starts no composer, and carries every spend", async () => {
  const controller = new AbortController();
  const invHeld = gate();
  const domFinished = gate();
  const { inputs, sink, proposer } = await setup({
    k: 1,
    mode: "agg",
    adapter: {
      onExecute: async (runId) => {
        if (!runId.endsWith("/inv1")) return;
        invHeld.open();
        await new Promise<void>((r) => controller.signal.addEventListener("abort", () => r()));
        // a killed executor: what its session spent before it died
        throw Object.assign(new Error("executor killed"), { usd: 0.05 });
      },
    },
  });
  const emit = sink.emit.bind(sink);
  sink.emit = (ev) => {
    emit(ev);
    if (ev.type === "rollout.finished" && ev.label === "dom1") domFinished.open();
  };
  const run = runMode("agg", { ...inputs, signal: controller.signal }).catch((e: unknown) => e);
  await invHeld.wait;
  await domFinished.wait; // the sibling finished before the interrupt
  controller.abort();
  const err = await run;
  expect(err).toBeInstanceOf(InterruptedError);
  // base1 0.25 + two stages 0.5 each (the ledger) + dom1's finished rollout 0.25 + inv1's 0.05
  expect((err as InterruptedError).usd).toBeCloseTo(1.55, 6);
  expect(labelsOf(sink.events, "rollout.finished")).toEqual(["base1", "dom1"]);
  const ledger = sink.ofType("ledger.recorded").map((l) => `${l.kind}:${l.label}`);
  expect(ledger).toEqual(["rollout:base1", "session:inv1", "session:dom1"]);
  expect(sink.ofType("phase.started").map((p) => p.phase)).toEqual(["proposals", "probes"]);
  expect(proposer.calls.map((c) => c.label).sort()).toEqual(["dom1.a1", "inv1.a1"]);
});

describe("a Python syntax check killed by a signal (a Ctrl-C reaches the checker too)", () => {
  // inv1 ships a script, so its acceptance runs the Python check; the others ship none.
  const withScript = (call: ScriptedCall): Action =>
    call.label === "inv1.a1"
      ? {
          edit: (h) => {
            setMemory("inv1 memory")(h);
            mkdirSync(join(h, "scripts"), { recursive: true });
            writeFileSync(join(h, "scripts", "total.py"), "print(1)\n");
          },
          usd: 0.5,
        }
      : defaultAction(call);

  test("with the sweep's signal aborted it is the interrupt: the stage is not finished, failed or fallen back", async () => {
    const controller = new AbortController();
    const checked: string[][] = [];
    const python: PythonChecker = async (files) => {
      checked.push(files.map((f) => f.rel));
      controller.abort();
      throw new PythonCheckKilledError("python3", "SIGINT");
    };
    const { inputs, sink, proposer } = await setup({
      k: 1,
      mode: "agg",
      script: withScript,
      phaseWidth: 1,
    });
    const err = await runMode("agg", { ...inputs, python, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InterruptedError);
    expect(checked).toEqual([["scripts/total.py"]]);
    // base1 0.25 (the ledger) + inv1's proposal 0.5, which no finished record holds
    expect((err as InterruptedError).usd).toBeCloseTo(0.75, 6);
    expect(sink.ofType("stage.finished")).toEqual([]);
    expect(proposer.calls.map((c) => c.label)).toEqual(["inv1.a1"]);
  });

  test("with no abort pending it ends the mode saying the checker was killed, never fed back as a rejection", async () => {
    const python: PythonChecker = async () => {
      throw new PythonCheckKilledError("python3", "SIGINT");
    };
    const { inputs, sink, proposer } = await setup({
      k: 1,
      mode: "agg",
      script: withScript,
      phaseWidth: 1,
    });
    const err = await runMode("agg", { ...inputs, python }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PythonCheckKilledError);
    expect((err as Error).message).toContain(
      "was killed by SIGINT, which is no verdict on the scripts",
    );
    // No retry fed the error back as a rejection, and inv1 neither finished nor fell back.
    expect(proposer.calls.map((c) => c.label)).not.toContain("inv1.a2");
    expect(labelsOf(sink.events, "stage.finished")).not.toContain("inv1");
  });
});
