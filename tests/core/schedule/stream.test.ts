// Stream order: CPython-identical seeded shuffles (vectors produced by CPython 3's `random`),
// reference order without a seed, and the only-domains / only-tasks / max-tasks filters.
import { describe, expect, test } from "bun:test";
import {
  PyRandom,
  pyShuffle,
  StreamError,
  streamOrder,
  taskStream,
} from "../../../src/core/schedule/stream.ts";

const range = (n: number) => [...Array(n).keys()];

describe("CPython Mersenne Twister", () => {
  test.each([
    ["1:__domains__", [588135237, 3483457128, 2469825444], [7, 6, 0, 8, 1, 4, 10, 5, 3, 11, 9, 2]],
    ["7:accounting", [546622742, 1988143848, 2044778830], [0, 9, 5, 8, 6, 11, 4, 3, 1, 10, 7, 2]],
    ["42:x/y", [3602257485, 1975769849, 2735654130], [2, 5, 11, 9, 8, 4, 6, 0, 1, 3, 10, 7]],
    ["3:ünïcode", [662821696, 395891059, 1029483776], [0, 5, 7, 10, 6, 8, 11, 9, 4, 3, 1, 2]],
  ] as const)("seed %p gives CPython's words and shuffle", (seed, words, shuffled) => {
    const r = new PyRandom(seed);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([...words]);
    expect(pyShuffle(range(12), seed)).toEqual([...shuffled]);
  });

  test("a long shuffle (past the 624-word refill) matches CPython", () => {
    const x = pyShuffle(range(1000), "5:big");
    expect(x.slice(0, 8)).toEqual([721, 839, 527, 744, 541, 415, 467, 840]);
    expect(x.slice(-5)).toEqual([655, 460, 673, 26, 27]);
    expect(x.reduce((s, v, i) => s + i * v, 0)).toBe(246467378);
  });
});

const TD = new Map([
  ["alpha", ["a3", "a1", "a2"]],
  ["beta", ["b1", "b2"]],
  ["gamma", ["g1", "g2", "g3", "g4"]],
]);
const pairs = (xs: { domain: string; task: string }[]) => xs.map((e) => `${e.domain}/${e.task}`);

describe("streamOrder", () => {
  test("seeded orders equal CPython's", () => {
    expect(pairs(streamOrder(TD, 7))).toEqual([
      "gamma/g1",
      "gamma/g4",
      "gamma/g3",
      "gamma/g2",
      "beta/b2",
      "beta/b1",
      "alpha/a2",
      "alpha/a3",
      "alpha/a1",
    ]);
    expect(pairs(streamOrder(TD, 123))).toEqual([
      "alpha/a2",
      "alpha/a1",
      "alpha/a3",
      "beta/b1",
      "beta/b2",
      "gamma/g1",
      "gamma/g3",
      "gamma/g2",
      "gamma/g4",
    ]);
  });

  test("a domain's seeded order does not depend on the other domains", () => {
    const alone = new Map([["gamma", ["g4", "g2", "g1", "g3"]]]);
    const inFull = pairs(streamOrder(TD, 7)).filter((p) => p.startsWith("gamma/"));
    expect(pairs(streamOrder(alone, 7))).toEqual(inFull);
  });

  test("without a seed: descending task count then name, tasks sorted", () => {
    expect(pairs(streamOrder(TD, null))).toEqual([
      "gamma/g1",
      "gamma/g2",
      "gamma/g3",
      "gamma/g4",
      "alpha/a1",
      "alpha/a2",
      "alpha/a3",
      "beta/b1",
      "beta/b2",
    ]);
  });

  test("a reference order is followed, and a stale one is refused", () => {
    const order = pairs(streamOrder(TD, null, ["beta", "zeta", "alpha", "gamma"]));
    expect(order.slice(0, 3)).toEqual(["beta/b1", "beta/b2", "alpha/a1"]);
    expect(() => streamOrder(TD, null, ["alpha", "beta"])).toThrow(StreamError);
  });
});

describe("taskStream", () => {
  const source = {
    tasks: async () => ["a1", "a2", "a3", "b1", "b2", "g1", "g2", "g3", "g4"],
    domainOf: (t: string) => ({ a: "alpha", b: "beta", g: "gamma" })[t[0] as "a" | "b" | "g"],
  };

  test("groups by domain in stream order and caps per domain", async () => {
    const s = await taskStream(source, { maxTasks: 2 });
    expect([...s.entries()]).toEqual([
      ["gamma", ["g1", "g2"]],
      ["alpha", ["a1", "a2"]],
      ["beta", ["b1", "b2"]],
    ]);
  });

  test("only-domains and only-tasks restrict; unknown names are errors listing valid ones", async () => {
    const s = await taskStream(source, { onlyDomains: ["beta"], seed: 7 });
    expect([...s.entries()]).toEqual([["beta", ["b2", "b1"]]]);
    const t = await taskStream(source, { onlyTasks: ["g3", "a1"] });
    expect([...t.entries()]).toEqual([
      ["gamma", ["g3"]],
      ["alpha", ["a1"]],
    ]);
    const err = await taskStream(source, { onlyDomains: ["delta"] }).catch((e) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect((err as StreamError).valid).toEqual(["alpha", "beta", "gamma"]);
    await expect(taskStream(source, { onlyTasks: ["zz"] })).rejects.toThrow(StreamError);
    await expect(taskStream(source, { maxTasks: 0 })).rejects.toThrow(StreamError);
  });
});
