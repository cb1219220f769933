// Recorded-style event sequences for the TUI tests: a sweep of tasks shaped like the method's
// (bases → proposals → probes → compositions → selection → reflection, R = 4k and P = 3k per
// mode), with knobs for the states the view must show. Deterministic; never used at run time.

import type { HarnessEvent, ModeToken, StageDim } from "../../src/core/events/registry.ts";

export type TaskOptions = {
  k?: number;
  modes?: ModeToken[];
  /** Stage labels that fall back / keep their base / are served from cache. */
  fellBack?: string[];
  keptBase?: string[];
  cached?: string[];
  /** A tripwire fires inside this stage label. */
  tripwireAt?: string;
  /** The selection of this mode falls back to the last final. */
  fallbackIn?: ModeToken;
  /** The reflection of this mode fails (no lesson is stored). */
  reflectionFailsIn?: ModeToken;
  status?: "ok" | "partial" | "failed";
};

export const SWEEP = "swp_20261130_test";
export const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

/** Builds an event list; every event is one second after the previous one. */
export class Script {
  readonly events: HarnessEvent[] = [];
  private ts: number;

  constructor(
    readonly sweep: string = SWEEP,
    t0: number = T0,
    /** Where harness and evidence folders are said to live. */
    readonly root: string = "/runs",
  ) {
    this.ts = t0;
  }

  /** The harness folder a stage of `task` reports (parallel and sequential alike). */
  harnessDir(task: string, label: string): string {
    return `${this.root}/${task}/harnesses/${label}`;
  }

  /** A judgment of the pick of each mode (graded with `score`, or ungraded when null). */
  judged(
    domain: string,
    task: string,
    o: { k?: number; modes?: ModeToken[]; score?: number | null } = {},
  ) {
    const k = o.k ?? 2;
    for (const mode of o.modes ?? ["agg", "seq"]) {
      const label = mode === "agg" ? `agg${k}` : `c${k}`;
      const score = o.score === undefined ? 0.75 : o.score;
      this.push({
        type: "judgment.recorded",
        ts: this.tick(),
        sweep: this.sweep,
        domain,
        task,
        mode,
        k,
        label,
        runId: `${task}/${label}`,
        graded: score !== null,
        score,
        passed: null,
        total: null,
        reason: score === null ? "judge timed out" : "",
        judge: "scripted-judge",
      });
    }
    return this;
  }

  private tick(): number {
    this.ts += 1000;
    return this.ts;
  }

  push(e: HarnessEvent): this {
    this.events.push(e);
    return this;
  }

  sweepStarted(
    domains: { domain: string; tasks: string[] }[],
    o: { ks?: number[]; modes?: ModeToken[]; seed?: number | null } = {},
  ): this {
    return this.push({
      type: "sweep.started",
      ts: this.tick(),
      sweep: this.sweep,
      bench: "demo",
      substrate: "opencode",
      ks: o.ks ?? [2],
      modes: o.modes ?? ["agg", "seq"],
      seed: o.seed === undefined ? 7 : o.seed,
      tag: "",
      argv: ["demo"],
      config: {},
      identity: {},
      runsRoot: "/runs",
      domains,
    });
  }

  sweepFinished(status: "ok" | "failed" | "interrupted" = "ok"): this {
    return this.push({
      type: "sweep.finished",
      ts: this.tick(),
      sweep: this.sweep,
      status,
      tasksOk: 0,
      tasksFailed: 0,
      tasksSkipped: 0,
      usd: 0,
      wallS: 120,
    });
  }

  taskStarted(domain: string, task: string, o: TaskOptions & { index?: number; of?: number } = {}) {
    return this.push({
      type: "task.started",
      ts: this.tick(),
      sweep: this.sweep,
      domain,
      task,
      k: o.k ?? 2,
      modes: o.modes ?? ["agg", "seq"],
      index: o.index ?? 1,
      of: o.of ?? 1,
      taskDir: `/runs/${task}`,
    });
  }

  stageStarted(
    domain: string,
    task: string,
    mode: ModeToken,
    k: number,
    label: string,
    dim: StageDim,
  ) {
    return this.push({
      type: "stage.started",
      ts: this.tick(),
      sweep: this.sweep,
      domain,
      task,
      mode,
      k,
      label,
      dim,
      evidenceDir: `${this.root}/${task}/context/${label}`,
    });
  }

