// One sweep as a command runs it: store opened, experiment identity checked, namespaces locked,
// events fanned out to the store and the chosen front end (TUI, lines or NDJSON), the scheduler
// run, and everything closed however it ends. Shared by `harness2 demo` and `harness2 run`.

import type { StoreLocation } from "../../../store/db.ts";
import { assertContinuesExperiment } from "../../../store/identity.ts";
import { newSweepId } from "../../../store/ids.ts";
import { openRunStore, takeSweepLock } from "../../../store/open.ts";
import { StoreWriter } from "../../../store/writer.ts";
import { type EventOf, SweepFinished } from "../../core/events/registry.ts";
import { type Clock, type EventSink, fanOut, SYSTEM_CLOCK } from "../../core/events/sink.ts";
import {
  capProgress,
  SPEND_CAP_KEY,
  type SpendCap,
  type Spent,
} from "../../core/events/spend-cap.ts";
import { SoftStop } from "../../core/lib/interrupt.ts";
import { sumUsd } from "../../core/lib/money.ts";
import { setSessionLimit } from "../../core/proposer/proposer.ts";
import {
  runSweep,
  type ScheduleInputs,
  type SweepOptions,
  type SweepResult,
} from "../../core/schedule/index.ts";
import type { ProposerLike } from "../../core/seams/channel.ts";
import { type CliIO, colorFor } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { jsonPrinter, linePrinter } from "../runs/printers.ts";
import { type Caps, capReached, hasCap, priorSpend, SpendMeter } from "../spend/spend-cap.ts";
import { releaseEarlySignals } from "./early-signals.ts";
import type { FrontEnd } from "./front-end.ts";
import { durableSink, storeRecordSource } from "./store-resume.ts";
import { lockNamespaces, type SweepCell } from "./sweep-cell.ts";
import { SweepTally } from "./sweep-tally.ts";

export type SweepSessionOptions = {
  io: CliIO;
  location: StoreLocation;
  frontEnd: FrontEnd;
  /** Everything the scheduler needs except the proposer, sink, sweep id, clock and record source. */
  inputs: Omit<ScheduleInputs, "proposer" | "sink" | "sweep" | "clock" | "records" | "signal">;
  /** Builds the improver once the sweep's id and event sink exist, so its calls are recorded. */
  makeProposer: (ctx: { sink: EventSink; sweep: string; clock: Clock }) => ProposerLike;
  sweepOptions: SweepOptions;
  sessionLimit: number;
  /** Shown in the TUI header. */
  title: string;
  /** The queue worker running this sweep as one domain job, and its plan (in its configuration). */
  worker?: { name: string; plan: string };
  /** `--max-usd`, `--max-usd-per-task`, `--max-tokens` (src/cli/spend/spend-cap.ts); absent: none. */
  caps?: Caps;
};

export type SweepSessionResult = {
  sweep: string;
  result: SweepResult;
  events: SweepTally;
  interrupted: boolean;
  /** The spending cap stopped it (an interrupted sweep with reason "budget"). */
  capped: boolean;
  exitCode: number;
};

