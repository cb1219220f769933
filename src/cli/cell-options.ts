// The options that name a benchmark cell, shared by the commands that take one (run, check,
// split): the benchmark, its task folder, JobBench's split and WorkBuddy's subset.

/** `--bench`, `--tasks`, `--split`, `--subset`, described once. */
export const CELL_OPTIONS = {
  bench: {
    type: "string",
    valueName: "NAME",
    description: "benchmark: tasks (default), jb (JobBench), lab (LAB) or wb (WorkBuddy-Bench)",
  },
  tasks: { type: "string", valueName: "DIR", description: "task folder (for --bench tasks)" },
  split: {
    type: "string",
    valueName: "NAME",
    description: "JobBench split: main (default) or easy",
  },
  subset: {
    type: "string",
    valueName: "NAME",
    description: "WorkBuddy subset (required for --bench wb): office, web or code",
  },
} as const;