  /** Every event of one task, from task.started to task.finished. */
  task(domain: string, task: string, o: TaskOptions & { index?: number; of?: number } = {}): this {
    const k = o.k ?? 2;
    const modes = o.modes ?? ["agg", "seq"];
    const at = { sweep: this.sweep, domain, task };
    this.taskStarted(domain, task, o);
    for (let b = 1; b <= k; b++) this.rollout(domain, task, k, `base${b}`);
    for (const mode of modes) {
      const inMode = { ...at, mode, k };
      let R = 0;
      let P = 0;
      this.push({ type: "mode.started", ts: this.tick(), ...inMode });
      this.push({ type: "phase.started", ts: this.tick(), ...inMode, phase: "bases" });
      for (let b = 1; b <= k; b++) {
        R++;
        this.ledger(inMode, "rollout", `base${b}`, R, P);
      }
      const proposals: [string, StageDim][] = [];
      for (let t = 1; t <= k; t++) proposals.push([`inv${t}`, "INV"], [`dom${t}`, "DOM"]);
      const finals: [string, StageDim][] = [];
      for (let t = 1; t <= k; t++) {
        finals.push(mode === "agg" ? [`agg${t}`, "AGG"] : [`c${t}`, "COMPOSE"]);
      }
      this.push({ type: "phase.started", ts: this.tick(), ...inMode, phase: "proposals" });
      for (const [label, dim] of proposals) {
        P++;
        this.stage(inMode, label, dim, o);
        this.ledger(inMode, "session", label, R, P);
      }
      this.push({ type: "phase.started", ts: this.tick(), ...inMode, phase: "probes" });
      for (const [label] of proposals) {
        R++;
        this.rollout(domain, task, k, label);
        this.ledger(inMode, "rollout", label, R, P);
      }
      this.push({ type: "phase.started", ts: this.tick(), ...inMode, phase: "compositions" });
      for (const [label, dim] of finals) {
        P++;
        this.stage(inMode, label, dim, o);
        this.ledger(inMode, "session", label, R, P);
        R++;
        this.rollout(domain, task, k, label);
        this.ledger(inMode, "rollout", label, R, P);
      }
      this.push({ type: "phase.started", ts: this.tick(), ...inMode, phase: "selection" });
      const labels = finals.map(([l]) => l);
      const idMap = Object.fromEntries(labels.map((l, i) => [String.fromCharCode(65 + i), l]));
      const fallback = o.fallbackIn === mode;
      const chosen = labels[labels.length - 1] ?? "";
      const anonId = k === 1 ? "" : (Object.keys(idMap).find((a) => idMap[a] === chosen) ?? "");
      if (k > 1) {
        // The selector's call, and its repair turn when the first reply had no usable choice.
        this.call(inMode, `select.${mode}${k}`, "selection", fallback ? 0.02 : 0.03, false);
        if (fallback) this.call(inMode, `select.${mode}${k}.repair1`, "selection", 0.01, false);
      }
      this.push({
        type: "selection.made",
        ts: this.tick(),
        ...inMode,
        chosenLabel: chosen,
        anonId,
        idMap: k === 1 ? {} : idMap,
        why: fallback ? "" : `Candidate ${anonId} reconciles every ledger\nand cites the sources.`,
        ok: !fallback,
        fallback,
        trivial: k === 1,
        dropped: [],
        usd: k === 1 ? 0 : 0.03,
        error: fallback ? "selector reply had no CHOICE line" : "",
      });
      this.push({ type: "phase.started", ts: this.tick(), ...inMode, phase: "reflection" });
      this.call(inMode, `experience.${mode}${k}`, "reflection", 0.01, false);
      const reflectionFails = o.reflectionFailsIn === mode;
      this.push({
        type: "reflection.finished",
        ts: this.tick(),
        ...inMode,
        ok: !reflectionFails,
        noEntry: false,
        usd: 0.01,
        error: reflectionFails ? "reflection reply unusable: no LESSON block" : "",
      });
      if (!reflectionFails) {
        this.push({
          type: "library.added",
          ts: this.tick(),
          ...inMode,
          entry: task,
          cue: `ledgers like ${task}`,
          lesson: "reconcile before reporting",
          confidence: "medium",
          path: `/lib/${task}`,
        });
      }
      this.push({
        type: "mode.finished",
        ts: this.tick(),
        ...inMode,
        status: "ok",
        R,
        P,
        expectedR: 4 * k,
        expectedP: 3 * k,
        fellBack: o.fellBack ?? [],
        keptBase: o.keptBase ?? [],
        similarity: null,
        usd: 0.2,
        error: "",
      });
    }
    return this.push({
      type: "task.finished",
      ts: this.tick(),
      ...at,
      k,
      status: o.status ?? "ok",
      modes: Object.fromEntries(modes.map((m) => [m, "ok"])),
      usd: 0.5,
      wallS: 42,
      error: o.status && o.status !== "ok" ? "agg: tripwire grader_verdict" : "",
    });
  }