export async function runSweepSession(opts: SweepSessionOptions): Promise<SweepSessionResult> {
  const { io, inputs } = opts;
  setSessionLimit(opts.sessionLimit);
  const store = await openRunStore(opts.location, {
    onPushError: (err) => io.stderr(`harness2 store: ${err.message}\n`),
  });
  const db = store.db;
  const sweep = newSweepId();
  const adapter = inputs.adapter;
  const seed = inputs.seed ?? null;
  const tag = inputs.tag ?? "";
  const namespaces = lockNamespaces(cellOf(inputs));
  const identity = opts.sweepOptions.identity ?? {};
  // Planned once: a command that planned it already (run checks the names first) hands it over.
  const stream = opts.sweepOptions.stream ?? (await plannedStream(inputs, opts.sweepOptions));
  const domainsForIdentity = [...stream.entries()].map(([domain, tasks]) => ({ domain, tasks }));
  guardOpen(store, () =>
    assertContinuesExperiment(db, {
      bench: adapter.spec.name,
      substrate: adapter.substrate.name,
      tag,
      seed,
      identity,
      domains: domainsForIdentity,
    }),
  );
  let lock: Awaited<ReturnType<typeof takeSweepLock>>;
  try {
    lock = await takeSweepLock(store, {
      namespaces,
      domains: [...stream.keys()],
      sweep,
      worker: opts.worker?.name,
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  const caps: Caps = opts.caps ?? { usd: null, perTask: null, tokens: null };
  const capped = hasCap(caps);
  const cellSpend = { bench: adapter.spec.name, substrate: adapter.substrate.name, tag, seed };
  const prior = priorSpend(db, cellSpend, caps);
  const already = capped ? capReached(caps, prior, "is already reached") : null;
  if (already !== null) {
    await lock.release();
    await store.close();
    throw new CliError(`the ${already}`, {
      kind: "capped",
      fix: "raise the cap and run the same command to resume",
    });
  }
  const writer = new StoreWriter(db, store.writerOptions());
  const recording = new SweepTally();
  // The user's stop kills running work; the cap's only stops new work from starting (SoftStop).
  const abort = new AbortController();
  const capStop = new AbortController();
  const sweepSignal = AbortSignal.any([abort.signal, capStop.signal]);
  const meter = !capped
    ? null
    : new SpendMeter(caps, prior, (why) => {
        if (abort.signal.aborted) return;
        capStop.abort(new SoftStop("budget", abort.signal));
        if (opts.frontEnd !== "tui") {
          io.stderr(
            `harness2: ${why}: no new paid call starts, running ones finish; raise the cap and run the same command to resume\n`,
          );
        }
      });
  let sink: EventSink | null = null;
  let forced = false;

  /**
   * The second stop request (q q, a second Ctrl-C or SIGTERM): the events so far are persisted,
   * the sweep is recorded as interrupted, the lock is released and the process exits 130 now.
   * Running executions and sessions are killed by the process module's exit hook; finished work
   * is in the store and resumes on the next run.
   */
  function stopAtOnce(): void {
    if (forced) return;
    forced = true;
    abort.abort();
    try {
      const interrupted = interruptedSweep(recording, sweep);
      if (interrupted !== null) (sink ?? writer).emit(interrupted);
      if (opts.frontEnd === "tui") io.stdout(`\n${stoppedLine(recording, opts, io)}\n`);
      writer.close();
    } finally {
      // The shared log gets what it has not got yet (a few seconds at most), then the exit.
      void Promise.allSettled([lock.release(), store.close(5000)]).finally(() =>
        process.exit(EXIT.interrupted),
      );
    }
  }

  let front: EventSink;
  let finishFront: () => Promise<void> = async () => {};
  if (opts.frontEnd === "json") front = jsonPrinter(io.stdout);
  else if (opts.frontEnd === "lines") front = linePrinter(io.stdout, { color: colorFor(io) });
  else {
    const { startLiveView } = await import("../../../tui/live/start.ts");
    const view = startLiveView({
      sweepLabel: opts.title,
      color: colorFor(io),
      onStopRequest: () => abort.abort(),
      onForceStop: stopAtOnce,
    });
    front = view.sink;
    finishFront = view.done;
  }
  // The first signal asks for a graceful stop (no new task starts); the second stops at once.
  // A persistent listener, so the second one is not left to a default that skips the store.
  let signals = 0;
  let sweepOver = false;
  const onSignal = () => {
    // A signal that arrives once the sweep has ended (its work done and recorded) changes nothing:
    // the command is already finishing, and its exit code follows what the store recorded.
    if (sweepOver) return;
    signals++;
    if (signals > 1) stopAtOnce();
    abort.abort();
    // The TUI shows the stop in its own footer; elsewhere say what happens and what is next.
    if (opts.frontEnd !== "tui") {
      io.stderr(
        "harness2: stopping: running work is cancelled, finished work is kept (the same command resumes); interrupt again to stop at once\n",
      );
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  releaseEarlySignals();

  sink = fanOut(durableSink(writer), front, recording, ...(meter === null ? [] : [meter.sink]));
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
          { bench: adapter.spec.name, substrate: adapter.substrate.name, seed, tag },
          inputs.k,
          (message) => io.stderr(`harness2: ${message}\n`),
        ),
        signal: sweepSignal,
      },
      {
        ...opts.sweepOptions,
        stream,
        config: {
          ...opts.sweepOptions.config,
          ...(capped ? { [SPEND_CAP_KEY]: capRecord(caps, prior) } : {}),
          ...(opts.worker === undefined
            ? {}
            : { worker: opts.worker.name, plan: opts.worker.plan }),
        },
      },
    );
  } finally {
    sweepOver = true;
    await finishFront();
    writer.close();
    await lock.release();
    await store.close();
    // One turn of the event loop while still listening: a signal already pending (the last steps
    // of a sweep can run without yielding) reaches onSignal, which ignores it now, instead of a
    // default handler that would exit 143 after a sweep the store records as finished.
    await new Promise<void>((done) => setImmediate(done));
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  // Interrupted means what the sweep recorded (or a forced stop), never a signal that came after.
  const finished = recording.ofType("sweep.finished").at(-1);
  const interrupted =
    forced || (finished === undefined ? sweepSignal.aborted : finished.status === "interrupted");
  const stoppedByCap = !forced && interrupted && finished?.reason === "budget";
  // Below the live view's last frame: what was kept, what was lost, how to go on.
  if (stoppedByCap && opts.frontEnd !== "json") io.stdout(`${cappedLine(meter, opts, io)}\n`);
  else if (interrupted && opts.frontEnd === "tui")
    io.stdout(`${stoppedLine(recording, opts, io)}\n`);
  const failed = result.domains.some((d) => "error" in d || d.failed > 0);
  return {
    sweep,
    result,
    events: recording,
    interrupted,
    capped: stoppedByCap,
    exitCode: stoppedByCap
      ? EXIT.capped
      : interrupted
        ? EXIT.interrupted
        : failed
          ? EXIT.failed
          : EXIT.ok,
  };
}

/**
 * The sweep.finished a forced stop records (the scheduler never gets to emit its own), counted
 * from the events so far; null when the sweep had not started or already finished.
 */
function interruptedSweep(events: SweepTally, sweep: string): EventOf<"sweep.finished"> | null {
  const started = events.ofType("sweep.started")[0];
  if (started === undefined || events.ofType("sweep.finished").length > 0) return null;
  const finished = events.ofType("task.finished");
  const now = SYSTEM_CLOCK.now();
  return SweepFinished.parse({
    type: "sweep.finished",
    ts: now,
    sweep,
    status: "interrupted",
    tasksOk: finished.filter((t) => t.status === "ok").length,
    tasksFailed: finished.filter((t) => t.status !== "ok").length,
    tasksSkipped: events.ofType("task.skipped").length,
    usd: sumUsd(finished.map((t) => t.usd)),
    wallS: Math.max(0, (now - started.ts) / 1000),
  });
}

/**
 * The one line an interrupted live view leaves: the tasks finished (kept), the tasks that were
 * running (their unfinished work is redone from their last checkpoint), and the exact command
 * that resumes.
 */
export function stoppedLine(events: SweepTally, opts: SweepSessionOptions, io: CliIO): string {
  const done = new Set(
    [...events.ofType("task.finished"), ...events.ofType("task.skipped")].map(
      (t) => `${t.task}\u0000${t.k}`,
    ),
  );
  const running = events
    .ofType("task.started")
    .filter((t) => !done.has(`${t.task}\u0000${t.k}`))
    .map((t) => t.task);
  const resume = resumeCommand(opts, io);
  const lost =
    running.length > 0
      ? `the unfinished work of ${running.join(", ")} resumes from its last checkpoint`
      : "nothing was in flight";
  return `interrupted: ${done.size} task(s) finished and kept; ${lost}. Resume with: ${resume}`;
}

/** The line a sweep its cap stopped leaves: what was spent, and the command that resumes. */
function cappedLine(meter: SpendMeter | null, opts: SweepSessionOptions, io: CliIO): string {
  if (meter === null)
    return `stopped by the spending cap: finished work is kept. Resume with a higher cap: ${resumeCommand(opts, io)}`;
  const { caps, spent } = meter;
  const argv = withCap(opts.sweepOptions.argv ?? [], caps);
  const what = capProgress(capRecord(caps, { usd: 0, tokens: 0 }), spent);
  return `stopped by the spending cap (${what}): finished work is kept. Resume with a higher cap, e.g. twice it: ${resumeCommand(withArgv(opts, argv), io)}`;
}

/** The cap as sweep.started records it (core/events/spend-cap.ts). */
function capRecord(caps: Caps, prior: Spent): SpendCap {
  return {
    ...(caps.usd === null ? {} : { usd: caps.usd }),
    ...(caps.perTask === null ? {} : { perTask: caps.perTask }),
    priorUsd: prior.usd,
    ...(caps.tokens === null ? {} : { tokens: caps.tokens }),
    priorTokens: prior.tokens,
  };
}

/** `argv` with each cap's value doubled (`--max-usd X` or `=X`, likewise the other caps). */
export function withCap(argv: readonly string[], caps: Caps): string[] {
  const twice = (usd: number | null) => (usd === null ? null : String(Math.round(usd * 200) / 100));
  const doubled: Record<string, string | null> = {
    "--max-usd": twice(caps.usd),
    "--max-usd-per-task": twice(caps.perTask),
    "--max-tokens": caps.tokens === null ? null : String(caps.tokens * 2),
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), true] : [a, false];
    const value = doubled[flag] ?? null;
    if (value === null) out.push(a);
    else if (inline) out.push(`${flag}=${value}`);
    else if (i + 1 < argv.length) {
      out.push(a, value);
      i++;
    } else out.push(a);
  }
  return out;
}

