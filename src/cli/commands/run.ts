// `harness2 run`: an adaptation sweep on a benchmark — builds the adapter, the improver channel and
// the proposer from flags and environment, then runs it through the shared sweep session (store,
// lock, identity, front end). `--dry-run` prints the stream and budgets and touches nothing.

import { join } from "node:path";
import { improverChannel } from "../../benchmarks/common/cell.ts";
import { sourceRecord } from "../../core/events/bench-source.ts";
import type { ModeToken } from "../../core/events/registry.ts";
import { Proposer } from "../../core/proposer/proposer.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { parseModes, validateTag } from "../../core/run/naming.ts";
import type { RunConfig } from "../../core/run/run-config.ts";
import { ALLOW_WEB, webPolicyOf } from "../../core/run/web-policy.ts";
import { StreamError, taskStream } from "../../core/schedule/stream.ts";
import type { BenchmarkAdapter } from "../../core/seams/benchmark.ts";
import type { Channel } from "../../core/seams/channel.ts";
import type { ChannelSpec } from "../../core/seams/channel-spec.ts";
import { buildAdapter } from "../bench/build-adapter.ts";
import {
  type CliIO,
  defineCommand,
  type OptionSpecs,
  type ParsedArgs,
  UsageError,
} from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { workerOf } from "../queue/worker-env.ts";
import { checkedLocation } from "../runs/run-handle.ts";
import {
  assertCapEnforceable,
  CAP_OPTIONS,
  capsOf,
  TOKEN_CAP_OPTIONS,
} from "../spend/spend-cap.ts";
import {
  CELL_OPTIONS,
  DEPENDENCIES_OPTION,
  STRICT_OPTION,
  SUBSTRATE_OPTION,
} from "../sweep/cell-options.ts";
import { experimentIdentity } from "../sweep/experiment-identity.ts";
import { chooseFrontEnd, SWEEP_FRONT_OPTIONS } from "../sweep/front-end.ts";
import { applyPart, PARTITION_OPTIONS, partChoice, withinPart } from "../sweep/partition-opts.ts";
import { estimateFromStore, plannedCalls, printPlan } from "../sweep/run-plan.ts";
import { cellLibraryRoot, type SweepCell } from "../sweep/sweep-cell.ts";
import { runSweepSession } from "../sweep/sweep-session.ts";
import { verdictLines } from "../sweep/sweep-verdict.ts";

