// Test fixture: a demo sweep recorded in a real store the way the method records one (sweep, task,
// rollout, ledger, proposer-call, selection and mode events), whose run dirs are real DemoAdapter
// executions — bases with the buggy base harness (score 0), finals with the fixed one (score 1).

import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_DOMAIN, DEMO_TASKS, DemoAdapter } from "../../src/benchmarks/demo/demo-adapter.ts";
import type { HarnessEvent, ModeToken } from "../../src/core/events/registry.ts";
import { runId } from "../../src/core/run/naming.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";
import { newSweepId } from "../../store/ids.ts";
import { StoreWriter } from "../../store/writer.ts";

/** The demo runs on the OpenCode surface, as `harness2 demo` hands it. */
const OC = new OpencodeSubstrate();

export type SelectionFault = "fallback" | "failed";

export type DemoSweepOptions = {
  /** The runs directory; the store is `<runsDir>/harness2.db`, executions under `<runsDir>/demo`. */
  runsDir: string;
  k: number;
  modes?: ModeToken[];
  /** `<task>:<mode>` → what went wrong with that selection. */
  faults?: Record<string, SelectionFault>;
  /** `<task>:<mode>` whose chosen run's answer is a directory, so the demo scorer throws. */
  breakAnswer?: string[];
  /** Milliseconds of the first event (a later sweep needs a later start). */
  t0?: number;
  /** Record the mode as started but never finished for these `<task>:<mode>`. */
  unfinished?: string[];
};

export type DemoSweep = { sweep: string; dbPath: string; runsDir: string };

const fixedScript = (base: string) =>
  readFileSync(join(base, "scripts", "summarize.py"), "utf8").replace(
    /\n([ \t]*)if amount > 0:\n[ \t]*total \+= amount\n/,
    "\n$1total += amount\n",
  );

/** Records one demo sweep and returns its id. Executions are real (python3) and reused by run id. */
export async function recordDemoSweep(o: DemoSweepOptions): Promise<DemoSweep> {
  const modes = o.modes ?? ["agg", "seq"];
  const root = join(o.runsDir, "demo");
  const adapter = new DemoAdapter({ substrate: OC, root });
  const fixed = join(root, "fixed-harness");
  cpSync(await adapter.baseHarness(), fixed, { recursive: true });
  writeFileSync(join(fixed, "scripts", "summarize.py"), fixedScript(fixed));

  const dbPath = join(o.runsDir, "harness2.db");
  const writer = StoreWriter.open(dbPath);
  const sweep = newSweepId(o.t0);
  let ts = o.t0 ?? Date.UTC(2026, 10, 30, 9, 0, 0);
  const emit = (e: Record<string, unknown>) =>
    writer.emit({ ts: ts++, sweep, ...e } as unknown as HarnessEvent);
  const k = o.k;
  const ns = (mode: ModeToken) => ({ benchmark: "demo", substrate: "oc", mode, k });

  emit({
    type: "sweep.started",
    bench: "demo",
    substrate: "oc",
    ks: [k],
    modes,
    seed: null,
    tag: "",
    argv: ["demo", "--k", String(k)],
    config: { workers: 1 },
    identity: { improverModel: "local/deterministic" },
    runsRoot: root,
    domains: [{ domain: DEMO_DOMAIN, tasks: [...DEMO_TASKS] }],
  });
  for (const [index, task] of DEMO_TASKS.entries()) {
    const where = { domain: DEMO_DOMAIN, task };
    emit({
      type: "task.started",
      ...where,
      k,
      modes,
      index: index + 1,
      of: DEMO_TASKS.length,
      taskDir: join(root, "adapt", task),
    });
    const rollout = async (label: string, mode: ModeToken, harness: string | null) => {
      const id = runId(ns(mode), task, label);
      const dir = await adapter.execute(task, harness, id);
      emit({
        type: "rollout.finished",
        ...where,
        k,
        label,
        runId: id,
        runDir: dir,
        ok: true,
        delivered: await adapter.delivered(dir),
        usd: 0.01,
        wallS: 0.1,
        reused: false,
        error: "",
      });
      return dir;
    };
    for (let i = 1; i <= k; i++) await rollout(`base${i}`, "agg", null);
    for (const mode of modes) {
      const inMode = { ...where, mode, k };
      const key = `${task}:${mode}`;
      emit({ type: "mode.started", ...inMode });
      emit({
        type: "proposer.call",
        ...inMode,
        label: "inv1",
        purpose: "stage",
        attempts: 1,
        channel: "opencode",
        model: "local/deterministic",
        cached: false,
        wallS: 1,
        usd: 0.25,
        error: "",
        auditPath: "",
      });
      const finals = Array.from({ length: k }, (_, i) =>
        mode === "agg" ? `agg${i + 1}` : `c${i + 1}`,
      );
      let R = k;
      for (const label of finals) {
        const dir = await rollout(label, mode, fixed);
        R++;
        emit({
          type: "ledger.recorded",
          ...inMode,
          kind: "rollout",
          label,
          usd: 0.01,
          cached: false,
          attempts: 1,
          R,
          P: 1,
        });
        if (o.breakAnswer?.includes(key) && label === finals[0]) {
          const answer = join(dir, "output", "answer.txt");
          rmSync(answer, { force: true });
          mkdirSync(answer, { recursive: true });
        }
      }
      if (o.unfinished?.includes(key)) continue;
      const fault = o.faults?.[key];
      const chosen = finals[0] as string;
      emit({
        type: "selection.made",
        ...inMode,
        chosenLabel: fault === "failed" ? "" : chosen,
        anonId: fault === "failed" ? "" : "A",
        idMap: Object.fromEntries(finals.map((l, i) => [String.fromCharCode(65 + i), l])),
        why: k === 1 ? "Trivial pool." : "A totals the signed amounts.",
        ok: fault === undefined,
        fallback: fault === "fallback",
        trivial: k === 1 && fault === undefined,
        dropped: [],
        usd: k === 1 ? 0 : 0.05,
        error:
          fault === "fallback"
            ? "no choice block"
            : fault === "failed"
              ? "no candidate produced an artifact"
              : "",
      });
      emit({
        type: "mode.finished",
        ...inMode,
        status: "ok",
        R: 4 * k,
        P: 3 * k,
        expectedR: 4 * k,
        expectedP: 3 * k,
        fellBack: [],
        keptBase: [],
        similarity: mode === "agg" ? { n: k, nDistinct: 1, meanLineJaccard: 1 } : null,
        usd: 0.25,
        error: "",
      });
    }
    emit({
      type: "task.finished",
      ...where,
      k,
      status: "ok",
      modes: Object.fromEntries(modes.map((m) => [m, "ok"])),
      usd: 0.5,
      wallS: 1,
      error: "",
    });
  }
  emit({
    type: "sweep.finished",
    status: "ok",
    tasksOk: DEMO_TASKS.length,
    tasksFailed: 0,
    tasksSkipped: 0,
    usd: 1,
    wallS: 2,
  });
  writer.close();
  if (writer.stats.rejected > 0)
    throw new Error(`fixture events rejected: ${writer.stats.rejected}`);
  return { sweep, dbPath, runsDir: o.runsDir };
}
