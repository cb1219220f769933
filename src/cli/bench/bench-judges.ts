// The judge of each benchmark, by the name a sweep recorded: its Scorer (loaded lazily, so only a
// judge run ever loads scoring code) and the identity stored with every judgment. Only `harness2
// judge` calls this; nothing in the method does.

import { benchSourceOf } from "../../core/events/bench-source.ts";
import { CliError } from "../errors.ts";
import {
  type BenchJudge,
  type BenchJudgeContext,
  importedFrom,
  trustedPath,
} from "./judge-context.ts";

export type { BenchJudge, BenchJudgeContext } from "./judge-context.ts";

const LOADERS: Record<string, (ctx: BenchJudgeContext) => Promise<BenchJudge>> = {
  demo: async () => {
    const { DemoScorer } = await import("../../benchmarks/demo/demo-scorer.ts");
    return {
      scorer: new DemoScorer(),
      identity: { scorer: "demo-ledger-total", version: "1" },
    };
  },
  tasks: async (ctx) => {
    const recorded = ctx.source?.kind === "tasks" ? ctx.source.tasksDir : undefined;
    const tasksDir = ctx.tasksDir ?? trustedPath(ctx, recorded);
    if (tasksDir === undefined) {
      const from = importedFrom(ctx.config);
      throw new CliError(
        from === null
          ? "this tasks sweep recorded no task folder: give it with --tasks DIR"
          : `this tasks sweep was imported (${from}): its checks run only from a task folder you name here, with --tasks DIR`,
      );
    }
    const { createTasksScorer } = await import("../../benchmarks/tasks/tasks-scorer.ts");
    const scorer = createTasksScorer({ tasksDir, env: ctx.env });
    // The checks are the task folder's own tests/check scripts.
    return { scorer, identity: { scorer: "tasks-check", version: "1" } };
  },
  jb: async (ctx) => (await import("./judge-benchmarks.ts")).jobBenchJudge(ctx),
  lab: async (ctx) => (await import("./judge-benchmarks.ts")).labJudge(ctx),
  // WorkBuddy's verifier ran inside each trial; its judge reads the score file it left.
  ...Object.fromEntries(
    ["wb-office", "wb-web", "wb-code"].map((name) => [
      name,
      async () => {
        const { WorkBuddyScorer } = await import("../../benchmarks/workbuddy/wb-scorer.ts");
        return { scorer: new WorkBuddyScorer(), identity: { scorer: "wb-verifier", version: "1" } };
      },
    ]),
  ),
};

/** Benchmarks this build can judge. */
export const JUDGEABLE_BENCHES: readonly string[] = Object.keys(LOADERS);

/**
 * The judge of `bench`, or a CliError naming the benchmarks this build can judge. The sweep's
 * source is read typed from its configuration here, once, for every judge.
 */
export async function loadBenchJudge(
  bench: string,
  given: Omit<BenchJudgeContext, "source">,
): Promise<BenchJudge> {
  const ctx: BenchJudgeContext = { ...given, source: benchSourceOf(bench, given.config) };
  const load = LOADERS[bench];
  if (load === undefined) {
    throw new CliError(
      `no judge for benchmark '${bench || "(unrecorded)"}' in this build (judgeable: ${JUDGEABLE_BENCHES.join(", ")})`,
    );
  }
  return load(ctx);
}
