// The list of harness2 subcommands. Each lives in its own file under commands/ and is imported
// only when it runs (or its help is asked for), so `harness2 --help` stays fast and never loads Ink.

import type { Command } from "./command.ts";

export type CommandEntry = {
  name: string;
  summary: string;
  load: () => Promise<Command>;
};

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "demo",
    summary: "Run the whole method offline on two ledger tasks (no model needed)",
    load: () => import("./commands/demo.ts").then((m) => m.default),
  },
  {
    name: "init",
    summary: "Scaffold a task folder to start from: one domain, one task, its answer key",
    load: () => import("./commands/init.ts").then((m) => m.default),
  },
  {
    name: "setup",
    summary: "Install a benchmark's data (JobBench: --bench jb), or adopt a copy with --from",
    load: () => import("./commands/setup.ts").then((m) => m.default),
  },
  {
    name: "serve-model",
    summary: "Serve scripted models offline for the task folder `harness2 init` writes (k=1)",
    load: () => import("./commands/serve-model.ts").then((m) => m.default),
  },
  {
    name: "run",
    summary: "Adapt a harness on a benchmark's tasks (e.g. --bench tasks --tasks DIR)",
    load: () => import("./commands/run.ts").then((m) => m.default),
  },
  {
    name: "split",
    summary: "Partition a benchmark's tasks into train and test, per domain, reproducibly",
    load: () => import("./commands/split.ts").then((m) => m.default),
  },
  {
    name: "worker",
    summary: "Run domain jobs of sweeps queued with run --queue, from the shared PostgreSQL store",
    load: () => import("./commands/worker.ts").then((m) => m.default),
  },
  {
    name: "watch",
    summary: "Watch a queued sweep's fleet: which worker holds which domain, and tasks done",
    load: () => import("./commands/watch.ts").then((m) => m.default),
  },
  {
    name: "bridge",
    summary: "Serve a Responses-API endpoint for Codex in front of a chat-completions endpoint",
    load: () => import("./commands/bridge.ts").then((m) => m.default),
  },
  {
    name: "config",
    summary: "Show the effective settings and where each comes from (environment or harness2.toml)",
    load: () => import("./commands/config.ts").then((m) => m.default),
  },
  {
    name: "harness",
    summary: "Export a domain's adopted harness as a ready-to-use OpenCode or Codex configuration",
    load: () => import("./commands/harness.ts").then((m) => m.default),
  },
  {
    name: "validate",
    summary: "Check a harness directory against an executor's editable surface",
    load: () => import("./commands/validate.ts").then((m) => m.default),
  },
  {
    name: "runs",
    summary: "List past sweeps, newest first: status, tasks, spend, duration",
    load: () => import("./commands/runs.ts").then((m) => m.default),
  },
  {
    name: "show",
    summary: "Show one sweep, or one task of it: stages, ledger, tripwires, selection, library",
    load: () => import("./commands/show.ts").then((m) => m.default),
  },
  {
    name: "browse",
    summary: "Browse the store in the terminal: sweeps, tasks, stages, selections and the report",
    load: () => import("./commands/browse.ts").then((m) => m.default),
  },
  {
    name: "judge",
    summary: "Score the chosen run of every finished task and mode of a sweep (outside the method)",
    load: () => import("./commands/judge.ts").then((m) => m.default),
  },
  {
    name: "report",
    summary:
      "Summarise judged sweeps: score and paired delta against the base harness per mode and k",
    load: () => import("./commands/report.ts").then((m) => m.default),
  },
  {
    name: "export",
    summary: "Write one sweep to a file that `harness2 import` reads into another store",
    load: () => import("./commands/export.ts").then((m) => m.default),
  },
  {
    name: "import",
    summary: "Read a sweep `harness2 export` wrote into this runs directory's store",
    load: () => import("./commands/import.ts").then((m) => m.default),
  },
  {
    name: "merge",
    summary: "Merge the stores of shards (runs dirs or harness2.db files) into one store",
    load: () => import("./commands/merge.ts").then((m) => m.default),
  },
  {
    name: "check",
    summary: "Check the setup before spending money: opencode, python3, git, models, tasks, runs",
    load: () => import("./commands/check.ts").then((m) => m.default),
  },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}
