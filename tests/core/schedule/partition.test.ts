// A train/test partition: stratified by domain, reproducible from its seed, never overwritten, and
// refused for another cell or a task list that changed.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkPartition,
  PartitionError,
  type PartitionFile,
  partitionTasks,
  partTasks,
  readPartition,
  taskListFingerprint,
  writePartition,
} from "../../../src/core/schedule/partition.ts";

const root = mkdtempSync(join(tmpdir(), "h2-partition-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const stream = new Map<string, string[]>([
  ["b-area", ["b/1", "b/2", "b/3", "b/4", "b/5", "b/6"]],
  ["a-area", ["a/1", "a/2", "a/3"]],
  ["solo", ["s/1"]],
]);

function file(seed: number, train = 0.5): PartitionFile {
  return {
    version: 1,
    bench: "lab",
    seed,
    train_fraction: train,
    fingerprint: taskListFingerprint(stream),
    created_at: "2026-12-06T00:00:00.000Z",
    domains: partitionTasks(stream, seed, train),
  };
}

describe("partitions", () => {
  test("the same seed and task list give the same split; each domain is split on its own", () => {
    const a = partitionTasks(stream, 7, 0.5);
    expect(partitionTasks(new Map([...stream].reverse()), 7, 0.5)).toEqual(a);
    expect(Object.keys(a)).toEqual(["a-area", "b-area", "solo"]);
    expect(a["b-area"]?.train).toHaveLength(3);
    expect(a["a-area"]?.train.length).toBeGreaterThanOrEqual(1);
    expect(a["a-area"]?.test.length).toBeGreaterThanOrEqual(1);
    // A one-task domain cannot be split: its task goes to train.
    expect(a.solo).toEqual({ train: ["s/1"], test: [] });
    for (const d of Object.values(a)) {
      expect([...d.train, ...d.test].sort()).toEqual([...new Set([...d.train, ...d.test])].sort());
    }
    // Every task lands in exactly one part.
    const all = [...stream.values()].flat().sort();
    expect([...Object.values(a).flatMap((d) => [...d.train, ...d.test])].sort()).toEqual(all);
    // Other seeds shuffle differently (some of the first 20 differ), and the fraction is honoured.
    const splits = new Set(
      Array.from({ length: 20 }, (_, s) => JSON.stringify(partitionTasks(stream, s, 0.5))),
    );
    expect(splits.size).toBeGreaterThan(1);
    expect(partitionTasks(stream, 7, 0.9)["b-area"]?.test).toHaveLength(1);
    expect(partitionTasks(stream, 7, 0.1)["b-area"]?.train).toHaveLength(1);
  });

  test("the task list's fingerprint ignores order and sees any change", () => {
    const fp = taskListFingerprint(stream);
    expect(taskListFingerprint(new Map([...stream].reverse()))).toBe(fp);
    const moved = new Map(stream);
    moved.set("a-area", ["a/1", "a/2"]);
    moved.set("b-area", ["b/1", "b/2", "b/3", "b/4", "b/5", "b/6", "a/3"]);
    expect(taskListFingerprint(moved)).not.toBe(fp);
  });

  test("written once, read back, refused for another cell or a changed task list", () => {
    const path = join(root, "p.json");
    writePartition(path, file(7));
    expect(() => writePartition(path, file(8))).toThrow(/exists: a partition is never overwritten/);
    expect(readPartition(path).seed).toBe(7);
    const p = readPartition(path);
    expect(partTasks(p, "train").length + partTasks(p, "test").length).toBe(10);
    expect(() => checkPartition(p, path, "lab", stream)).not.toThrow();
    expect(() => checkPartition(p, path, "jb/main", stream)).toThrow(
      /partitions lab, not jb\/main/,
    );
    const changed = new Map(stream);
    changed.set("new-area", ["n/1"]);
    expect(() => checkPartition(p, path, "lab", changed)).toThrow(/task list changed since/);
    writeFileSync(join(root, "torn.json"), '{"version": 1, "bench"');
    expect(() => readPartition(join(root, "torn.json"))).toThrow(PartitionError);
    writeFileSync(join(root, "other.json"), JSON.stringify({ ...file(7), seed: -1 }));
    expect(() => readPartition(join(root, "other.json"))).toThrow(
      /is not a partition harness2 split wrote \(seed: /,
    );
    expect(() => readPartition(join(root, "none.json"))).toThrow(
      /cannot read the partition .*ENOENT/,
    );
    expect(JSON.parse(readFileSync(path, "utf8")).fingerprint).toBe(taskListFingerprint(stream));
  });
});
