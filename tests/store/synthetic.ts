// Synthetic but method-shaped event streams (the method's labels, ledger counts and selections,
// docs/method.md §5, §6) for the store's tests and bench/store-ingest.ts. Deterministic for given
// options; never used at run time.

import type { HarnessEvent, ModeToken, StageDim } from "../../src/core/events/registry.ts";

export type SyntheticSweep = {
  sweep: string;
  bench?: string;
  substrate?: string;
  k?: number;
  modes?: ModeToken[];
  seed?: number | null;
  domains?: number;
  tasksPerDomain?: number;
  /** Time of the first event (ms); each event is 1 s after the previous one. */
  t0?: number;
  /** Every n-th task (1-based) trips a grader-verdict tripwire and ends partial. 0 = never. */
  tripEvery?: number;
  /** Stop after this task started (leaves it running, and the sweep unfinished). */
  stopInTask?: number;
  identity?: Record<string, unknown>;
  /** Emit each mode's adoption.recorded after its mode.finished, as a sweep does (default true). */
  adoptions?: boolean;
};

const DIMS: Record<ModeToken, (t: number) => [string, StageDim][]> = {
  agg: (t) => [
    [`inv${t}`, "INV"],
    [`dom${t}`, "DOM"],
  ],
  seq: (t) => [
    [`inv${t}`, "INV"],
    [`dom${t}`, "DOM"],
    [`c${t}`, "COMPOSE"],
  ],
};

export function taskName(domain: number, task: number): string {
  return `d${domain}/task-${String(task).padStart(4, "0")}`;
}

