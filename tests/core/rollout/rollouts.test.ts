// Rollouts on fakes: the missing-run-folder check (docs/differences.md R3) on the per-rollout path,
// and the batch base path (`executeMany`, docs/differences.md R4): all succeed, one run fails, one
// returns a run folder that does not exist, the whole call throws.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import {
  missingDir,
  type RolloutInputs,
  roll,
  rollBases,
} from "../../../src/core/rollout/rollouts.ts";
import {
  BatchFakeAdapter,
  labelsOf,
  MissingDirFakeAdapter,
  removeTempDirs,
  SURFACE,
  stepClock,
  tempDir,
} from "../fakes.ts";

afterAll(removeTempDirs);

function inputsFor(
  adapter: MissingDirFakeAdapter,
  root: string,
  sink: RecordingSink,
): RolloutInputs {
  return {
    adapter,
    surface: SURFACE,
    scope: { sink, clock: stepClock(), sweep: "sw", domain: "books", task: "t1", k: 3 },
    workDir: join(root, "work"),
    runIdOf: (label) => `fake/t1/${label}`,
    rolloutTimeoutS: null,
  };
}

function setup(kind: "batch" | "single", opts: { fail?: string[]; missing?: string[] } = {}) {
  const root = tempDir("rollouts");
  const o = {
    root,
    tasks: { t1: "books" },
    failLabels: new Set(opts.fail ?? []),
    missingLabels: new Set(opts.missing ?? []),
  };
  const adapter = kind === "batch" ? new BatchFakeAdapter(o) : new MissingDirFakeAdapter(o);
  const sink = new RecordingSink();
  return { root, adapter, sink, inputs: inputsFor(adapter, root, sink) };
}

describe("the missing-run-folder check (docs/differences.md R3)", () => {
  test("roll: a run folder the adapter returned but never made is a failed, undelivered rollout", async () => {
    const e = setup("single", { missing: ["inv1"] });
    const r = await roll(e.inputs, "inv1", null);
    expect(existsSync(r.view.runDir)).toBe(false);
    expect(r.view).toMatchObject({ ok: false, delivered: false, usd: 0 });
    expect(r.view.error).toBe(`the adapter returned a missing run directory: ${r.view.runDir}`);
    expect(e.sink.ofType("rollout.finished")[0]).toMatchObject({ label: "inv1", ok: false });
  });

  test("roll: the same adapter's other labels still run ok", async () => {
    const e = setup("single", { missing: ["inv1"] });
    const r = await roll(e.inputs, "dom1", null);
    expect(r.view).toMatchObject({ ok: true, delivered: true, error: "" });
    expect(existsSync(join(r.view.runDir, "output", "answer.txt"))).toBe(true);
  });

  test("rollBases without executeMany: a missing base folder is a dead base, the others are ok", async () => {
    const e = setup("single", { missing: ["base2"] });
    const bases = await rollBases(e.inputs, 3, 2);
    expect(bases.map((b) => [b.view.label, b.view.ok])).toEqual([
      ["base1", true],
      ["base2", false],
      ["base3", true],
    ]);
    expect(bases[1]?.view.error).toContain("missing run directory");
  });
});

describe("batch base rollouts (executeMany)", () => {
  test("all succeed: one batch call, k ok delivered bases in order, each with its executor cost", async () => {
    const e = setup("batch");
    const bases = await rollBases(e.inputs, 3, 1);
    const adapter = e.adapter as BatchFakeAdapter;
    expect(adapter.batches).toEqual([["fake/t1/base1", "fake/t1/base2", "fake/t1/base3"]]);
    expect(bases.map((b) => b.view.label)).toEqual(["base1", "base2", "base3"]);
    for (const b of bases) {
      expect(b.view).toMatchObject({ ok: true, delivered: true, usd: 0.25, error: "" });
      expect(b.reused).toBe(false);
      expect(existsSync(join(b.view.runDir, "output", "answer.txt"))).toBe(true);
    }
    expect(labelsOf(e.sink.events, "rollout.started")).toEqual(["base1", "base2", "base3"]);
    expect(labelsOf(e.sink.events, "rollout.finished")).toEqual(["base1", "base2", "base3"]);
  });

  test("one run fails: it alone is a dead base with its spend, the others are kept", async () => {
    const e = setup("batch", { fail: ["base2"] });
    const bases = await rollBases(e.inputs, 3, 1);
    expect(bases.map((b) => [b.view.label, b.view.ok, b.view.delivered])).toEqual([
      ["base1", true, true],
      ["base2", false, false],
      ["base3", true, true],
    ]);
    const deadBase = bases[1]?.view;
    expect(deadBase?.runDir).toBe(missingDir(e.inputs.workDir));
    expect(deadBase?.error).toBe("Error: executor crashed on base2");
    expect(deadBase?.usd).toBe(0.02);
    expect(bases[0]?.view.usd).toBe(0.25);
    const finished = e.sink.ofType("rollout.finished");
    expect(finished.map((f) => [f.label, f.ok])).toEqual([
      ["base1", true],
      ["base2", false],
      ["base3", true],
    ]);
  });

  test("one run returns a folder that does not exist: that base is dead, the others are kept", async () => {
    const e = setup("batch", { missing: ["base1"] });
    const bases = await rollBases(e.inputs, 2, 1);
    expect(bases[0]?.view).toMatchObject({ ok: false, delivered: false });
    expect(bases[0]?.view.error).toContain("the adapter returned a missing run directory");
    expect(bases[1]?.view).toMatchObject({ ok: true, delivered: true, error: "" });
  });

  test("a batch call that throws fails every base (nothing says which run it was)", async () => {
    const e = setup("batch");
    (e.adapter as BatchFakeAdapter).batchThrows = "cluster down";
    const bases = await rollBases(e.inputs, 2, 1);
    expect(bases.map((b) => [b.view.ok, b.view.error])).toEqual([
      [false, "Error: cluster down"],
      [false, "Error: cluster down"],
    ]);
  });

  test("one base does not use the batch hook", async () => {
    const e = setup("batch");
    const bases = await rollBases({ ...e.inputs, scope: { ...e.inputs.scope, k: 1 } }, 1, 1);
    expect((e.adapter as BatchFakeAdapter).batches).toEqual([]);
    expect(bases[0]?.view.ok).toBe(true);
  });
});
