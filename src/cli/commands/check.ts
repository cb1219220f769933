// `harness2 check`: everything a run needs, checked before money is spent — the opencode binary
// and its version, python3, git, the model settings, the task folder, the runs directory and the
// store — one line per problem with its fix. Offline unless `--live`, which sends one tiny request
// to the improver and to the solver model through their real channels.

import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../../../package.json" with { type: "json" };
import { ownedTempDir } from "../../core/lib/temp-dirs.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { ConfigError } from "../../core/run/env-vars.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import { checkGit, checkPython, checkSandbox } from "../check/host.ts";
import { liveImprover, liveSolver } from "../check/live.ts";
import { checkModels } from "../check/models.ts";
import { Report } from "../check/report.ts";
import { checkRunsAndStore } from "../check/store.ts";
import { type CliIO, defineCommand, type OptionSpecs, type ParsedArgs } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { checkedLocation } from "../runs/run-handle.ts";
import { CELL_OPTIONS, DEPENDENCIES_OPTION, SUBSTRATES } from "../sweep/cell-options.ts";
import {
  applyPart,
  PARTITION_OPTIONS,
  type PartChoice,
  partChoice,
} from "../sweep/partition-opts.ts";

const BENCHES = ["tasks", "jb", "lab", "wb", "demo"] as const;
type Bench = (typeof BENCHES)[number];

