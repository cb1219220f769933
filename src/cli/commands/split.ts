// `harness2 split`: a reproducible train/test partition of a benchmark cell's installed tasks,
// stratified by domain (docs/method.md "Partitions"), written to a file that is never overwritten.
// run, check, judge and report take `--split-file FILE --part train|test`.

import { resolve } from "node:path";
import {
  PartitionError,
  type PartitionFile,
  partitionTasks,
  taskListFingerprint,
  writePartition,
} from "../../core/schedule/partition.ts";
import { taskStream } from "../../core/schedule/stream.ts";
import { buildAdapter } from "../bench/build-adapter.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { checkedLocation } from "../runs/run-handle.ts";
import { CELL_OPTIONS, DEPENDENCIES_OPTION } from "../sweep/cell-options.ts";
import { partitionCell } from "../sweep/partition-opts.ts";

const OPTIONS = {
  ...CELL_OPTIONS,
  ...DEPENDENCIES_OPTION,
  seed: { type: "int", min: 0, valueName: "N", description: "the shuffle's seed (required)" },
  train: {
    type: "string",
    valueName: "F",
    description: "the share of each domain that goes to train, between 0 and 1 (default 0.5)",
  },
  output: {
    type: "string",
    valueName: "FILE",
    description: "where to write the partition (required)",
  },
  json: { type: "boolean", description: "Print the partition as JSON too" },
} as const satisfies OptionSpecs;

const splitCommand = defineCommand({
  name: "split",
  summary: "Partition a benchmark's tasks into train and test, per domain, reproducibly",
  args: "",
  help: [
    "Example: harness2 split --bench lab --seed 7 --train 0.5 --output lab-split.json",
    "",
    "Each domain is split on its own (at least one task on each side when it has two or more),",
    "by a shuffle the seed fixes: the same seed and the same task list give the same file. The",
    "file records the task list's fingerprint; run, check, judge and report refuse it once the",
    "task list changed. An existing --output is never overwritten.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 0, max: 0 },
  async run(args, io) {
    const seed = args.opts.seed;
    if (seed === undefined)
      throw new UsageError("--seed N is required (the partition's seed)", "split");
    const output = args.opts.output;
    if (output === undefined || output === "") {
      throw new UsageError("--output FILE is required (where the partition goes)", "split");
    }
    const rawTrain = args.opts.train ?? "0.5";
    const train = Number(rawTrain);
    if (!/^\d*\.?\d+$/.test(rawTrain) || !(train > 0 && train < 1)) {
      throw new UsageError(`--train must be a number between 0 and 1, got '${rawTrain}'`, "split");
    }
    // split takes no --runs: the adapters are built where the environment puts the runs.
    const where = checkedLocation({ opts: { runs: undefined } }, io);
    const { adapter } = await buildAdapter(args, io, where.runsDir);
    const stream = await taskStream(adapter, {});
    const tasks = [...stream.values()].reduce((n, t) => n + t.length, 0);
    if (tasks === 0) throw new CliError("the benchmark has no task to partition");
    const file: PartitionFile = {
      version: 1,
      bench: partitionCell(adapter, args),
      seed,
      train_fraction: train,
      fingerprint: taskListFingerprint(stream),
      created_at: new Date().toISOString(),
      domains: partitionTasks(stream, seed, train),
    };
    const path = resolve(io.cwd, output);
    try {
      writePartition(path, file);
    } catch (err) {
      if (err instanceof PartitionError) throw new CliError(err.message);
      throw err;
    }
    if (args.opts.json) {
      io.stdout(`${JSON.stringify({ path, ...file }, null, 2)}\n`);
      return EXIT.ok;
    }
    const n = (part: "train" | "test") =>
      Object.values(file.domains).reduce((k, d) => k + d[part].length, 0);
    io.stdout(
      `wrote ${path}: ${file.bench}, seed ${seed}, ${n("train")} train and ${n("test")} test tasks in ${Object.keys(file.domains).length} domain(s)\n`,
    );
    for (const [domain, d] of Object.entries(file.domains)) {
      io.stdout(
        `  ${domain}: train ${d.train.join(", ") || "-"} | test ${d.test.join(", ") || "-"}\n`,
      );
    }
    const { bench, tasks: taskDir, split, subset, dependencies } = args.opts;
    const cell = Object.entries({ bench, tasks: taskDir, split, subset, dependencies })
      .flatMap(([name, v]) => (v === undefined ? [] : [`--${name} ${v}`]))
      .join(" ");
    io.stdout(
      `next: ${selfCommand(io.env, io.cwd)} run ${cell} --split-file ${output} --part train\n`,
    );
    return EXIT.ok;
  },
});

export default splitCommand;
