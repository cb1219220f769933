// A finished k=1 parallel `tasks` sweep recorded straight into a store, for the judge and report
// tests: each task's base1 writes a wrong total (75.00) and its agg1 the right one (80.35), as the
// fixture task data/csv-total checks it, and agg1 is picked.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { newSweepId } from "../../store/ids.ts";
import { StoreWriter } from "../../store/writer.ts";

export function recordTasksSweep(opts: {
  runsDir: string;
  /** Where the run folders are made (`<execRoot>/<task>/<label>/workspace/output/total.txt`). */
  execRoot: string;
  tasks: readonly { domain: string; task: string }[];
  config: Record<string, unknown>;
  identity?: Record<string, unknown>;
}): string {
  mkdirSync(opts.runsDir, { recursive: true });
  const writer = StoreWriter.open(join(opts.runsDir, "harness2.db"));
  const sweep = newSweepId();
  let ts = Date.UTC(2026, 10, 30, 12);
  const emit = (e: Record<string, unknown>) =>
    writer.emit({ ts: ts++, sweep, ...e } as unknown as HarnessEvent);
  const domains = [...new Set(opts.tasks.map((t) => t.domain))].map((domain) => ({
    domain,
    tasks: opts.tasks.filter((t) => t.domain === domain).map((t) => t.task),
  }));
  emit({
    type: "sweep.started",
    bench: "tasks",
    substrate: "oc",
    ks: [1],
    modes: ["agg"],
    seed: null,
    tag: "",
    argv: ["run", "--bench", "tasks"],
    config: opts.config,
    identity: opts.identity ?? {},
    runsRoot: opts.runsDir,
    domains,
  });
  for (const [i, { domain, task }] of opts.tasks.entries()) {
    const where = { domain, task, k: 1 };
    const of = opts.tasks.length;
    emit({
      type: "task.started",
      ...where,
      modes: ["agg"],
      index: i + 1,
      of,
      taskDir: opts.runsDir,
    });
    for (const [label, total] of [
      ["base1", "75.00"],
      ["agg1", "80.35"],
    ] as const) {
      const runDir = join(opts.execRoot, task, label);
      mkdirSync(join(runDir, "workspace", "output"), { recursive: true });
      writeFileSync(join(runDir, "workspace", "output", "total.txt"), `${total}\n`);
      emit({
        type: "rollout.finished",
        ...where,
        label,
        runId: `tasks-oc-agg1/${task}/${label}`,
        runDir,
        ok: true,
        delivered: true,
        usd: 0,
        wallS: 1,
        reused: false,
        error: "",
      });
    }
    emit({ type: "mode.started", ...where, mode: "agg" });
    emit({
      type: "selection.made",
      ...where,
      mode: "agg",
      chosenLabel: "agg1",
      anonId: "A",
      idMap: { A: "agg1" },
      why: "trivial",
      ok: true,
      fallback: false,
      trivial: true,
      dropped: [],
      usd: 0,
      error: "",
    });
    emit({
      type: "mode.finished",
      ...where,
      mode: "agg",
      status: "ok",
      R: 4,
      P: 3,
      expectedR: 4,
      expectedP: 3,
      fellBack: [],
      keptBase: [],
      similarity: null,
      usd: 0,
      error: "",
    });
  }
  writer.close();
  return sweep;
}