/** The events of one sweep, in the order a serial run would emit them. */
export function* sweepEvents(o: SyntheticSweep): Generator<HarnessEvent> {
  const bench = o.bench ?? "demo";
  const substrate = o.substrate ?? "oc";
  const k = o.k ?? 2;
  const modes = o.modes ?? ["agg", "seq"];
  const nDomains = o.domains ?? 2;
  const perDomain = o.tasksPerDomain ?? 2;
  const sweep = o.sweep;
  let ts = o.t0 ?? Date.UTC(2026, 10, 30, 9, 0, 0);
  const tick = () => {
    ts += 1000;
    return ts;
  };
  const domains = Array.from({ length: nDomains }, (_, d) => ({
    domain: `d${d}`,
    tasks: Array.from({ length: perDomain }, (_, i) => taskName(d, i)),
  }));
  yield {
    type: "sweep.started",
    ts: tick(),
    sweep,
    bench,
    substrate,
    ks: [k],
    modes,
    seed: o.seed ?? null,
    tag: "",
    argv: ["run", "--bench", bench, "--k", String(k)],
    config: { workers: 1, phaseWidth: 2 },
    identity: o.identity ?? { executorModel: "scripted/exec", improverModel: "scripted/improve" },
    runsRoot: "/runs",
    domains,
  };
  let ok = 0;
  let failed = 0;
  let n = 0;
  let sweepUsd = 0;
  for (const { domain, tasks } of domains) {
    for (const [i, task] of tasks.entries()) {
      n++;
      const trips = (o.tripEvery ?? 0) > 0 && n % (o.tripEvery ?? 1) === 0;
      const ns = (mode: ModeToken) => `${bench}-${substrate}-${mode}${k}`;
      const where = { sweep, domain, task };
      yield {
        type: "task.started",
        ts: tick(),
        ...where,
        k,
        modes,
        index: i + 1,
        of: tasks.length,
        taskDir: `/runs/${ns("agg")}/${task.replaceAll("/", "__")}`,
      };
      if (o.stopInTask === n) return;
      for (let b = 1; b <= k; b++) {
        const runId = `${ns("agg")}/${task}/base${b}`;
        yield { type: "rollout.started", ts: tick(), ...where, k, label: `base${b}`, runId };
        yield {
          type: "rollout.finished",
          ts: tick(),
          ...where,
          k,
          label: `base${b}`,
          runId,
          runDir: `/exec/${runId.replaceAll("/", "__")}`,
          ok: true,
          delivered: true,
          usd: 0.01,
          wallS: 3,
          reused: false,
          error: "",
        };
      }
      let taskUsd = 0.01 * k;
      const modeStatus: Record<string, string> = {};
      for (const mode of modes) {
        const inMode = { ...where, mode, k };
        let R = 0;
        let P = 0;
        let modeUsd = 0;
        yield { type: "mode.started", ts: tick(), ...inMode };
        for (let b = 1; b <= k; b++) {
          R++;
          yield {
            type: "ledger.recorded",
            ts: tick(),
            ...inMode,
            kind: "rollout",
            label: `base${b}`,
            usd: 0,
            cached: false,
            attempts: 1,
            R,
            P,
          };
        }
        yield { type: "phase.started", ts: tick(), ...inMode, phase: "proposals" };
        const stages: [string, StageDim][] = [];
        for (let t = 1; t <= k; t++) stages.push(...DIMS[mode](t));
        if (mode === "agg") for (let t = 1; t <= k; t++) stages.push([`agg${t}`, "AGG"]);
        for (const [s, [label, dim]] of stages.entries()) {
          const fellBack = s === 1;
          const usd = 0.02;
          modeUsd += usd;
          yield {
            type: "stage.started",
            ts: tick(),
            ...inMode,
            label,
            dim,
            evidenceDir: `/runs/${ns(mode)}/${task}/context/${label}`,
          };
          yield {
            type: "proposer.call",
            ts: tick(),
            ...inMode,
            label,
            purpose: "stage",
            attempts: fellBack ? 2 : 1,
            channel: "scripted",
            model: "scripted/improve",
            cached: false,
            wallS: 1.5,
            usd,
            error: fellBack ? "invalid proposal: no always-on file" : "",
            auditPath: `/runs/_audit/${ns("agg")}/${label}.json`,
          };
          if (trips && s === 0) {
            yield {
              type: "tripwire.fired",
              ts: tick(),
              ...inMode,
              kind: "grader_verdict",
              path: `context/${label}/rollouts/base1.md`,
              marker: "PASSED",
              stage: label,
              message: "grader verdict marker in evidence",
            };
          }
          yield {
            type: "stage.finished",
            ts: tick(),
            ...inMode,
            label,
            dim,
            fellBack,
            keptBase: false,
            attempts: fellBack ? 2 : 1,
            usd,
            cached: false,
            error: fellBack ? "invalid proposal: no always-on file" : "",
            notes: fellBack ? "fell back to the base tree" : "",
            harnessDir: `/runs/${ns(mode)}/${task}/harnesses/${label}`,
          };
          P++;
          yield {
            type: "ledger.recorded",
            ts: tick(),
            ...inMode,
            kind: "session",
            label,
            usd,
            cached: false,
            attempts: fellBack ? 2 : 1,
            R,
            P,
          };
          const runId = `${ns(mode)}/${task}/${label}`;
          yield { type: "rollout.started", ts: tick(), ...where, k, label, runId };
          yield {
            type: "rollout.finished",
            ts: tick(),
            ...where,
            k,
            label,
            runId,
            runDir: `/exec/${runId.replaceAll("/", "__")}`,
            ok: true,
            delivered: true,
            usd: 0,
            wallS: 2,
            reused: false,
            error: "",
          };
          R++;
          yield {
            type: "ledger.recorded",
            ts: tick(),
            ...inMode,
            kind: "rollout",
            label,
            usd: 0,
            cached: false,
            attempts: 1,
            R,
            P,
          };
        }
        const finals = stages
          .map(([l]) => l)
          .filter((l) => (mode === "agg" ? l.startsWith("agg") : l.startsWith("c")));
        const idMap = Object.fromEntries(finals.map((l, j) => [String.fromCharCode(65 + j), l]));
        const chosen = finals[finals.length - 1] ?? "";
        const anon = Object.keys(idMap).find((key) => idMap[key] === chosen) ?? "";
        const chosenRunId = `${ns(mode)}/${task}/${chosen}`;
        const selUsd = k > 1 ? 0.03 : 0;
        modeUsd += selUsd;
        yield {
          type: "selection.made",
          ts: tick(),
          ...inMode,
          chosenLabel: chosen,
          anonId: anon,
          idMap,
          why: `Candidate ${anon} delivers the complete report\nwith sources.`,
          ok: true,
          fallback: false,
          trivial: k === 1,
          dropped: [],
          usd: selUsd,
          error: "",
          chosenRunId,
          chosenRunDir: `/exec/${chosenRunId.replaceAll("/", "__")}`,
        };
        yield {
          type: "reflection.finished",
          ts: tick(),
          ...inMode,
          ok: true,
          noEntry: false,
          usd: 0,
          error: "",
        };
        yield {
          type: "library.added",
          ts: tick(),
          ...inMode,
          entry: task.replaceAll("/", "__"),
          cue: `tasks like ${task}`,
          lesson: "state the sources",
          confidence: "medium",
          path: `/lib/${mode}/${domain}/harnesses/${task.replaceAll("/", "__")}`,
        };
        yield {
          type: "mode.finished",
          ts: tick(),
          ...inMode,
          status: "ok",
          R,
          P,
          expectedR: 4 * k,
          expectedP: 3 * k,
          fellBack: [stages[1]?.[0] ?? ""],
          keptBase: [],
          similarity: null,
          usd: modeUsd,
          error: "",
        };
        if (o.adoptions !== false) {
          yield {
            type: "adoption.recorded",
            ts: tick(),
            ...inMode,
            chosenLabel: chosen,
            chosenRunId,
            chosenRunDir: `/exec/${chosenRunId.replaceAll("/", "__")}`,
            harnessFingerprint: "0123456789abcdef",
            outputDigest: "c".repeat(64),
            chosenTreeIsBase: false,
            evidence: "deliverable",
            experience: {
              cue: `tasks like ${task}`,
              lesson: "state the sources",
              evidence: "the base run left the sources out",
              confidence: "medium",
              edits: "",
            },
          };
        }
        modeStatus[mode] = "ok";
        taskUsd += modeUsd;
      }
      sweepUsd += taskUsd;
      if (trips) failed++;
      else ok++;
      yield {
        type: "task.finished",
        ts: tick(),
        ...where,
        k,
        status: trips ? "partial" : "ok",
        modes: modeStatus,
        usd: taskUsd,
        wallS: 60,
        error: trips ? "agg: tripwire grader_verdict" : "",
      };
    }
  }
  if (o.stopInTask !== undefined) return;
  yield {
    type: "sweep.finished",
    ts: tick(),
    sweep,
    status: failed > 0 ? "failed" : "ok",
    tasksOk: ok,
    tasksFailed: failed,
    tasksSkipped: 0,
    usd: sweepUsd,
    wallS: (ts - (o.t0 ?? Date.UTC(2026, 10, 30, 9, 0, 0))) / 1000,
  };
}
