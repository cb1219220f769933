// The sweep: the task stream computed once, every domain under the domain-worker limit (tasks
// inside a domain are always sequential), and the sweep's first and last events.

import { type ModeToken, SweepFinished, SweepStarted } from "../events/registry.ts";
import { emit } from "../events/sink.ts";
import { describeError } from "../lib/errors.ts";
import { isSoftStop } from "../lib/interrupt.ts";
import { mapLimited } from "../lib/limiter.ts";
import { roundUsd } from "../lib/money.ts";
import { type DomainResult, runDomain } from "./domain.ts";
import { type ScheduleInputs, validateInputs } from "./inputs.ts";
import { type StreamOptions, taskStream } from "./stream.ts";

export type SweepOptions = StreamOptions & {
  /** What sweep.started records about the invocation (the CLI fills these). */
  argv?: string[];
  config?: Record<string, unknown>;
  identity?: Record<string, unknown>;
  /**
   * The task stream, when the caller already computed it from these options (the CLI does, for
   * the experiment-identity check): it is computed once per sweep, never twice.
   */
  stream?: ReadonlyMap<string, readonly string[]>;
};

export type SweepResult = {
  benchmark: string;
  substrate: string;
  k: number;
  modes: ModeToken[];
  seed: number | null;
  tag: string;
  domainOrder: string[];
  maxTasks: number | null;
  onlyTasks: string[];
  startedAt: string;
  finishedAt: string;
  nDomains: number;
  /** In stream order (fix docs/differences.md R23: the original returned completion order). */
  domains: (DomainResult | { domain: string; error: string })[];
};

/**
 * Runs every domain of the stream, up to `limits.domainWorkers` at once (tasks inside a domain
 * are always sequential). A domain that dies is reported as {domain, error}; the others go on.
 */
export async function runSweep(
  inputs: ScheduleInputs,
  opts: SweepOptions = {},
): Promise<SweepResult> {
  validateInputs(inputs);
  const { adapter } = inputs;
  const seed = inputs.seed ?? null;
  const stream = opts.stream ?? (await taskStream(adapter, { ...opts, seed }));
  const startedMs = inputs.clock.now();
  const startedAt = new Date(startedMs).toISOString();
  emit(inputs.sink, SweepStarted, {
    ts: startedMs,
    sweep: inputs.sweep,
    bench: adapter.spec.name,
    substrate: adapter.substrate.name,
    ks: [inputs.k],
    modes: [...inputs.modes],
    seed,
    tag: inputs.tag ?? "",
    argv: opts.argv ?? [],
    config: opts.config ?? {},
    identity: opts.identity ?? {},
    runsRoot: inputs.runsRoot,
    domains: [...stream.entries()].map(([domain, tasks]) => ({ domain, tasks: [...tasks] })),
  });
  const order = [...stream.keys()];
  const rows = await mapLimited(order, inputs.limits.domainWorkers, async (domain) => {
    try {
      return await runDomain(inputs, domain, stream.get(domain) ?? []);
    } catch (err) {
      return { domain, error: describeError(err) };
    }
  });
  const finishedMs = inputs.clock.now();
  const domains = rows.filter((r): r is DomainResult => !("error" in r));
  const dead = rows.length - domains.length;
  const sum = (f: (d: DomainResult) => number) => domains.reduce((s, d) => s + f(d), 0);
  const failed = sum((d) => d.failed);
  emit(inputs.sink, SweepFinished, {
    ts: finishedMs,
    sweep: inputs.sweep,
    status: inputs.signal?.aborted ? "interrupted" : failed === 0 && dead === 0 ? "ok" : "failed",
    ...(isSoftStop(inputs.signal) ? { reason: "budget" as const } : {}),
    tasksOk: sum((d) => d.done - d.skipped),
    tasksFailed: failed,
    tasksSkipped: sum((d) => d.skipped),
    usd: roundUsd(sum((d) => d.usd)),
    wallS: Math.max(0, (finishedMs - startedMs) / 1000),
  });
  return {
    benchmark: adapter.spec.name,
    substrate: adapter.substrate.name,
    k: inputs.k,
    modes: [...inputs.modes],
    seed,
    tag: inputs.tag ?? "",
    domainOrder: order,
    maxTasks: opts.maxTasks ?? null,
    onlyTasks: [...(opts.onlyTasks ?? [])],
    startedAt,
    finishedAt: new Date(finishedMs).toISOString(),
    nDomains: order.length,
    domains: rows,
  };
}
