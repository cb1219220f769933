// The options that name a benchmark cell, shared by the commands that take one (run, check,
// split): the benchmark, its task folder, JobBench's split, WorkBuddy's subset, the executor
// framework and where setup installed the benchmarks. Each is described, typed and checked once
// (src/cli/command.ts OptionSpec).

import type { OptionSpecs, OptionValues } from "../command.ts";

/** The benchmarks `run` can adapt a harness on (the demo has its own command). */
export const RUNNABLE_BENCHES = ["tasks", "jb", "lab", "wb"] as const;

/** The executor frameworks: OpenCode and Codex. */
export const SUBSTRATES = ["oc", "cx"] as const;
export type SubstrateName = (typeof SUBSTRATES)[number];

export const WB_SUBSETS = ["office", "web", "code"] as const;
export type WbSubset = (typeof WB_SUBSETS)[number];

/** `--bench`, `--tasks`, `--split`, `--subset`, described once. */
export const CELL_OPTIONS = {
  bench: {
    type: "choice",
    choices: RUNNABLE_BENCHES,
    hints: { demo: "the demo has its own command: harness2 demo" },
    description: "benchmark: tasks (default), jb (JobBench), lab (LAB) or wb (WorkBuddy-Bench)",
  },
  tasks: { type: "string", valueName: "DIR", description: "task folder (for --bench tasks)" },
  split: {
    type: "choice",
    choices: ["main", "easy"],
    description: "JobBench split: main (default) or easy",
  },
  subset: {
    type: "choice",
    choices: WB_SUBSETS,
    description: "WorkBuddy subset (required for --bench wb): office, web or code",
  },
} as const satisfies OptionSpecs;

/** `--substrate`: which executor framework runs the rollouts. */
export const SUBSTRATE_OPTION = {
  substrate: {
    type: "choice",
    choices: SUBSTRATES,
    description: "executor framework: oc (OpenCode, default) or cx (Codex)",
  },
} as const satisfies OptionSpecs;

/** `--dependencies`: where `harness2 setup` installed the paper's benchmarks. */
export const DEPENDENCIES_OPTION = {
  dependencies: {
    type: "string",
    valueName: "DIR",
    description:
      "where setup installed benchmarks (default $HARNESS2_DEPENDENCIES or ./dependencies)",
  },
} as const satisfies OptionSpecs;

/** `--strict`: a task folder with any malformed task is refused rather than skipped. */
export const STRICT_OPTION = {
  strict: { type: "boolean", description: "refuse a task folder with any malformed task" },
} as const satisfies OptionSpecs;

/**
 * What a command naming a cell was given, as the adapter builder and `check` read it: any of the
 * cell options (a command without `--strict`, say, simply never has it).
 */
export type CellArgs = {
  opts: Partial<
    Omit<
      OptionValues<
        typeof CELL_OPTIONS &
          typeof SUBSTRATE_OPTION &
          typeof DEPENDENCIES_OPTION &
          typeof STRICT_OPTION
      >,
      "bench"
    >
  > & {
    /** Each command has its own list (check also knows the demo); the builder checks its own. */
    bench?: string | undefined;
  };
};
