// The offline demo benchmark: one `accounting` domain with two ledger tasks whose base harness
// ships a buggy `scripts/summarize.py` (it drops negative amounts). Executions really run that
// script with python3. It never scores anything: scoring lives in demo-scorer.ts, for the judge.

import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { clipText } from "../../core/evidence/clip.ts";
import type { Tree } from "../../core/harness/tree.ts";
import { treeFingerprint } from "../../core/lib/fingerprint.ts";
import { runProcess } from "../../core/lib/process.ts";
import { pythonCandidate, pythonEnv, resolvePython } from "../../core/lib/python.ts";
import { dirExists } from "../../core/lib/safe-fs.ts";
import { isOutputIntact, isRunComplete, writeRunMark } from "../../core/rollout/runmark.ts";
import { BenchPrompts } from "../../core/seams/bench-prompts.ts";
import { type BenchmarkAdapter, BenchSpec } from "../../core/seams/benchmark.ts";
import { ChannelSpec } from "../../core/seams/channel-spec.ts";
import type { SubstrateLike } from "../../core/seams/executor.ts";

export const DEMO_DOMAIN = "accounting";
export const DEMO_TASKS = ["ledger-1", "ledger-2"] as const;
export const DEMO_MODEL = "local/deterministic";
/** At most this many demo domains (`harness2 demo --domains N`). */
export const DEMO_MAX_DOMAINS = 16;

/**
 * The demo's domains: `accounting` alone by default; with more, `accounting-2`, … each holding
 * the same two ledgers under their own task ids (`ledger-1-d2`, …), as independent streams for
 * the domain workers and the queue to spread.
 */
export function demoDomains(n: number): { domain: string; tasks: string[] }[] {
  return Array.from({ length: n }, (_, i) => {
    if (i === 0) return { domain: DEMO_DOMAIN, tasks: [...DEMO_TASKS] };
    return { domain: `${DEMO_DOMAIN}-${i + 1}`, tasks: DEMO_TASKS.map((t) => `${t}-d${i + 1}`) };
  });
}

/** The fixture ledger a demo task id stands for (`ledger-1-d3` is `ledger-1`), or null. */
export function demoFixtureTask(taskId: string): string | null {
  const m = /^(ledger-[12])(?:-d([2-9]|1[0-6]))?$/.exec(taskId);
  return m === null ? null : (m[1] as string);
}

/** Where the demo's data lives in this repository. */
export const DEMO_FIXTURES = resolve(import.meta.dir, "../../../fixtures/demo");

const DEMO_PROMPTS = BenchPrompts.parse({
  work: "reconcile signed amounts in a transaction ledger and report the total",
  domainWord: "bookkeeping",
  deliverableWord: "answer file",
});

const SCRIPT = "scripts/summarize.py";
const INPUT = "ledger.csv";
const ANSWER = "answer.txt";
const TRAJECTORY = "trajectory.md";

export type DemoAdapterOptions = {
  /** The demo's output root; run state goes under `<root>/runs`, the base harness under `<root>/base`. */
  root: string;
  /**
   * Whose editable surface the demo's harness lives on (OpenCode, or Codex with `--substrate cx`):
   * proposals are validated on it. The demo executes no agent CLI, only the harness's python.
   */
  substrate: SubstrateLike;
  env?: Record<string, string | undefined>;
  /** How many domains (default 1: `accounting` with its two ledgers). */
  domains?: number;
};

export class DemoAdapter implements BenchmarkAdapter {
  readonly spec: BenchSpec;
  readonly substrate: SubstrateLike;
  /** Real executions performed by this adapter instance (reused run marks are not counted). */
  executions = 0;
  readonly #base: string;
  /** On the Codex surface: the base is AGENTS.md plus the same script. */
  readonly #codex: boolean;
  readonly #env: Record<string, string | undefined>;
  readonly #domains: { domain: string; tasks: string[] }[];

