// `harness2 demo`: the whole method offline — real recursion, selection, reflection and library on
// two ledger tasks, real python3 executions, the real proposer loop through a scripted channel.
// Run it twice: the second run executes nothing and calls no improver (every task is skipped).

import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { directoryProblem, openStore } from "../../../store/db.ts";
import { DEMO_MAX_DOMAINS, DemoAdapter, demoDomains } from "../../benchmarks/demo/demo-adapter.ts";
import { DemoChannel, demoCallUsd } from "../../benchmarks/demo/demo-channel.ts";
import { type PayoffInput, readPayoff, renderPayoff } from "../../benchmarks/demo/payoff.ts";
import { squish } from "../../core/lib/format.ts";
import { Proposer } from "../../core/proposer/proposer.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { MODE_NAMES, parseModes, taskDir } from "../../core/run/naming.ts";
import {
  type CliIO,
  defineCommand,
  type OptionSpecs,
  type ParsedArgs,
  UsageError,
} from "../command.ts";
import { CliError } from "../errors.ts";
import { selfCommand } from "../help/self.ts";
import { workerOf } from "../queue/worker-env.ts";
import { checkedLocation } from "../runs/run-handle.ts";
import { CAP_OPTIONS, capsOf } from "../spend/spend-cap.ts";
import { SUBSTRATES } from "../sweep/cell-options.ts";
import { chooseFrontEnd, SWEEP_FRONT_OPTIONS } from "../sweep/front-end.ts";
import { runSweepSession } from "../sweep/sweep-session.ts";

/** What every demo sweep cell shares: the demo benchmark, no seed, no tag. */
const DEMO_CELL = { benchmark: "demo", seed: null, tag: "" } as const;

