// One sweep as a command runs it: store opened, experiment identity checked, namespaces locked,
// events fanned out to the store and the chosen front end (TUI, lines or NDJSON), the scheduler
// run, and everything closed however it ends. Shared by `harness2 demo` and `harness2 run`.

import type { Database } from "bun:sqlite";
import { openStore } from "../../store/db.ts";
import { assertContinuesExperiment } from "../../store/identity.ts";
import { newSweepId } from "../../store/ids.ts";
import { acquireSweepLock } from "../../store/lock.ts";
import { taskRecord } from "../../store/queries.ts";
import { StoreWriter } from "../../store/writer.ts";
import type { ProposerLike } from "../core/channel.ts";
import type { Clock, ModeToken } from "../core/events.ts";
import { type EventSink, fanOut, RecordingSink, SYSTEM_CLOCK } from "../core/events.ts";
import { ns } from "../core/naming.ts";
import { setSessionLimit } from "../core/proposer.ts";
import type { TaskRecordSource } from "../core/resume.ts";
import {
  runSweep,
  type ScheduleInputs,
  type SweepOptions,
  type SweepResult,
} from "../core/schedule.ts";
import { readSummary } from "../core/summary.ts";
import { type CliIO, colorFor, type OptionSpec } from "./command.ts";
import { EXIT } from "./exit-codes.ts";
import { jsonPrinter, linePrinter } from "./printers.ts";

export type FrontEnd = "tui" | "lines" | "json";

/** The flags every sweep command shares: where the store is, and which front end to show. */
export const SWEEP_FRONT_OPTIONS: Record<string, OptionSpec> = {
  runs: {
    type: "string",
    valueName: "DIR",
    description: "runs directory holding the store (default $HARNESS2_RUNS_DIR or runs)",
  },
  "no-tui": { type: "boolean", description: "one line per event instead of the terminal UI" },
  json: { type: "boolean", description: "NDJSON events on stdout (one per line)" },
};

/** Which front end a command gets: the TUI only on a terminal, never with --no-tui or --json. */
export function chooseFrontEnd(io: CliIO, flags: { noTui: boolean; json: boolean }): FrontEnd {
  if (flags.json) return "json";
  if (flags.noTui || !io.isTTY) return "lines";
  return "tui";
}

export type SweepSessionOptions = {
  io: CliIO;
  dbPath: string;
  frontEnd: FrontEnd;
  /** Everything the scheduler needs except the proposer, sink, sweep id, clock and record source. */
  inputs: Omit<ScheduleInputs, "proposer" | "sink" | "sweep" | "clock" | "records" | "signal">;
  /** Builds the improver once the sweep's id and event sink exist, so its calls are recorded. */
  makeProposer: (ctx: { sink: EventSink; sweep: string; clock: Clock }) => ProposerLike;
  sweepOptions: SweepOptions;
  sessionLimit: number;
  /** Shown in the TUI header. */
  title: string;
};

export type SweepSessionResult = {
  sweep: string;
  result: SweepResult;
  events: RecordingSink;
  interrupted: boolean;
  exitCode: number;
};

/**
 * Resume consults the store first: a task with no finished record of its mode there re-runs
 * (the store is the record of run state). When the store has one, the task's summary.json export
 * and the artifact fingerprints decide, exactly as resume checks them.
 */
export function storeRecordSource(
  db: Database,
  bench: string,
  substrate: string,
  seed: number | null,
  tag: string,
  k: number,
): TaskRecordSource {
  return {
    async read(taskId, taskDir) {
      const record = taskRecord(db, { bench, substrate, seed, tag }, taskId, k);
      if (Object.keys(record.modes).length === 0) return { kind: "missing" };
      return readSummary(taskDir);
    },
  };
}

export async function runSweepSession(opts: SweepSessionOptions): Promise<SweepSessionResult> {
  const { io, inputs } = opts;
  setSessionLimit(opts.sessionLimit);
  const db = openStore(opts.dbPath);
  const sweep = newSweepId();
  const adapter = inputs.adapter;
  const seed = inputs.seed ?? null;
  const tag = inputs.tag ?? "";
  const namespaces = inputs.modes.map((mode: ModeToken) =>
    ns({
      benchmark: adapter.spec.name,
      substrate: adapter.substrate.name,
      mode,
      k: inputs.k,
      seed,
      tag,
    }),
  );
  const identity = opts.sweepOptions.identity ?? {};
  const domainsForIdentity = await plannedStream(inputs, opts.sweepOptions);
  assertContinuesExperiment(db, {
    bench: adapter.spec.name,
    substrate: adapter.substrate.name,
    tag,
    seed,
    identity,
    domains: domainsForIdentity,
  });
  const lock = acquireSweepLock(db, { namespaces, sweep });
  const writer = new StoreWriter(db, {});
  const recording = new RecordingSink();
  const abort = new AbortController();
  let forced = false;

  let front: EventSink;
  let finishFront: () => Promise<void> = async () => {};
  if (opts.frontEnd === "json") front = jsonPrinter(io.stdout);
  else if (opts.frontEnd === "lines") front = linePrinter(io.stdout, { color: colorFor(io) });
  else {
    const { startLiveView } = await import("../../tui/live/start.ts");
    const view = startLiveView({
      sweepLabel: opts.title,
      color: colorFor(io),
      onStopRequest: () => abort.abort(),
      onForceStop: () => {
        forced = true;
        abort.abort();
        process.kill(process.pid, "SIGINT");
      },
    });
    front = view.sink;
    finishFront = view.done;
  }
  const onSignal = () => abort.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  // A finished task or mode is a checkpoint: it reaches the database before anything else happens,
  // so a process killed right after still resumes from it.
  const durable: EventSink = {
    emit(event) {
      writer.emit(event);
      if (event.type === "task.finished" || event.type === "mode.finished") writer.flush();
    },
  };
  const sink = fanOut(durable, front, recording);
  let result: SweepResult;
  try {
    result = await runSweep(
      {
        ...inputs,
        proposer: opts.makeProposer({ sink, sweep, clock: SYSTEM_CLOCK }),
        sink,
        sweep,
        clock: SYSTEM_CLOCK,
        records: storeRecordSource(
          db,
          adapter.spec.name,
          adapter.substrate.name,
          seed,
          tag,
          inputs.k,
        ),
        signal: abort.signal,
      },
      opts.sweepOptions,
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await finishFront();
    writer.close();
    lock.release();
    db.close();
  }
  const interrupted = abort.signal.aborted || forced;
  const failed = result.domains.some((d) => "error" in d || d.failed > 0);
  return {
    sweep,
    result,
    events: recording,
    interrupted,
    exitCode: interrupted ? EXIT.interrupted : failed ? EXIT.failed : EXIT.ok,
  };
}

/** The stream the sweep will run, for the identity check (the scheduler computes the same). */
async function plannedStream(
  inputs: SweepSessionOptions["inputs"],
  opts: SweepOptions,
): Promise<{ domain: string; tasks: string[] }[]> {
  const { taskStream } = await import("../core/stream.ts");
  const stream = await taskStream(inputs.adapter, { ...opts, seed: inputs.seed ?? null });
  return [...stream.entries()].map(([domain, tasks]) => ({ domain, tasks }));
}
