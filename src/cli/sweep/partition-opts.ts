// `--split-file FILE --part train|test` on run, check, judge and report (docs/method.md
// "Partitions"): one part of a partition `harness2 split` wrote, checked against the benchmark cell
// and its task list before anything runs. A sweep records the partition it ran on in its experiment
// identity, so continuing it on another partition or part is refused like any other change.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  checkPartition,
  PARTS,
  type Part,
  PartitionError,
  partTasks,
  readPartition,
} from "../../core/schedule/partition.ts";
import { taskStream } from "../../core/schedule/stream.ts";
import type { BenchmarkAdapter } from "../../core/seams/benchmark.ts";
import { type CliIO, type OptionSpecs, type OptionValues, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import type { CellArgs } from "./cell-options.ts";

export const PARTITION_OPTIONS = {
  "split-file": {
    type: "string",
    valueName: "FILE",
    description: "A partition written by harness2 split: use one part of it (with --part)",
  },
  part: {
    type: "choice",
    choices: PARTS,
    description: "the part of --split-file's partition",
  },
} as const satisfies OptionSpecs;

type PartArgs = { opts: Partial<OptionValues<typeof PARTITION_OPTIONS>> };

export type PartChoice = { file: string; part: Part };

/** --split-file and --part, both or neither, or a usage error (exit 2). */
export function partChoice(args: PartArgs, io: CliIO, command: string): PartChoice | null {
  const file = args.opts["split-file"];
  const part = args.opts.part;
  if (file === undefined && part === undefined) return null;
  if (file === undefined || file === "") {
    throw new UsageError(
      "--part needs --split-file FILE (a partition harness2 split wrote)",
      command,
    );
  }
  if (part === undefined)
    throw new UsageError("--split-file needs --part train or --part test", command);
  return { file: resolve(io.cwd, file), part };
}

/** The cell a partition is made for: the runs-root name, with JobBench's split. */
export function partitionCell(adapter: BenchmarkAdapter, args: CellArgs): string {
  const name = adapter.spec.name;
  return name === "jb" ? `jb/${args.opts.split === "easy" ? "easy" : "main"}` : name;
}

export type AppliedPart = {
  /** The tasks of the part. */
  tasks: string[];
  /** What the sweep records (the file's hash, seed, part and task-list fingerprint). */
  identity: { file: string; sha256: string; seed: number; part: Part; fingerprint: string };
  /** One line saying what part this is. */
  note: string;
};

/** The chosen part, checked against the adapter's whole task list; a refusal is one line (exit 1). */
export async function applyPart(
  choice: PartChoice,
  adapter: BenchmarkAdapter,
  args: CellArgs,
): Promise<AppliedPart> {
  try {
    const p = readPartition(choice.file);
    const all = await taskStream(adapter, {});
    checkPartition(p, choice.file, partitionCell(adapter, args), all);
    const tasks = partTasks(p, choice.part);
    const total = Object.values(p.domains).reduce((n, d) => n + d.train.length + d.test.length, 0);
    if (tasks.length === 0) {
      throw new PartitionError(`the ${choice.part} part of ${choice.file} holds no task`);
    }
    return {
      tasks,
      identity: {
        file: choice.file,
        sha256: createHash("sha256").update(readFileSync(choice.file)).digest("hex"),
        seed: p.seed,
        part: choice.part,
        fingerprint: p.fingerprint,
      },
      note: `partition: the ${choice.part} part of ${choice.file} (seed ${p.seed}), ${tasks.length} of ${total} tasks`,
    };
  } catch (err) {
    if (err instanceof PartitionError) throw new CliError(err.message);
    throw err;
  }
}

/** --only-tasks narrowed to the part (all of the part when none were named). */
export function withinPart(onlyTasks: readonly string[], part: AppliedPart | null): string[] {
  if (part === null) return [...onlyTasks];
  if (onlyTasks.length === 0) return [...part.tasks];
  const inPart = new Set(part.tasks);
  const outside = onlyTasks.filter((t) => !inPart.has(t));
  if (outside.length > 0) {
    throw new CliError(
      `--only-tasks names ${outside.map((t) => `'${t}'`).join(", ")}, outside the ${part.identity.part} part: name tasks of that part, or drop --part`,
    );
  }
  return [...onlyTasks];
}

/**
 * A part chosen for `judge` or `report` of a recorded sweep: the partition file's tasks of that
 * part, refused when the file was made for another benchmark cell than the sweep's.
 */
export function partForSweep(
  choice: PartChoice,
  sweep: { bench: string; identity: Record<string, unknown> },
): { tasks: ReadonlySet<string>; note: string } {
  try {
    const p = readPartition(choice.file);
    if (p.bench !== sweep.bench && !p.bench.startsWith(`${sweep.bench}/`)) {
      throw new PartitionError(
        `${choice.file} partitions ${p.bench}, but the sweep ran ${sweep.bench}: give the partition it ran on`,
      );
    }
    const ran = sweep.identity.partition as { sha256?: unknown; part?: unknown } | undefined;
    const sha = createHash("sha256").update(readFileSync(choice.file)).digest("hex");
    const other =
      ran !== undefined && (ran.sha256 !== sha || ran.part !== choice.part)
        ? ` (the sweep itself ran on the ${String(ran.part)} part of another or the same file)`
        : "";
    const tasks = partTasks(p, choice.part);
    return {
      tasks: new Set(tasks),
      note: `partition: the ${choice.part} part of ${choice.file} (seed ${p.seed}), ${tasks.length} task(s)${other}`,
    };
  } catch (err) {
    if (err instanceof PartitionError) throw new CliError(err.message);
    throw err;
  }
}

/** The part a sweep recorded it ran on, as a report note; null when it ran on all tasks. */
export function recordedPartNote(identity: Record<string, unknown>): string | null {
  const p = identity.partition as { file?: unknown; part?: unknown; seed?: unknown } | undefined;
  if (p === undefined || typeof p.part !== "string") return null;
  return `partition: the sweep ran on the ${p.part} part of ${String(p.file)} (seed ${String(p.seed)})`;
}
