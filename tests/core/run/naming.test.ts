// Mode tokens and lists, tags that could pass for seeds, namespaces (build, parse, match), run
// ids, and task-dir slugs (safe, deterministic, distinct for distinct ids).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  InvalidNameError,
  MODE_NAMES,
  modeToken,
  Namespace,
  namespaceMatcher,
  ns,
  parseModes,
  parseNamespace,
  parseRunId,
  runId,
  taskDir,
  taskSlug,
  validateTag,
  withMode,
} from "../../../src/core/run/naming.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("mode tokens", () => {
  test("CLI names and tokens map both ways", () => {
    expect(modeToken("parallel")).toBe("agg");
    expect(modeToken(" Sequential ")).toBe("seq");
    expect(modeToken("agg")).toBe("agg");
    expect(modeToken("SEQ")).toBe("seq");
    expect(MODE_NAMES).toEqual({ agg: "parallel", seq: "sequential" });
  });

  test("an unknown mode names itself and the accepted names", () => {
    const err = thrown(() => modeToken("both")) as InvalidNameError;
    expect(err).toBeInstanceOf(InvalidNameError);
    expect(err.field).toBe("mode");
    expect(err.value).toBe("both");
    expect(err.message).toContain('"both"');
    expect(err.message).toContain("parallel, sequential");
  });

  test("a comma list becomes tokens in run order, without duplicates", () => {
    expect(parseModes("sequential,parallel")).toEqual(["agg", "seq"]);
    expect(parseModes("agg, parallel")).toEqual(["agg"]);
    expect(parseModes("seq")).toEqual(["seq"]);
  });

  test("an empty list or entry is an error, not a default", () => {
    expect(() => parseModes("")).toThrow(/empty entry/);
    expect(() => parseModes("parallel,,seq")).toThrow(/empty entry/);
    expect(() => parseModes("parallel,both")).toThrow(InvalidNameError);
  });
});

describe("tags", () => {
  test("empty and ordinary tags pass", () => {
    for (const tag of ["", "pilot", "pilot-2", "v1.2_x", "seed", "s3x", "sx-1"]) {
      expect(validateTag(tag)).toBe(tag);
    }
  });

  test("a tag that starts like a seed segment is refused with a hint to use the seed option", () => {
    for (const tag of ["s3", "s12-x", "s0", "S7"]) {
      const err = thrown(() => validateTag(tag)) as InvalidNameError;
      expect(err).toBeInstanceOf(InvalidNameError);
      expect(err.message).toContain(JSON.stringify(tag));
      expect(err.message).toContain("--seed");
    }
  });

  test("a tag must be one safe path-segment fragment", () => {
    for (const tag of ["-x", "a/b", "a b", "ü", "x".repeat(65)]) {
      expect(() => validateTag(tag)).toThrow(/\[A-Za-z0-9_.-\]/);
    }
  });
});

describe("namespaces", () => {
  test("render as <bench>-<substrate>-<mode><k>[-s<seed>][-<tag>]", () => {
    expect(ns({ benchmark: "jb", substrate: "oc", mode: "agg", k: 2, seed: 7, tag: "pilot" })).toBe(
      "jb-oc-agg2-s7-pilot",
    );
    expect(ns({ benchmark: "lab", substrate: "oc", mode: "agg", k: 1 })).toBe("lab-oc-agg1");
    expect(ns({ benchmark: "wb-web", substrate: "cx", mode: "seq", k: 3, seed: 0 })).toBe(
      "wb-web-cx-seq3-s0",
    );
  });

  test("refuse values that would make a namespace ambiguous or unsafe", () => {
    const base = { benchmark: "jb", substrate: "oc", mode: "agg", k: 1 } as const;
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ substrate: "" }, /substrate "" must be non-empty/],
      [{ substrate: "o-c" }, /substrate "o-c"/],
      [{ benchmark: "JB" }, /benchmark "JB"/],
      [{ k: 0 }, /k must be an integer ≥ 1, got 0/],
      [{ seed: -3 }, /seed must be an integer ≥ 0, got -3/],
      [{ tag: "s4" }, /seed segment/],
      [{ mode: "both" }, /mode/],
    ];
    for (const [patch, message] of bad) {
      const r = Namespace.safeParse({ ...base, ...patch });
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message).join("\n")).toMatch(message);
    }
  });

  test("parse back exactly what ns renders, and nothing else", () => {
    const cases = ["jb-oc-agg2-s7-pilot", "wb-office-cx-seq3-s7", "lab-oc-agg1", "a-b-c-agg1-x-y"];
    for (const name of cases) {
      const v = parseNamespace(name);
      expect(v).not.toBeNull();
      expect(ns(v!)).toBe(name);
    }
    expect(parseNamespace("wb-office-cx-seq3")?.benchmark).toBe("wb-office");
    expect(parseNamespace("a-b-c-agg1-x-y")?.tag).toBe("x-y");
    for (const bad of [
      "jb-oc-agg0",
      "jb-oc-both1",
      "jb-agg1",
      "jb-oc-agg01",
      "jb-oc-agg1-s3-s4",
      "jb-oc-agg1-",
    ]) {
      expect(parseNamespace(bad)).toBeNull();
    }
  });

  test("round trip holds for any valid namespace", () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,5}$/);
    const value = fc.record({
      benchmark: fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join("-")),
      substrate: word,
      mode: fc.constantFrom("agg" as const, "seq" as const),
      k: fc.integer({ min: 1, max: 99 }),
      seed: fc.option(fc.integer({ min: 0, max: 9999 }), { nil: null }),
      tag: fc
        .stringMatching(/^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,10}$/)
        .filter((t) => !/^s\d+(-|$)/i.test(t)),
    });
    fc.assert(
      fc.property(value, (v) => {
        const name = ns(v);
        const back = parseNamespace(name);
        return (
          back !== null &&
          ns(back) === name &&
          back.k === v.k &&
          back.seed === v.seed &&
          back.tag === v.tag
        );
      }),
    );
  });

  test("the matcher takes one (bench, substrate, k) cell exactly, not k=11 or other k with seeds and tags", () => {
    const match = namespaceMatcher({ benchmark: "jb", substrate: "oc", k: 1 });
    expect(match("jb-oc-agg1")).toBe(true);
    expect(match("jb-oc-seq1-s3-pilot")).toBe(true);
    expect(match("jb-oc-agg11")).toBe(false);
    expect(match("jb-oc-agg2-s1-x")).toBe(false);
    expect(match("jb-cx-agg1")).toBe(false);
    expect(match("xjb-oc-agg1")).toBe(false);
    const aggOnly = namespaceMatcher({ benchmark: "jb", substrate: "oc", k: 1, mode: "agg" });
    expect(aggOnly("jb-oc-seq1")).toBe(false);
    expect(aggOnly("jb-oc-agg1-s2")).toBe(true);
  });

  test("withMode moves a cell to the other mode", () => {
    const v = { benchmark: "jb", substrate: "oc", mode: "seq", k: 2, seed: 1, tag: "t" } as const;
    expect(ns(withMode(v, "agg"))).toBe("jb-oc-agg2-s1-t");
  });
});