const OPTIONS = {
  ...CELL_OPTIONS,
  bench: {
    type: "choice",
    choices: BENCHES,
    description: `benchmark to check for: ${BENCHES.join(" or ")} (default tasks)`,
  },
  ...DEPENDENCIES_OPTION,
  runs: {
    type: "string",
    valueName: "DIR",
    description: "runs directory (default $HARNESS2_RUNS_DIR or runs)",
  },
  substrate: {
    type: "choice",
    choices: SUBSTRATES,
    description: "executor to check for: oc (OpenCode, default) or cx (Codex)",
  },
  live: {
    type: "boolean",
    description: "also send one tiny request to the improver and solver models",
  },
  ...PARTITION_OPTIONS,
  json: {
    type: "boolean",
    description:
      "print one JSON object {ready, problems, bench, substrate, tasks, modelsCalled, checks}",
  },
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const check = defineCommand({
  name: "check",
  summary:
    "Check the setup before spending money: opencode, python3, git, models, tasks, runs, store",
  help: [
    "Every problem is one line starting FAIL, with its fix; the exit status is 1 when there is any.",
    "Offline by default: no model is called. With --live, one tiny request goes to the improver",
    "model and one to the solver model, through the same channels a run uses, and the latency and",
    "cost of each are printed (a bad model id shows up here, not in the first paid rollout).",
    "--json prints the same checks as one object instead of lines; the exit status is the same.",
  ].join("\n"),
  options: OPTIONS,
  run: runCheck,
});

export default check;

/** The chosen part of a partition against this cell's task list; the task count it leaves. */
async function checkPart(
  report: Report,
  choice: PartChoice,
  args: Args,
  io: CliIO,
  all: number,
): Promise<number> {
  try {
    const { buildAdapter } = await import("../bench/build-adapter.ts");
    const where = checkedLocation(args, io);
    const { adapter } = await buildAdapter(args, io, where.runsDir);
    const part = await applyPart(choice, adapter, args);
    report.line("ok", "partition", part.note.replace(/^partition: /, ""));
    return part.tasks.length;
  } catch (err) {
    report.line(
      "FAIL",
      "partition",
      err instanceof Error ? err.message : String(err),
      "make a partition of this benchmark with harness2 split",
    );
    return all;
  }
}

async function runCheck(args: Args, io: CliIO): Promise<number> {
  const bench: Bench = args.opts.bench ?? "tasks";
  const substrate = args.opts.substrate ?? "oc";
  const { cellOf, subsetOpt } = await import("../bench/build-adapter.ts");
  const cell = cellOf(bench, subsetOpt(args, bench, "check"));
  const env = io.env;
  const json = args.opts.json;
  const choice = partChoice(args, io, "check");
  const report = new Report(io, json);
  const scratch = ownedTempDir("check");
  try {
    let config: RunConfig | null = null;
    try {
      config = loadRunConfig(env, { cwd: io.cwd });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      report.line("FAIL", err.variable, err.message, "set it as described, in .env or the shell");
    }
    // The demo's executions and improvers are local scripts: it needs python3 and a runs dir only.
    const models = bench !== "demo";
    const opencodeOk = models ? await checkOpencode(report, env, scratch) : true;
    await checkPython(report, env);
    if (models) checkGit(report, env);
    if (models) await checkSandbox(report, env);
    let modelsOk = true;
    const cx = models && substrate === "cx";
    if (config !== null && models) {
      modelsOk = await checkModels(report, env, config, { solverOnOpencode: !cx });
    }
    if (config !== null && cx && bench !== "wb") {
      const { checkCodex } = await import("../check/codex.ts");
      modelsOk = (await checkCodex(report, env, config, join(scratch, "codex"))) && modelsOk;
    }
    let taskCount = 0;
    if (bench === "tasks") {
      taskCount = await checkTasks(report, args.opts.tasks, io.cwd, substrate);
    }
    if (cell !== null) {
      const { checkCell } = await import("../check/bench-data.ts");
      taskCount = await checkCell(report, cell, { args, io, config, substrate });
    }
    if (choice !== null) taskCount = await checkPart(report, choice, args, io, taskCount);
    await checkRunsAndStore(report, args.opts.runs, env, io.cwd);

    let liveRan = false;
    if (args.opts.live) {
      if (config === null || !modelsOk || !opencodeOk || bench === "demo") {
        report.line(
          "skip",
          "live check",
          bench === "demo"
            ? `the ${bench} benchmark calls no model`
            : "not attempted until the problems above are fixed",
        );
      } else {
        await liveImprover(report, env, config, scratch);
        await liveSolver(report, env, config, scratch);
        liveRan = true;
      }
    }

    if (json) {
      const out = {
        ready: report.problems === 0,
        problems: report.problems,
        bench,
        substrate,
        tasks: taskCount,
        modelsCalled: liveRan,
        checks: report.lines,
      };
      io.stdout(`${JSON.stringify(out, null, 2)}\n`);
      return report.problems > 0 ? EXIT.failed : EXIT.ok;
    }
    if (report.problems > 0) {
      io.stdout(
        `Setup incomplete: ${report.problems} problem${report.problems === 1 ? "" : "s"}.\n`,
      );
      return EXIT.failed;
    }
    if (bench === "demo") {
      io.stdout(`Ready: ${bench}.\n`);
      return EXIT.ok;
    }
    const called = liveRan
      ? "Both models answered."
      : "No model was called; --live sends one tiny request to each.";
    io.stdout(
      `Ready: ${bench}/${substrate}, ${taskCount} task${taskCount === 1 ? "" : "s"}. ${called}\n`,
    );
    return EXIT.ok;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ── binaries ─────────────────────────────────────────────────────────────────────────────────

async function checkOpencode(
  report: Report,
  env: Record<string, string | undefined>,
  scratch: string,
): Promise<boolean> {
  const { OpencodeSolver, SolverSetupError } = await import("../../substrate/opencode/execute.ts");
  try {
    const solver = new OpencodeSolver({ env });
    const version = await solver.version(join(scratch, "version"));
    const pinned = pkg.dependencies["opencode-ai"];
    const source = solver.cli.command.source;
    if (env.HARNESS2_OPENCODE_DIR) {
      report.line("ok", "opencode", `${version} from ${source} (a source checkout: not pinned)`);
    } else if (version !== pinned) {
      report.line(
        "FAIL",
        "opencode",
        `${source} is version ${version}, not the pinned ${pinned}`,
        "run `bun install` in the harness2 folder (or remove the other opencode from PATH)",
      );
      return false;
    } else report.line("ok", "opencode", `${version} at ${source}`);
    return true;
  } catch (err) {
    if (!(err instanceof SolverSetupError)) throw err;
    report.line("FAIL", "opencode", err.reason, err.hint);
    return false;
  }
}

// ── task folder, runs directory, store ───────────────────────────────────────────────────────

async function checkTasks(
  report: Report,
  dir: string | undefined,
  cwd: string,
  substrate: "oc" | "cx",
): Promise<number> {
  if (dir === undefined) {
    report.line(
      "FAIL",
      "task folder",
      "none given",
      "pass --tasks DIR (see fixtures/tasks/README.md)",
    );
    return 0;
  }
  const root = resolve(cwd, dir);
  const { readTaskFolder, TasksRootError, TASK_LAYOUT } = await import(
    "../../benchmarks/tasks/task-folder.ts"
  );
  const surface = await surfaceOf(substrate);
  const harnessFolder = substrate === "cx" ? TASK_LAYOUT.codexHarness : TASK_LAYOUT.harness;
  let folder: ReturnType<typeof readTaskFolder>;
  try {
    folder = readTaskFolder(root, surface, harnessFolder);
  } catch (err) {
    if (!(err instanceof TasksRootError)) throw err;
    report.line("FAIL", "task folder", err.message, "pass --tasks with an existing folder");
    return 0;
  }
  for (const p of folder.problems) report.line("FAIL", p.path, p.problem, p.fix);
  await reportReservedStrings(report, folder.tasks);
  if (folder.baseHarness !== null) {
    await reportBaseHarness(report, folder.baseHarness, substrate);
  }
  const domains = new Set(folder.tasks.map((t) => t.domain)).size;
  if (folder.tasks.length > 0) {
    report.line(
      "ok",
      "task folder",
      `${root}: ${folder.tasks.length} task${folder.tasks.length === 1 ? "" : "s"} in ${domains} domain${domains === 1 ? "" : "s"}${folder.baseHarness === null ? ", baseline harness" : `, ${harnessFolder}/ as the base`}`,
    );
  }
  return folder.tasks.length;
}

/**
 * A reserved string (one only a grader's output carries) in a task's task.md or inputs: run
 * refuses the folder for it before anything is spent, so check says FAIL.
 */
async function reportReservedStrings(
  report: Report,
  tasks: readonly { id: string; dir: string; instructions: string; inputsDir: string | null }[],
): Promise<void> {
  const { reservedStringProblems } = await import("../../benchmarks/tasks/reserved-strings.ts");
  for (const p of reservedStringProblems(tasks)) report.line("FAIL", p.subject, p.problem, p.fix);
}

async function surfaceOf(substrate: "oc" | "cx") {
  return substrate === "cx"
    ? (await import("../../substrate/codex/surface.ts")).CODEX_SURFACE
    : (await import("../../substrate/opencode/surface.ts")).OPENCODE_SURFACE;
}

async function reportBaseHarness(
  report: Report,
  dir: string,
  substrate: "oc" | "cx",
): Promise<void> {
  const { checkBaseHarness } = await import("../sweep/base-harness.ts");
  // Codex loads no sub-agents, so a Codex base harness may not bring any.
  const found = await checkBaseHarness(dir, await surfaceOf(substrate), substrate === "oc");
  const surface = substrate === "cx" ? " --surface codex" : "";
  const fix = `edit the harness (\`harness2 validate ${dir}${surface}\` shows the same)`;
  for (const p of found.problems) report.line("FAIL", dir, p, fix);
  for (const rel of found.ignored) {
    report.line("note", dir, `${rel} is off the editable surface and is ignored`);
  }
}
