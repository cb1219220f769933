// A train/test partition of a benchmark's installed tasks (docs/method.md "Partitions"): every
// domain split on its own (stratified), by a seeded shuffle, so the same seed and the same task
// list always give the same file. The file records the task list's fingerprint: a partition is
// refused for a task list that changed since it was made.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { Harness2Error } from "../lib/errors.ts";

export const PARTS = ["train", "test"] as const;
export type Part = (typeof PARTS)[number];

export const PartitionFile = z.object({
  version: z.literal(1),
  /** The benchmark cell it was made for, by its runs-root name (`jb`, `lab`, `wb-office`, …). */
  bench: z.string().min(1),
  seed: z.number().int().nonnegative(),
  train_fraction: z.number().gt(0).lt(1),
  /** sha256 of the task list (domain and id, sorted) the partition was made from. */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.string(),
  domains: z.record(
    z.string(),
    z.object({ train: z.array(z.string()), test: z.array(z.string()) }),
  ),
});
export type PartitionFile = z.infer<typeof PartitionFile>;

export type DomainTasks = ReadonlyMap<string, readonly string[]>;

/** sha256 of the task list: one `domain\0task\n` line per task, sorted. */
export function taskListFingerprint(stream: DomainTasks): string {
  const lines: string[] = [];
  for (const [domain, tasks] of stream) for (const t of tasks) lines.push(`${domain}\0${t}\n`);
  return createHash("sha256").update(lines.sort().join("")).digest("hex");
}

/** mulberry32: a small seeded generator, the same numbers on every machine. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A domain's own seed: the partition's seed mixed with the domain's name. */
function domainSeed(seed: number, domain: string): number {
  return createHash("sha256").update(`${seed}\0${domain}`).digest().readUInt32BE(0);
}

/**
 * Splits each domain's tasks: sorted, shuffled by the domain's seed, the first round(n × train)
 * to train — at least one task on each side whenever the domain has two or more.
 */
export function partitionTasks(
  stream: DomainTasks,
  seed: number,
  trainFraction: number,
): PartitionFile["domains"] {
  const out: PartitionFile["domains"] = {};
  for (const domain of [...stream.keys()].sort()) {
    const tasks = [...(stream.get(domain) ?? [])].sort();
    const next = generator(domainSeed(seed, domain));
    for (let i = tasks.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [tasks[i], tasks[j]] = [tasks[j] as string, tasks[i] as string];
    }
    const n = tasks.length;
    const cut = n < 2 ? n : Math.min(n - 1, Math.max(1, Math.round(n * trainFraction)));
    out[domain] = { train: tasks.slice(0, cut).sort(), test: tasks.slice(cut).sort() };
  }
  return out;
}

export class PartitionError extends Harness2Error {
  constructor(message: string) {
    super(message);
  }
}

/** Writes the file, refusing to replace one that exists. */
export function writePartition(path: string, p: PartitionFile): void {
  try {
    writeFileSync(path, `${JSON.stringify(PartitionFile.parse(p), null, 2)}\n`, { flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw new PartitionError(
        `${path} exists: a partition is never overwritten; choose another --output`,
      );
    }
    throw new PartitionError(`cannot write ${path} (${(err as Error).message})`);
  }
}

export function readPartition(path: string): PartitionFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new PartitionError(
      `cannot read the partition ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): make one with harness2 split`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new PartitionError(`${path} is not JSON: give a file harness2 split wrote`);
  }
  const parsed = PartitionFile.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new PartitionError(
      `${path} is not a partition harness2 split wrote (${first?.path.join(".") || "file"}: ${first?.message ?? "invalid"})`,
    );
  }
  return parsed.data;
}

/** The tasks of one part, in domain order. */
export function partTasks(p: PartitionFile, part: Part): string[] {
  return Object.keys(p.domains)
    .sort()
    .flatMap((d) => p.domains[d]?.[part] ?? []);
}

/**
 * The partition checked against the cell and task list it is used with; refused, in one line, when
 * it was made for another cell or the task list changed since.
 */
export function checkPartition(
  p: PartitionFile,
  path: string,
  bench: string,
  stream: DomainTasks,
): void {
  if (p.bench !== bench) {
    throw new PartitionError(
      `${path} partitions ${p.bench}, not ${bench}: make one for this benchmark with harness2 split`,
    );
  }
  if (taskListFingerprint(stream) !== p.fingerprint) {
    throw new PartitionError(
      `the task list changed since ${path} was made (its fingerprint differs): make a new partition with harness2 split`,
    );
  }
}