  constructor(opts: DemoAdapterOptions) {
    this.#domains = demoDomains(Math.min(DEMO_MAX_DOMAINS, Math.max(1, opts.domains ?? 1)));
    this.substrate = opts.substrate;
    const channel = ChannelSpec.parse({ kind: "opencode", model: DEMO_MODEL });
    this.spec = BenchSpec.parse({
      name: "demo",
      runsRoot: join(opts.root, "runs"),
      installMode: opts.substrate.name === "cx" ? "codex_root" : "workspace_config",
      prompts: DEMO_PROMPTS,
      channels: { proposer: channel, selector: channel },
      leakGlobs: ["reference_answer.txt"],
    });
    this.#env = opts.env ?? process.env;
    this.#codex = opts.substrate.name === "cx";
    this.#base = join(opts.root, this.#codex ? "base-cx" : "base");
  }

  /**
   * The base tree, copied out of the repository on first use so nothing a run does can touch the
   * fixtures, and so a refused start (no python3, a bad store) leaves nothing behind. The copy
   * appears whole or not at all (copied aside, then renamed into place): fleet workers running
   * other demo domains start at the same moment, and one must never run a half-copied harness.
   */
  #ensureBase(): string {
    if (!dirExists(this.#base)) {
      const base = this.#codex ? "base-harness-codex" : "base-harness";
      const aside = `${this.#base}.${process.pid}.${crypto.randomUUID().slice(0, 8)}`;
      cpSync(join(DEMO_FIXTURES, base), aside, { recursive: true });
      try {
        renameSync(aside, this.#base);
      } catch (err) {
        // Another process put its copy in place first: theirs is the same files.
        rmSync(aside, { recursive: true, force: true });
        if (!dirExists(this.#base)) throw err;
      }
    }
    return this.#base;
  }

  async tasks(): Promise<string[]> {
    return this.#domains.flatMap((d) => d.tasks);
  }

  domainOf(taskId: string): string {
    return this.#domains.find((d) => d.tasks.includes(taskId))?.domain ?? DEMO_DOMAIN;
  }

  async taskPrompt(taskId: string): Promise<string> {
    return readFileSync(join(this.#taskDir(taskId), "task.md"), "utf8");
  }

  async taskFiles(taskId: string): Promise<string | null> {
    return this.#taskDir(taskId);
  }

  async baseHarness(): Promise<string> {
    return this.#ensureBase();
  }

  async execute(taskId: string, harnessDir: string | null, runId: string): Promise<string> {
    const runDir = join(this.spec.runsRoot, runId);
    const fingerprint = await treeFingerprint(harnessDir);
    const output = join(runDir, "output");
    // Reused only when both the harness and the delivered output still match the run mark.
    if ((await isRunComplete(runDir, fingerprint)) && (await isOutputIntact(runDir, output))) {
      return runDir;
    }

    rmSync(runDir, { recursive: true, force: true });
    const work = join(runDir, "work");
    mkdirSync(work, { recursive: true });
    mkdirSync(output, { recursive: true });
    cpSync(join(this.#taskDir(taskId), INPUT), join(work, INPUT));
    const harness = harnessDir ?? this.#ensureBase();
    cpSync(join(harness, "scripts"), join(work, "scripts"), { recursive: true });

    this.executions++;
    const python = await resolvePython(this.#env);
    const lines = [`[ASSISTANT] I will total the ledger with the harness script.`];
    lines.push(`[ACTION] bash(${JSON.stringify({ command: `python3 ${SCRIPT} ${INPUT}` })})`);
    if (python === null) {
      lines.push("[OBSERVATION ERROR] python3: command not found");
      writeFileSync(join(runDir, TRAJECTORY), `${lines.join("\n")}\n`);
      return runDir;
    }
    const exit = await runProcess({
      argv: [python, SCRIPT, INPUT],
      cwd: work,
      env: pythonEnv(this.#env),
      timeoutMs: 60_000,
    });
    if (exit.code === 0) {
      const printed = exit.stdout.trim();
      lines.push(`[OBSERVATION] ${printed}`);
      writeFileSync(join(output, ANSWER), `${printed}\n`);
      lines.push(`[ACTION] write(${JSON.stringify({ filePath: ANSWER, content: printed })})`);
      lines.push("[OBSERVATION] Wrote file successfully.");
      lines.push(`[ASSISTANT] Saved the script's total to ${ANSWER}.`);
    } else {
      const why = exit.timedOut ? "timed out" : `exit ${exit.code ?? exit.signal}`;
      lines.push(`[OBSERVATION ERROR] ${why}: ${exit.stderrTail.trim()}`);
      lines.push("[ASSISTANT] The script failed; no answer was written.");
    }
    writeFileSync(join(runDir, TRAJECTORY), `${lines.join("\n")}\n`);
    if (exit.code === 0) {
      await writeRunMark(runDir, { runId, harnessFingerprint: fingerprint, outputDir: output });
    }
    return runDir;
  }

  async delivered(runDir: string): Promise<boolean> {
    const answer = join(runDir, "output", ANSWER);
    return existsSync(answer) && readFileSync(answer, "utf8").trim() !== "";
  }

  async trajectory(runDir: string, opts: { obsTrunc: number }): Promise<string> {
    const path = join(runDir, TRAJECTORY);
    if (!existsSync(path)) return "";
    return readFileSync(path, "utf8")
      .split("\n")
      .map((line) => clipObservation(line, opts.obsTrunc))
      .join("\n")
      .trim();
  }

  async deliverableText(runDir: string): Promise<string> {
    const answer = join(runDir, "output", ANSWER);
    return existsSync(answer) ? readFileSync(answer, "utf8") : "(no deliverable produced)";
  }

  async deliverableFiles(runDir: string): Promise<Record<string, string>> {
    const answer = join(runDir, "output", ANSWER);
    return existsSync(answer) ? { [ANSWER]: readFileSync(answer, "utf8") } : {};
  }

  async artifactsIntact(runDir: string): Promise<boolean> {
    return this.delivered(runDir);
  }

  async validateTree(tree: Tree): Promise<string[]> {
    return typeof tree[SCRIPT] === "string"
      ? []
      : [`${SCRIPT} is missing: the demo's executor runs it to total the ledger`];
  }

  async preflight(): Promise<void> {
    if (pythonCandidate(this.#env) === null) {
      // An override that names nothing runnable is the variable's fault, not a missing python3.
      const override = this.#env.HARNESS2_PYTHON;
      throw new Error(
        override === undefined
          ? "python3 is not on PATH: the demo's executions run a Python script (install python3)"
          : `HARNESS2_PYTHON=${override} is not an executable file: fix or unset it (the demo's executions run a Python script)`,
      );
    }
    // Found, so it resolves (a version-manager shim takes a few hundred ms): let that run while
    // the sweep sets up; the first execution waits for the same answer.
    void resolvePython(this.#env);
  }

  #taskDir(taskId: string): string {
    const fixture = demoFixtureTask(taskId);
    if (fixture === null || !this.#domains.some((d) => d.tasks.includes(taskId))) {
      const all = this.#domains.flatMap((d) => d.tasks);
      throw new Error(`unknown demo task '${taskId}' (tasks: ${all.join(", ")})`);
    }
    return join(DEMO_FIXTURES, "tasks", DEMO_DOMAIN, fixture);
  }
}

/** Observation lines are clipped by the renderers' shared rule (and its marker). */
function clipObservation(line: string, limit: number): string {
  const m = /^(\[OBSERVATION(?: ERROR)?\] )(.*)$/.exec(line);
  return m ? `${m[1]}${clipText(m[2], limit)}` : line;
}

/** The signed total of a ledger file, as the demo's tasks define it (used by channel and scorer). */
export function ledgerTotal(csv: string): string {
  let cents = 0;
  for (const raw of csv.split("\n")) {
    const line = raw.trim();
    if (line === "" || line === "amount") continue;
    cents += Math.round(Number.parseFloat(line) * 100);
  }
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
