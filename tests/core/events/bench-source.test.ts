// The typed source a sweep records (issue 32): built once by the command, recorded under the same
// keys sweeps always had, read back validated by the judge.
import { describe, expect, test } from "bun:test";
import {
  type BenchSource,
  benchSourceOf,
  sourceRecord,
} from "../../../src/core/events/bench-source.ts";

describe("a sweep's benchmark source", () => {
  const sources: [string, BenchSource][] = [
    ["tasks", { kind: "tasks", tasksDir: "/work/tasks" }],
    ["jb", { kind: "jb", dependencies: "/deps", split: "easy", jbRoot: "/deps/jb" }],
    ["lab", { kind: "lab", dependencies: "/deps", labRoot: "/deps/lab" }],
    ["wb-office", { kind: "wb", dependencies: "/deps", subset: "office", wbRoot: "/deps/wb" }],
  ];

  test("recorded under its keys and read back the same, beside the rest of the config", () => {
    for (const [bench, source] of sources) {
      const config = { k: 2, modes: ["agg"], phaseWidth: 4, ...sourceRecord(source) };
      expect(Object.keys(sourceRecord(source))).not.toContain("kind");
      expect(benchSourceOf(bench, config)).toEqual(source);
    }
  });

  test("a record without its dependencies folder still names its checkout", () => {
    expect(benchSourceOf("jb", { split: "main", jbRoot: "/d/jb", modes: ["agg"] })).toEqual({
      kind: "jb",
      split: "main",
      jbRoot: "/d/jb",
    });
  });

  test("no source for the demo, an unknown benchmark, a missing key or a wrong value", () => {
    expect(benchSourceOf("demo", { k: 1 })).toBeNull();
    expect(benchSourceOf("other", { tasksDir: "/t" })).toBeNull();
    expect(benchSourceOf("lab", { dependencies: "/d" })).toBeNull();
    expect(benchSourceOf("jb", { dependencies: "/d", split: "hard", jbRoot: "/r" })).toBeNull();
    expect(benchSourceOf("tasks", { tasksDir: 3 })).toBeNull();
  });
});