describe("run ids", () => {
  const cell = { benchmark: "jb", substrate: "oc", mode: "agg", k: 2 } as const;

  test("are <ns>/<task>/<label>, with task ids that hold '/'", () => {
    expect(runId(cell, "acct/q1", "inv2")).toBe("jb-oc-agg2/acct/q1/inv2");
    const back = parseRunId("jb-oc-agg2/acct/q1/inv2");
    expect(back?.taskId).toBe("acct/q1");
    expect(back?.label).toBe("inv2");
    expect(back && ns(back.namespace)).toBe("jb-oc-agg2");
  });

  test("refuse labels and task ids that are not a rollout's", () => {
    for (const label of ["inv0", "base", "select.agg2", "inv1.a1", "c01"]) {
      expect(() => runId(cell, "t", label)).toThrow(InvalidNameError);
    }
    for (const task of ["", " t", "t\n", "a\u0000b"]) {
      expect(() => runId(cell, task, "base1")).toThrow(/task id/);
    }
    expect(parseRunId("jb-oc-agg2/x")).toBeNull();
    expect(parseRunId("nope/t/base1")).toBeNull();
    expect(parseRunId("jb-oc-agg2/t/select1")).toBeNull();
  });
});

describe("task slugs", () => {
  const SAFE = /^[A-Za-z0-9._~-]+$/;

  test("plain ids stay readable with '/' as '__'", () => {
    expect(taskSlug("acct-01")).toBe("acct-01");
    expect(taskSlug("jb/acct-01")).toBe("jb__acct-01");
    expect(taskSlug("a.b/c")).toBe("a.b__c");
  });

  test("ids that would collide or be unsafe get a hashed, still-safe name", () => {
    const tricky = [
      "a/b",
      "a__b",
      "a/_b",
      "a_/b",
      "A",
      "a",
      "..",
      ".",
      ".hidden",
      "x y",
      "a\\b",
      "é/ü",
      "~x",
      "_a",
    ];
    const slugs = tricky.map(taskSlug);
    expect(new Set(slugs).size).toBe(tricky.length);
    for (const s of slugs) {
      expect(s).toMatch(SAFE);
      expect(s).not.toBe(".");
      expect(s).not.toBe("..");
      expect(s.startsWith(".")).toBe(false);
    }
    expect(taskSlug("a__b")).toMatch(/^a__b~[0-9a-f]{16}$/);
    // Distinct even on a case-insensitive file system.
    expect(new Set(slugs.map((s) => s.toLowerCase())).size).toBe(tricky.length);
  });

  test("are deterministic, safe, bounded and distinct for distinct ids", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc
            .string({ minLength: 1, maxLength: 200 })
            .map((s) => s.trim())
            .filter((s) => s !== "" && !/[\u0000-\u001f\u007f]/.test(s)),
          {
            minLength: 2,
            maxLength: 30,
          },
        ),
        (ids) => {
          const slugs = ids.map(taskSlug);
          return (
            new Set(slugs.map((s) => s.toLowerCase())).size === ids.length &&
            slugs.every(
              (s, i) =>
                SAFE.test(s) && s.length <= 120 && !s.startsWith(".") && taskSlug(ids[i]!) === s,
            )
          );
        },
      ),
    );
  });

  test("taskDir joins root, namespace and slug", () => {
    expect(taskDir("/r", { benchmark: "jb", substrate: "oc", mode: "seq", k: 1 }, "a/b")).toBe(
      "/r/jb-oc-seq1/a__b",
    );
  });
});