const OPTIONS = {
  ...CELL_OPTIONS,
  ...DEPENDENCIES_OPTION,
  k: {
    type: "int",
    min: 1,
    max: 16,
    valueName: "N",
    description: "candidates per mode (default 1)",
  },
  mode: {
    type: "string",
    valueName: "LIST",
    description: "comma list of parallel,sequential (default parallel)",
  },
  ...SUBSTRATE_OPTION,
  "only-domains": {
    type: "string",
    valueName: "LIST",
    description: "comma list of domains to run",
  },
  "only-tasks": {
    type: "string",
    valueName: "LIST",
    description: "comma list of task ids to run",
  },
  "max-tasks": { type: "int", min: 1, valueName: "N", description: "at most N tasks per domain" },
  ...PARTITION_OPTIONS,
  seed: { type: "int", min: 0, valueName: "N", description: "shuffle the stream with this seed" },
  tag: { type: "string", valueName: "TAG", description: "name a variant of the experiment" },
  workers: {
    type: "int",
    min: 1,
    max: 64,
    valueName: "N",
    description: "domains at once (default 1)",
  },
  ...STRICT_OPTION,
  queue: {
    type: "boolean",
    description:
      "queue one job per domain on the shared store for `harness2 worker`s; run nothing here",
  },
  "dry-run": {
    type: "boolean",
    description: "print the stream, namespaces and budgets; run nothing",
  },
  "allow-web": {
    type: "boolean",
    description:
      "let the executor reach the web (default: only its model endpoint; recorded with the sweep)",
  },
  ...CAP_OPTIONS,
  ...TOKEN_CAP_OPTIONS,
  ...SWEEP_FRONT_OPTIONS,
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const run = defineCommand({
  name: "run",
  summary: "Adapt a harness on a benchmark's tasks: propose, probe, compose, select, reflect",
  args: "",
  help: [
    "Example: harness2 run --bench tasks --tasks ./my-tasks --k 2 --mode parallel",
    "",
    "The executor and improver models come from HARNESS2_SOLVER_MODEL and",
    "HARNESS2_IMPROVER_MODEL (provider/model for OpenCode). Running the same command again",
    "resumes: finished, intact tasks are skipped and finished rollouts are reused.",
  ].join("\n"),
  options: OPTIONS,
  run: runSweepCommand,
});

export default run;

export type RunFlags = {
  k: number;
  modes: ModeToken[];
  seed: number | null;
  tag: string;
  onlyDomains: string[];
  onlyTasks: string[];
  maxTasks: number | null;
};

function list(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function flags(args: Args): RunFlags {
  const modes = (() => {
    try {
      return parseModes(args.opts.mode ?? "parallel");
    } catch (err) {
      throw new UsageError((err as Error).message, "run");
    }
  })();
  const tag = args.opts.tag ?? "";
  if (tag !== "") {
    try {
      validateTag(tag);
    } catch (err) {
      throw new UsageError((err as Error).message, "run");
    }
  }
  return {
    k: args.opts.k ?? 1,
    modes,
    seed: args.opts.seed ?? null,
    tag,
    onlyDomains: list(args.opts["only-domains"]),
    onlyTasks: list(args.opts["only-tasks"]),
    maxTasks: args.opts["max-tasks"] ?? null,
  };
}

async function buildChannel(
  config: RunConfig,
  io: CliIO,
): Promise<{ channel: Channel; spec: ChannelSpec }> {
  const spec = improverChannel(config);
  if (spec.model === "") {
    throw new CliError(
      "no improver model: set HARNESS2_IMPROVER_MODEL (or HARNESS2_SOLVER_MODEL), e.g. provider/model for opencode",
    );
  }
  const { makeChannel } = await import("../../channels/make-channel.ts");
  return { channel: await makeChannel(spec.kind, io.env, spec.model), spec };
}

/** Improver sessions run in an OS sandbox unless the user opted out: one that cannot start stops the run here. */
async function assertSandbox(io: CliIO): Promise<void> {
  const { SessionSandbox } = await import("../../agent-cli/sandbox.ts");
  const problem = await new SessionSandbox(io.env).problem(io.env);
  if (problem !== null) throw problem;
}

async function runSweepCommand(args: Args, given: CliIO): Promise<number> {
  // --allow-web is the setting every executor reads (core/run/web-policy.ts).
  const io = args.opts["allow-web"] ? { ...given, env: { ...given.env, [ALLOW_WEB]: "1" } } : given;
  const f = flags(args);
  const caps = capsOf(args.opts, "run");
  const choice = partChoice(args, io, "run");
  const workers = args.opts.workers;
  // A runs dir that is a file is one line before anything runs (2 from --runs, 1 from the env).
  const where = checkedLocation(args, io, { create: true });
  const config = loadRunConfig({ ...io.env, HARNESS2_RUNS_DIR: where.runsDir }, { cwd: io.cwd });
  const { adapter, warnings, record } = await buildAdapter(args, io, where.runsDir);
  for (const w of warnings) io.stderr(`warning: ${w}\n`);

  const benchRoot = join(where.runsDir, adapter.spec.name);
  const runsRoot = join(benchRoot, "adapt");
  const cell: SweepCell = {
    benchmark: adapter.spec.name,
    substrate: adapter.substrate.name,
    k: f.k,
    modes: f.modes,
    seed: f.seed,
    tag: f.tag,
  };
  // One part of a partition: checked against this cell's whole task list first (exit 1).
  const part = choice === null ? null : await applyPart(choice, adapter, args);
  const streamOpts = {
    seed: f.seed,
    onlyDomains: f.onlyDomains,
    onlyTasks: withinPart(f.onlyTasks, part),
    maxTasks: f.maxTasks ?? undefined,
  };
  // The stream is planned before the store is opened or anything is written: an unknown
  // --only-domains / --only-tasks name is a bad command line (exit 2), and nothing ran.
  const stream = await plannedStream(adapter, streamOpts);
  if (args.opts["dry-run"]) {
    const improver = improverChannel(config);
    const models = { solver: config.solverModel, improver: improver.model };
    const { priceOf } = await import("../spend/spend-prices.ts");
    const executorModel = adapter.substrate.name === "cx" ? config.codexModel : config.solverModel;
    const estimate = await estimateFromStore(where, models, plannedCalls(f, stream), {
      executor: priceOf(adapter.substrate.name, executorModel, io.env),
      improver: priceOf(improver.kind, improver.model, io.env),
    });
    const json = args.opts.json;
    printPlan(io, { adapter, cell, flags: f, stream, runsRoot, json, part, estimate });
    return EXIT.ok;
  }
  // What must stay equal to continue this experiment, the partition it runs on included.
  const identity = {
    ...experimentIdentity(config, improverChannel(config), io.env),
    web: webPolicyOf(io.env, adapter.substrate.name),
    improverSandbox: config.improverSandbox,
    ...(part === null ? {} : { partition: part.identity }),
  };

  if (
    adapter.substrate.name === "oc" &&
    (config.solverModel === "" || !config.solverModel.includes("/"))
  ) {
    throw new CliError(
      `HARNESS2_SOLVER_MODEL must be set as provider/model for the OpenCode executor (got '${config.solverModel}')`,
    );
  }
  // The executor's setup and its endpoint, before anything is recorded or spent: a missing binary,
  // endpoint or key, or an endpoint that does not answer, is one line here (exit 1).
  await adapter.preflight();
  await assertCapEnforceable(caps, adapter.substrate.name, config.codexModel, io.env);
  const { channel, spec } = await buildChannel(config, io);
  await assertSandbox(io);
  if (args.opts.queue) {
    const { queueSweep } = await import("../queue/plan.ts");
    return await queueSweep({
      io,
      where,
      argv: ["run", ...process.argv.slice(3)],
      stream,
      cell,
      identity,
    });
  }
  const frontEnd = chooseFrontEnd(io, { noTui: args.opts["no-tui"], json: args.opts.json });
  const session = await runSweepSession({
    io,
    location: where,
    caps,
    ...workerOf(io.env),
    frontEnd,
    title: `${adapter.spec.name} k=${f.k}`,
    sessionLimit: config.sessionLimit,
    makeProposer: (ctx) =>
      new Proposer({
        channel,
        spec,
        auditDir: join(runsRoot, "_audit"),
        runsRoot,
        attempts: config.transportAttempts,
        backoffS: config.backoffS,
        ...ctx,
      }),
    inputs: {
      adapter,
      limits: { ...config, domainWorkers: workers ?? config.domainWorkers },
      runsRoot,
      libraryRoot: cellLibraryRoot(cell, benchRoot),
      k: f.k,
      modes: f.modes,
      seed: f.seed,
      tag: f.tag,
    },
    sweepOptions: {
      ...streamOpts,
      stream,
      argv: ["run", ...process.argv.slice(3)],
      config: {
        k: f.k,
        modes: f.modes,
        ...sourceRecord(record),
        phaseWidth: config.phaseWidth,
        sessionLimit: config.sessionLimit,
        stageAttempts: config.stageAttempts,
        transportAttempts: config.transportAttempts,
        proposerTimeoutS: config.proposerTimeoutS,
        rolloutTimeoutS: config.rolloutTimeoutS,
        libraryMaxEntries: config.libraryMaxEntries,
        libraryMaxBytes: config.libraryMaxBytes,
      },
      identity,
    },
  });
  if (frontEnd !== "json") {
    const runsFlag = args.opts.runs === undefined ? "" : ` --runs ${where.runsDir}`;
    const self = selfCommand(io.env, io.cwd);
    const ending = { events: session.events, sweep: session.sweep, self, runsFlag };
    for (const line of verdictLines(ending)) io.stdout(`${line}\n`);
  }
  return session.exitCode;
}

/** How many names a "does not exist" line lists before saying how many there are in all. */
const NAMES_SHOWN = 8;

function someNames(names: readonly string[]): string {
  if (names.length === 0) return "(none)";
  const shown = names.slice(0, NAMES_SHOWN).join(", ");
  return names.length > NAMES_SHOWN ? `${shown}, … (${names.length} in all)` : shown;
}

/** The task stream the flags select, or a UsageError naming the unknown names and what exists. */
async function plannedStream(
  adapter: BenchmarkAdapter,
  opts: Parameters<typeof taskStream>[1] & { onlyDomains: string[]; onlyTasks: string[] },
): Promise<Map<string, string[]>> {
  try {
    return await taskStream(adapter, opts);
  } catch (err) {
    if (!(err instanceof StreamError)) throw err;
    // Domains are checked first, so an unknown name that is one of --only-domains is a domain.
    const isDomain = err.unknown.some((name) => opts.onlyDomains.includes(name));
    const flag = isDomain ? "--only-domains" : "--only-tasks";
    const what = isDomain ? "domain" : "task";
    const where = !isDomain && opts.onlyDomains.length > 0 ? " in the chosen domains" : "";
    throw new UsageError(
      `${flag}: no ${what} ${err.unknown.map((n) => `'${n}'`).join(", ")} in benchmark '${adapter.spec.name}'; its ${what}s${where}: ${someNames(err.valid)}`,
      "run",
    );
  }
}