  private stage(
    inMode: { sweep: string; domain: string; task: string; mode: ModeToken; k: number },
    label: string,
    dim: StageDim,
    o: TaskOptions,
  ): void {
    const fellBack = o.fellBack?.includes(label) ?? false;
    const keptBase = o.keptBase?.includes(label) ?? false;
    const cached = o.cached?.includes(label) ?? false;
    this.stageStarted(inMode.domain, inMode.task, inMode.mode, inMode.k, label, dim);
    // Real labels: one call per stage attempt, `<stage>.a<N>` (src/core/recursion/stage.ts). A stage that
    // falls back here spent two attempts whose proposals did not validate.
    const attempts = fellBack ? 2 : 1;
    for (let a = 1; a <= attempts; a++) {
      this.call(inMode, `${label}.a${a}`, "stage", 0.02 / attempts, cached);
    }
    if (o.tripwireAt === label) {
      this.push({
        type: "tripwire.fired",
        ts: this.tick(),
        ...inMode,
        kind: "grader_verdict",
        path: `context/${label}/rollouts/base1.md`,
        marker: "PASSED",
        stage: label,
        message: "grader verdict marker in evidence",
      });
    }
    this.push({
      type: "stage.finished",
      ts: this.tick(),
      ...inMode,
      label,
      dim,
      fellBack,
      keptBase,
      attempts: fellBack ? 2 : 1,
      usd: cached ? 0 : 0.02,
      cached,
      error: fellBack ? "invalid proposal: skills/x/SKILL.md needs a description\nsecond line" : "",
      notes: keptBase ? "KEEP_BASE: nothing to improve" : "edited the system prompt",
      harnessDir: this.harnessDir(inMode.task, label),
    });
  }

  private call(
    inMode: { sweep: string; domain: string; task: string; mode: ModeToken; k: number },
    label: string,
    purpose: "stage" | "selection" | "reflection",
    usd: number,
    cached: boolean,
  ): void {
    this.push({
      type: "proposer.call",
      ts: this.tick(),
      ...inMode,
      label,
      purpose,
      attempts: 1,
      channel: "scripted",
      model: "scripted/improve",
      cached,
      wallS: 1,
      usd,
      error: "",
      auditPath: `${this.root}/_audit/${label}.json`,
    });
  }

  private rollout(domain: string, task: string, k: number, label: string): void {
    const runId = `${task}/${label}`;
    const at = { sweep: this.sweep, domain, task, k };
    this.push({ type: "rollout.started", ts: this.tick(), ...at, label, runId });
    this.push({
      type: "rollout.finished",
      ts: this.tick(),
      ...at,
      label,
      runId,
      runDir: `/exec/${label}`,
      ok: true,
      delivered: true,
      usd: 0.01,
      wallS: 3,
      reused: false,
      error: "",
    });
  }

  private ledger(
    inMode: { sweep: string; domain: string; task: string; mode: ModeToken; k: number },
    kind: "rollout" | "session",
    label: string,
    R: number,
    P: number,
  ): void {
    this.push({
      type: "ledger.recorded",
      ts: this.tick(),
      ...inMode,
      kind,
      label,
      usd: 0,
      cached: false,
      attempts: 1,
      R,
      P,
    });
  }
}

/** A sweep of `domains` × `tasksPerDomain` tasks, each fully run. */
export function sweepScript(o: { domains: number; tasksPerDomain: number; k?: number }): Script {
  const s = new Script();
  const domains = Array.from({ length: o.domains }, (_, d) => ({
    domain: `d${d}`,
    tasks: Array.from({ length: o.tasksPerDomain }, (_, i) => `d${d}-task-${i}`),
  }));
  s.sweepStarted(domains, { ks: [o.k ?? 2] });
  for (const { domain, tasks } of domains) {
    for (const [i, task] of tasks.entries()) {
      s.task(domain, task, { k: o.k ?? 2, index: i + 1, of: tasks.length });
    }
  }
  return s.sweepFinished();
}
