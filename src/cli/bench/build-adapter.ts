// Builds the benchmark adapter `harness2 run` (and `check`) asks for: the benchmark's cell on the
// executor --substrate names. Each benchmark's code is imported only when it is the one asked for.

import { resolve } from "node:path";
import type { BenchSource } from "../../core/events/bench-source.ts";
import type { BenchmarkAdapter } from "../../core/seams/benchmark.ts";
import type { Executor } from "../../core/seams/executor.ts";
import { type CliIO, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { type CellArgs, RUNNABLE_BENCHES } from "../sweep/cell-options.ts";

/** Benchmarks this build can run with `harness2 run` (the demo has its own command). */
export { RUNNABLE_BENCHES };

/** What the judge needs to find a sweep's answer keys again, recorded in its configuration. */
export type BenchRecord = BenchSource;

type Built = { adapter: BenchmarkAdapter; warnings: string[]; record: BenchRecord };

export async function executorFor(substrate: string, io: CliIO): Promise<Executor> {
  return substrate === "cx"
    ? new (await import("../../substrate/codex/substrate.ts")).CodexSubstrate({ env: io.env })
    : new (await import("../../substrate/opencode/substrate.ts")).OpencodeSubstrate({
        env: io.env,
      });
}

export async function buildAdapter(args: CellArgs, io: CliIO, runsDir: string): Promise<Built> {
  const bench = args.opts.bench;
  if (bench === undefined) {
    throw new UsageError(`--bench is required (available: ${RUNNABLE_BENCHES.join(", ")})`, "run");
  }
  if (!(RUNNABLE_BENCHES as readonly string[]).includes(bench)) {
    throw new UsageError(
      `--bench must be one of ${RUNNABLE_BENCHES.join(", ")}, got '${bench}'`,
      "run",
    );
  }
  const substrate = args.opts.substrate ?? "oc";
  const subset = subsetOpt(args, bench, "run");
  if (subset !== undefined) return buildWorkBuddy(args, io, runsDir, substrate, subset);
  if (bench === "jb") return buildJobBench(args, io, runsDir, substrate);
  if (args.opts.split !== undefined) {
    throw new UsageError("--split is for --bench jb (main or easy)", "run");
  }
  if (bench === "lab") return buildLab(args, io, runsDir, substrate);
  return buildTasks(args, io, runsDir, substrate);
}

/**
 * A cell of the paper's benchmarks (JobBench, LAB): its data comes from `harness2 setup`, so
 * `--tasks` is refused, and data that setup did not install (or that changed) is one line.
 */
async function buildSetUpCell(
  args: CellArgs,
  io: CliIO,
  bench: "jb" | "lab" | "wb",
  make: (
    deps: string,
    executor: Executor,
  ) => Promise<{ adapter: BenchmarkAdapter; record: BenchRecord }>,
  substrate: string,
): Promise<Built> {
  if (args.opts.tasks !== undefined) {
    const title = { jb: "JobBench", lab: "LAB", wb: "WorkBuddy-Bench" }[bench];
    throw new UsageError(
      `--tasks is for --bench tasks; ${title}'s tasks come from harness2 setup --bench ${bench}`,
      "run",
    );
  }
  const { dependenciesDir } = await import("../../benchmarks/common/install.ts");
  const deps = dependenciesDir(args.opts.dependencies, io.env, io.cwd);
  const made = await make(deps, await executorFor(substrate, io));
  return { ...made, warnings: [] };
}

function buildLab(args: CellArgs, io: CliIO, runsDir: string, substrate: string): Promise<Built> {
  return buildSetUpCell(
    args,
    io,
    "lab",
    async (deps, executor) => {
      const { LabAdapter } = await import("../../benchmarks/lab/lab-adapter.ts");
      const adapter = new LabAdapter({ deps, runsDir, executor, env: io.env });
      return {
        adapter,
        record: { kind: "lab", dependencies: deps, labRoot: adapter.manifest.root },
      };
    },
    substrate,
  );
}

/**
 * `--subset` as `command` takes it: required for --bench wb (unless `optional`), refused for any
 * other benchmark, and one of office, web or code; undefined when it is absent and allowed.
 */
export function subsetOpt(
  args: CellArgs,
  bench: string,
  command: string,
  optional = false,
): "office" | "web" | "code" | undefined {
  const subset = args.opts.subset;
  if (subset === undefined) {
    if (bench === "wb" && !optional) {
      throw new UsageError("--bench wb needs --subset office, web or code", command);
    }
    return undefined;
  }
  if (bench !== "wb") {
    throw new UsageError("--subset is for --bench wb (office, web or code)", command);
  }
  if (subset !== "office" && subset !== "web" && subset !== "code") {
    throw new UsageError(`--subset must be office, web or code, got '${subset}'`, command);
  }
  return subset;
}

/** A paper benchmark's cell as `check` checks it; null for the demo and task folders. */
export type PaperCell =
  | { bench: "jb" | "lab" }
  | { bench: "wb"; subset: "office" | "web" | "code" };

export function cellOf(
  bench: string,
  subset: "office" | "web" | "code" | undefined,
): PaperCell | null {
  if (subset !== undefined) return { bench: "wb", subset };
  return bench === "jb" || bench === "lab" ? { bench } : null;
}

/** `--bench wb --subset office|web|code`: the subset is required, as the runs of each are apart. */
function buildWorkBuddy(
  args: CellArgs,
  io: CliIO,
  runsDir: string,
  substrate: string,
  subset: "office" | "web" | "code",
): Promise<Built> {
  if (args.opts.split !== undefined) {
    throw new UsageError("--split is for --bench jb (main or easy)", "run");
  }
  return buildSetUpCell(
    args,
    io,
    "wb",
    async (deps, executor) => {
      const { WorkBuddyAdapter } = await import("../../benchmarks/workbuddy/wb-adapter.ts");
      const adapter = new WorkBuddyAdapter({ deps, subset, runsDir, executor, env: io.env });
      return {
        adapter,
        record: { kind: "wb", dependencies: deps, subset, wbRoot: adapter.manifest.root },
      };
    },
    substrate,
  );
}

function buildJobBench(
  args: CellArgs,
  io: CliIO,
  runsDir: string,
  substrate: string,
): Promise<Built> {
  const split = args.opts.split ?? "main";
  if (split !== "main" && split !== "easy") {
    throw new UsageError(`--split must be main or easy, got '${split}'`, "run");
  }
  return buildSetUpCell(
    args,
    io,
    "jb",
    async (deps, executor) => {
      const { JobBenchAdapter } = await import("../../benchmarks/jobbench/jb-adapter.ts");
      const adapter = new JobBenchAdapter({ deps, split, runsDir, executor, env: io.env });
      return {
        adapter,
        record: { kind: "jb", dependencies: deps, split, jbRoot: adapter.manifest.root },
      };
    },
    substrate,
  );
}

async function buildTasks(
  args: CellArgs,
  io: CliIO,
  runsDir: string,
  substrate: string,
): Promise<Built> {
  const tasksDir = args.opts.tasks;
  if (tasksDir === undefined) throw new UsageError("--bench tasks needs --tasks DIR", "run");
  const { createTasksAdapter } = await import("../../benchmarks/tasks/tasks-adapter.ts");
  const executor = await executorFor(substrate, io);
  const { formatProblem, TasksRootError } = await import("../../benchmarks/tasks/task-folder.ts");
  let created: ReturnType<typeof createTasksAdapter>;
  try {
    created = createTasksAdapter({
      tasksDir: resolve(io.cwd, tasksDir),
      runsDir,
      env: io.env,
      executor,
      strict: args.opts.strict,
    });
  } catch (err) {
    // A --tasks that names no folder is a bad value on the command line; a folder whose tasks are
    // malformed stays a refusal (exit 1) with the problems listed.
    if (err instanceof TasksRootError) throw new UsageError(`--tasks: ${err.message}`, "run");
    // A folder with nothing in it at all is the wrong folder on the command line, not a refusal.
    const { TasksFormatError } = await import("../../benchmarks/tasks/tasks-adapter.ts");
    if (!(err instanceof TasksFormatError)) throw err;
    if (err.empty) throw new UsageError(`--tasks: ${err.message}`, "run");
    // One problem per line, as `check` prints them, then the one-line refusal.
    for (const p of err.problems) io.stderr(`  ${formatProblem(p)}\n`);
    const n = `${err.problems.length} problem${err.problems.length === 1 ? "" : "s"}`;
    throw new CliError(`task folder '${err.root}' has ${n} (listed above); fix them and run again`);
  }
  // The folder's own harness/ is the base of every task: a broken one refuses the run (and the
  // dry run) before anything is written, as `check` reports it.
  const base = created.adapter.folder.baseHarness;
  if (base !== null) {
    const { checkBaseHarness } = await import("../sweep/base-harness.ts");
    const found = await checkBaseHarness(
      base,
      created.adapter.substrate.surface(),
      created.adapter.spec.allowSubagents,
    );
    const first = found.problems[0];
    if (first !== undefined) {
      const more = found.problems.length > 1 ? ` (and ${found.problems.length - 1} more)` : "";
      throw new CliError(
        `the task folder's ${created.adapter.substrate.baseHarnessFolder}/ is not a valid harness: ${first}${more}; see harness2 check --tasks ${tasksDir}`,
      );
    }
  }
  return {
    adapter: created.adapter,
    warnings: created.problems.map(formatProblem),
    // Where the judge finds the answer keys again (harness2 judge reads config.tasksDir).
    record: { kind: "tasks", tasksDir: resolve(io.cwd, tasksDir) },
  };
}