const withArgv = (opts: SweepSessionOptions, argv: string[]): SweepSessionOptions => ({
  ...opts,
  sweepOptions: { ...opts.sweepOptions, argv },
});

/** The command that ran this sweep, as it can be typed again. */
function resumeCommand(opts: SweepSessionOptions, io: CliIO): string {
  const quote = (a: string) => (/^[\w./=:,@+-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  return [selfCommand(io.env, io.cwd), ...(opts.sweepOptions.argv ?? []).map(quote)].join(" ");
}

/** Runs a check that may refuse the sweep; a refusal closes the store before it is thrown. */
function guardOpen(store: { close(): Promise<void> }, check: () => void): void {
  try {
    check();
  } catch (err) {
    void store.close();
    throw err;
  }
}

/** The sweep cell of the session's inputs (what its locked namespaces derive from). */
function cellOf(inputs: SweepSessionOptions["inputs"]): SweepCell {
  const { adapter, k, modes } = inputs;
  const cell = { benchmark: adapter.spec.name, substrate: adapter.substrate.name, k, modes };
  return { ...cell, seed: inputs.seed ?? null, tag: inputs.tag ?? "" };
}

/** The stream the sweep will run: checked against the experiment, then handed to the scheduler. */
async function plannedStream(
  inputs: SweepSessionOptions["inputs"],
  opts: SweepOptions,
): Promise<Map<string, string[]>> {
  const { taskStream } = await import("../../core/schedule/stream.ts");
  return taskStream(inputs.adapter, { ...opts, seed: inputs.seed ?? null });
}