const OPTIONS = {
  k: {
    type: "int",
    min: 1,
    max: 8,
    valueName: "N",
    description: "candidates per mode (default 2)",
  },
  mode: {
    type: "string",
    valueName: "LIST",
    description: "comma list of parallel,sequential (default both)",
  },
  output: {
    type: "string",
    valueName: "DIR",
    description: "where the demo writes (default <runs>/demo)",
  },
  substrate: {
    type: "choice",
    choices: SUBSTRATES,
    description: "whose editable surface the harness is on: oc (default) or cx (Codex)",
  },
  domains: {
    type: "int",
    min: 1,
    max: DEMO_MAX_DOMAINS,
    valueName: "N",
    description: "how many accounting domains, each with the two ledgers (default 1)",
  },
  "only-domains": {
    type: "string",
    valueName: "LIST",
    description: "comma list of domains to run",
  },
  queue: {
    type: "boolean",
    description: "queue one job per domain on the shared store for `harness2 worker`s",
  },
  ...CAP_OPTIONS,
  ...SWEEP_FRONT_OPTIONS,
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const demo = defineCommand({
  name: "demo",
  summary: "Run the whole method offline on two small ledger tasks (no model, no credentials)",
  help: [
    "The base harness's script drops negative amounts; scripted improvers fix it, a blind",
    "selector picks the candidate whose total matches the ledger, and a reflector stores the",
    "lesson in the library. Executions really run python3. Running it again resumes: nothing",
    "is executed twice and every task reports skipped.",
  ].join("\n"),
  options: OPTIONS,
  run: runDemo,
});

export default demo;

async function runDemo(args: Args, io: CliIO): Promise<number> {
  const k = args.opts.k ?? 2;
  const caps = capsOf(args.opts, "demo");
  const callUsd = demoCallUsd(io.env);
  const substrateName = args.opts.substrate ?? "oc";
  const modeList = args.opts.mode ?? "parallel,sequential";
  let modes: ReturnType<typeof parseModes>;
  try {
    modes = parseModes(modeList === "both" ? "parallel,sequential" : modeList);
  } catch (err) {
    throw new UsageError((err as Error).message, "demo");
  }
  // Everything that can refuse the start is checked before anything is written: the runs
  // directory and the output folder (a regular file there was a raw ENOTDIR/EEXIST after the
  // sweep had started), then python3, then the store (corrupt, foreign, newer).
  const where = checkedLocation(args, io, { create: true });
  const outputFlag = args.opts.output;
  const output = resolve(io.cwd, outputFlag ?? join(where.runsDir, "demo"));
  const outputProblem = directoryProblem(output, true);
  if (outputProblem !== null) {
    const fix =
      outputFlag === undefined
        ? `move it aside, or choose another place with --output DIR or --runs DIR`
        : "choose another directory with --output DIR";
    throw new CliError(outputProblem, {
      fix,
      kind: outputFlag === undefined ? "refusal" : "usage",
    });
  }
  const config = loadRunConfig({ ...io.env, HARNESS2_RUNS_DIR: where.runsDir }, { cwd: io.cwd });
  const frontEnd = chooseFrontEnd(io, {
    noTui: args.opts["no-tui"],
    json: args.opts.json,
  });

  // The adapter copies its base harness lazily, on first use, so its preflight (python3) runs
  // before the store is created: a machine without python3 gets one line and an untouched disk.
  // Only the surface is used: the demo runs no agent CLI, so neither binary is looked up.
  const substrate =
    substrateName === "cx"
      ? new (await import("../../substrate/codex/substrate.ts")).CodexSubstrate({ env: io.env })
      : new (await import("../../substrate/opencode/substrate.ts")).OpencodeSubstrate({
          env: io.env,
        });
  const domains = args.opts.domains ?? 1;
  const adapter = new DemoAdapter({ root: output, env: io.env, substrate, domains });
  const onlyDomains = onlyDemoDomains(args.opts["only-domains"], domains);
  await adapter.preflight();
  // The store's own refusals (corrupt, foreign, newer) before anything else is written; a
  // PostgreSQL store is opened by the session (or the queue) itself.
  if (where.pg === null) openStore(where.dbPath).close();
  const channel = new DemoChannel({ callUsd });
  const runsRoot = join(output, "runs");
  // One library per surface: a lesson learnt on OpenCode is never served to a Codex run.
  const libraryRoot = join(
    output,
    "library",
    substrateName === "oc" ? `k${k}` : `${substrateName}-k${k}`,
  );

  const identity = { channel: channel.kind, model: adapter.spec.channels.proposer?.model ?? "" };
  if (args.opts.queue) {
    const { queueSweep } = await import("../queue/plan.ts");
    const { taskStream } = await import("../../core/schedule/stream.ts");
    return await queueSweep({
      io,
      where,
      argv: ["demo", ...process.argv.slice(3)],
      stream: await taskStream(adapter, { onlyDomains, seed: null }),
      cell: { ...DEMO_CELL, substrate: substrateName, k, modes },
      identity,
    });
  }

  if (frontEnd === "lines") {
    // Someone new reads stage names, budgets and blind ids from the first line on (issue 35).
    const self = selfCommand(io.env, io.cwd);
    io.stdout(
      `How to read this: improvers propose INV (any task of this kind) and DOM (this domain) edits of the harness, AGG/COMPOSE combine them; R/P count rollouts and improver sessions against their budget; [A] is the blind id the selector saw. Every word: ${self} help concepts\n`,
    );
  }
  const session = await runSweepSession({
    io,
    location: where,
    caps,
    ...workerOf(io.env),
    frontEnd,
    title: `demo k=${k}`,
    sessionLimit: config.sessionLimit,
    makeProposer: (ctx) =>
      new Proposer({
        channel,
        spec: adapter.spec.channels.proposer as NonNullable<
          (typeof adapter.spec.channels)["proposer"]
        >,
        auditDir: join(runsRoot, "_audit"),
        runsRoot,
        attempts: config.transportAttempts,
        backoffS: 0, // a scripted channel has nothing to wait for
        ...ctx,
      }),
    inputs: {
      adapter,
      limits: config,
      runsRoot,
      libraryRoot,
      k,
      modes,
    },
    sweepOptions: {
      argv: ["demo", ...process.argv.slice(3)],
      config: {
        k,
        domains,
        modes,
        output,
        phaseWidth: config.phaseWidth,
        sessionLimit: config.sessionLimit,
        libraryMaxEntries: config.libraryMaxEntries,
        libraryMaxBytes: config.libraryMaxBytes,
      },
      identity,
      onlyDomains,
    },
  });

  // Stopped by its spending cap: the session said what was spent and how to resume; there is no
  // before → after to show yet.
  if (session.capped) return session.exitCode;
  await writeDemoEnding(args, io, {
    session,
    output,
    k,
    modes,
    runsRoot,
    libraryRoot,
    adapter,
    channel,
    surface: substrate.surface(),
    frontEnd,
    runsDir: where.runsDir,
  });
  return session.exitCode;
}

/** The domains --only-domains names, each one of the demo's (else a usage error). */
function onlyDemoDomains(flag: string | undefined, domains: number): string[] {
  const only = (flag ?? "")
    .split(",")
    .map((d) => d.trim())
    .filter((d) => d !== "");
  const known = demoDomains(domains).map((d) => d.domain);
  const unknown = only.filter((d) => !known.includes(d));
  if (unknown.length > 0) {
    throw new UsageError(
      `--only-domains names no demo domain: ${unknown.join(", ")} (domains: ${known.join(", ")})`,
      "demo",
    );
  }
  return only;
}

/** What a finished demo leaves: demo.json with the payoff, and (not for --json) its story. */
async function writeDemoEnding(
  args: Args,
  io: CliIO,
  d: {
    session: Awaited<ReturnType<typeof runSweepSession>>;
    output: string;
    k: number;
    modes: ("agg" | "seq")[];
    runsRoot: string;
    libraryRoot: string;
    adapter: DemoAdapter;
    channel: DemoChannel;
    surface: PayoffInput["surface"];
    frontEnd: string;
    runsDir: string;
  },
): Promise<void> {
  const { session, output, k, modes, runsRoot, libraryRoot, adapter, channel, frontEnd } = d;
  const rows = session.result.domains.flatMap((d) => ("error" in d ? [] : d.tasks));
  const ok = rows.filter((r) => r.status === "ok").length;
  const skipped = rows.filter((r) => r.status === "skipped").length;
  const failed = rows.length - ok - skipped;
  // A domain that died has no task rows; it is counted on its own, and the exit code is the
  // session's, which counts it as a failure too.
  const deadDomains = session.result.domains.flatMap((d) =>
    "error" in d ? [{ domain: d.domain, error: d.error }] : [],
  );
  const payoff = readPayoff({
    tasks: taskFolders(runsRoot, session.result, modes),
    modes,
    libraryRoot,
    baseHarness: await adapter.baseHarness(),
    surface: d.surface,
  });
  const report = {
    sweep: session.sweep,
    output,
    k,
    modes: modes.map((m) => MODE_NAMES[m]),
    tasks: { ok, skipped, failed },
    failedDomains: deadDomains,
    executions: adapter.executions,
    improverCalls: channel.sessions,
    // Each task's pick per mode and its answer, read back from its summary (skipped tasks too).
    chosen: payoff.rows.map((r) => ({ task: r.task, mode: r.mode, ...r.chosen })),
    payoff,
    interrupted: session.interrupted,
  };
  // An early interrupt (a closed stdout stops the sweep before its first task) may leave no
  // output folder yet.
  mkdirSync(output, { recursive: true });
  writeFileSync(join(output, "demo.json"), `${JSON.stringify(report, null, 2)}\n`);
  if (frontEnd !== "json") {
    const dead = deadDomains.length > 0 ? `, ${deadDomains.length} domain(s) failed` : "";
    io.stdout(
      `Local demo: ${ok} task(s) completed, ${skipped} skipped, ${failed} failed${dead}; ${adapter.executions} execution(s), ${channel.sessions} improver call(s). ${output}\n`,
    );
    for (const d of deadDomains) io.stdout(`  domain ${d.domain} failed: ${squish(d.error)}\n`);
    // The hints name --runs when it was given: they must work as printed.
    const runsFlag = args.opts.runs === undefined ? "" : ` --runs ${d.runsDir}`;
    const self = selfCommand(io.env, io.cwd);
    for (const line of renderPayoff(payoff, { sweep: session.sweep, runsFlag, self })) {
      io.stdout(`${line}\n`);
    }
  }
}

/** Each task's folder per mode, in stream order (also for skipped tasks). */
function taskFolders(
  runsRoot: string,
  result: Awaited<ReturnType<typeof runSweepSession>>["result"],
  modes: readonly ("agg" | "seq")[],
): PayoffInput["tasks"] {
  const cell = (mode: "agg" | "seq") => ({
    benchmark: result.benchmark,
    substrate: result.substrate,
    mode,
    k: result.k,
    seed: result.seed,
    tag: result.tag,
  });
  return result.domains.flatMap((d) =>
    "error" in d
      ? []
      : d.tasks.map((row) => ({
          task: row.task,
          domain: d.domain,
          summary: taskDir(runsRoot, cell("agg"), row.task),
          dirs: Object.fromEntries(modes.map((m) => [m, taskDir(runsRoot, cell(m), row.task)])),
        })),
  );
}
