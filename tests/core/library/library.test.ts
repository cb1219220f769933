// The per-domain library: refusals, tripwires, the stream prefix, formats and visibility.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import type { Tree } from "../../../src/core/harness/surface.ts";
import { walkFiles } from "../../../src/core/lib/safe-fs.ts";
import { Library } from "../../../src/core/library/library.ts";
import {
  domainDir,
  hasExperience,
  inventory,
  type LibraryView,
  libraryRootFor,
  whyWithLegend,
} from "../../../src/core/library/values.ts";
import { TripwireError } from "../../../src/core/safety/tripwire.ts";
import { testSurface } from "../../helpers/surface.ts";

const SURFACE = testSurface({ stubs: [{ path: "skills/README.md", body: "stub\n" }] });

const TREE: Tree = {
  "systemprompt.md": "Be careful.\n",
  "guardrails.md": "Check totals.\n",
  "skills/recon/SKILL.md": "---\nname: recon\n---\nReconcile.\n",
  "skills/recon/scripts/sum.py": "print(1)\n",
  "scripts/check_totals.py": "print(2)\n",
};

const LESSON = {
  cue: "a ledger must be reconciled against a bank statement",
  lesson: "add a guardrails.md rule: recompute every total with scripts/check_totals.py",
  evidence: "row 1 (guardrails, helped): agg2 re-ran the totals and caught the sign error",
  confidence: "medium: one contrast",
};

let root: string;
let sink: RecordingSink;
let now: number;
const clock = { now: () => ++now };

function lib(domain = "Accounting / Ledgers"): Library {
  return new Library({
    root,
    domain,
    surface: SURFACE,
    mode: "agg",
    k: 2,
    sweep: "sw1",
    sink,
    clock,
    leakGlobs: ["RUBRICS.json"],
  });
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "h2-library-"));
  sink = new RecordingSink();
  now = 1000;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("helpers", () => {
  test("domainDir folds separators and never names a parent", () => {
    expect(domainDir("Business / Financial Ops")).toBe("Business__Financial Ops");
    expect(domainDir(" a\\b ")).toBe("a__b");
    expect(domainDir("   ")).toBe("unknown");
    expect(domainDir("..")).toBe("unknown");
  });

  test("hasExperience needs non-blank cue, lesson and evidence", () => {
    expect(hasExperience(LESSON)).toBe(true);
    expect(hasExperience({ ...LESSON, confidence: undefined })).toBe(true);
    expect(hasExperience({ ...LESSON, cue: "  " })).toBe(false);
    expect(hasExperience({ cue: "x", lesson: "y" })).toBe(false);
    expect(hasExperience(null)).toBe(false);
  });

  test("inventory counts agents, skill-local scripts and always-on chars without separators", () => {
    const tree: Tree = {
      ...TREE,
      "sub_agents/a/AGENT.md": "x",
      "sub_agents/a/notes.md": "y",
      "plugin/guard.ts": "export {}",
    };
    expect(inventory(SURFACE, tree)).toBe(
      "1 skills, 1 sub_agents, 2 scripts, 1 plugins; 26 always-on chars",
    );
    expect(inventory(SURFACE, {})).toBe("always-on edits only; 0 always-on chars");
  });

  test("whyWithLegend decodes anonymous ids for a later reader", () => {
    const out = whyWithLegend("B beats A on totals.", { B: "agg1", A: "agg2" });
    expect(out).toContain("B beats A on totals.");
    expect(out).toContain("A = `agg2`, B = `agg1`");
    expect(whyWithLegend("trivial pick", { A: "agg1" })).toBe("trivial pick");
  });

  test("libraryRootFor follows the sweep cell", () => {
    expect(
      libraryRootFor({ runsRoot: "/r", bench: "jb", substrate: "oc", k: 2, seed: 3, tag: "x" }),
    ).toBe("/r/library/jb/k2-oc-s3-x");
    expect(libraryRootFor({ runsRoot: "/r", bench: "jb", substrate: "oc", k: 1 })).toBe(
      "/r/library/jb/k1-oc",
    );
  });
});

describe("Library", () => {
  test("an empty library is invisible", () => {
    const l = lib();
    expect(l.contextDir()).toBeNull();
    l.rebuildIndex();
    expect(l.exists()).toBe(true);
    expect(l.contextDir()).toBeNull();
    expect(readFileSync(l.index, "utf8")).toContain("first task in the domain");
  });

  test("add stores the tree without stubs, EXPERIENCE.md, INDEX.md, and emits library.added", () => {
    const l = lib();
    const dir = l.add("acct/task-1", TREE, {
      why: "B reconciles; A leaves a gap.",
      idMap: { A: "agg1", B: "agg2" },
      label: "agg2",
      runId: "jb-oc-agg2/acct/task-1/agg2",
      experience: { ...LESSON, edits: "component: guardrails.md\nverdict: helped" },
    });
    expect(dir).toBe(l.entryDir("acct/task-1"));
    expect(l.treeOf("acct/task-1")).toEqual(TREE);
    expect(existsSync(join(dir as string, "harness", "skills", "README.md"))).toBe(false);

    const exp = readFileSync(join(dir as string, "EXPERIENCE.md"), "utf8");
    expect(
      exp.startsWith("# acct/task-1\n\n- adopted: `agg2`  (run `jb-oc-agg2/acct/task-1/agg2`)"),
    ).toBe(true);
    expect(exp).toContain("## Why this was chosen\nB reconciles; A leaves a gap.");
    expect(exp).toContain("A = `agg1`, B = `agg2`");
    expect(exp).toContain("## What each edit did\ncomponent: guardrails.md");
    expect(exp).toContain(`- **cue**: ${LESSON.cue}`);
    expect(exp).toContain(`- **confidence**: ${LESSON.confidence}`);

    const index = readFileSync(l.index, "utf8");
    expect(index).toContain("# Library — Accounting / Ledgers");
    expect(index).toContain("## `harnesses/acct__task-1/`");
    expect(index).toContain("1 skills, 2 scripts; 26 always-on chars");
    expect(index).toContain(`- cue: ${LESSON.cue}`);
    expect(l.contextDir()).toBe(join(root, "Accounting__Ledgers"));

    const added = sink.ofType("library.added");
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ task: "acct/task-1", mode: "agg", k: 2, cue: LESSON.cue });
    expect(added[0]?.restored).toBeUndefined();

    l.add("acct/task-1", TREE, { experience: LESSON, restored: true });
    expect(sink.ofType("library.added").at(-1)?.restored).toBe(true);
  });

  test("add refuses an experience without cue, lesson or evidence and writes nothing", () => {
    const l = lib();
    for (const bad of [{}, { ...LESSON, lesson: "" }, { ...LESSON, evidence: " " }, null]) {
      expect(l.add("t1", TREE, { experience: bad })).toBeNull();
    }
    expect(l.entries()).toEqual([]);
    expect(l.exists()).toBe(false);
    expect(sink.events).toHaveLength(0);
  });

  test("a grader verdict in the tree or the lesson throws TripwireError, emits, writes nothing", () => {
    const l = lib();
    const poisoned: Tree = { ...TREE, "LongTermMEMORY.md": '{"pass_rate": 1}' };
    // Off-surface key in a stored tree would fail writeTree; the tripwire must fire before that.
    expect(() => l.add("t1", poisoned, { experience: LESSON })).toThrow(TripwireError);
    expect(() =>
      l.add("t2", TREE, { experience: { ...LESSON, evidence: 'saw "passed_count": 3' } }),
    ).toThrow(TripwireError);
    expect(() =>
      l.add("t3", TREE, { why: "deterministic_eval_summary said so", experience: LESSON }),
    ).toThrow(TripwireError);
    expect(() => l.add("t4", { ...TREE, "RUBRICS.json": "{}" }, { experience: LESSON })).toThrow(
      TripwireError,
    );
    expect(l.entries()).toEqual([]);
    const fired = sink.ofType("tripwire.fired");
    expect(fired.map((e) => e.kind)).toEqual([
      "authored_tree",
      "authored_tree",
      "authored_tree",
      "leak_path",
    ]);
    expect(fired.every((e) => e.stage === "library")).toBe(true);
    expect(sink.ofType("library.added")).toHaveLength(0);
  });

  test("retain keeps only the stream prefix: task 2 sees task 1's lesson, never the reverse", () => {
    const l = lib();
    const stream = ["t1", "t2", "t3"];
    // Before task 1: nothing earlier, so nothing to see.
    l.retain(stream.slice(0, 0));
    expect(l.contextDir()).toBeNull();
    l.add("t1", TREE, { experience: LESSON, label: "agg1" });
    // Before task 2: task 1's lesson is visible.
    l.retain(stream.slice(0, 1));
    expect(l.entries()).toEqual(["t1"]);
    expect(l.contextDir()).not.toBeNull();
    l.add("t2", TREE, { experience: { ...LESSON, cue: "second cue" }, label: "agg2" });

    // A re-run of the same root (e.g. after an interrupted sweep) starts at task 1 again:
    // it must not see task 1's own entry nor task 2's.
    l.retain(stream.slice(0, 0));
    expect(l.entries()).toEqual([]);
    expect(l.contextDir()).toBeNull();
    expect(readFileSync(l.index, "utf8")).not.toContain("second cue");

    // And before task 2 on that re-run, only task 1 (re-added) is there.
    l.add("t1", TREE, { experience: LESSON });
    l.add("t2", TREE, { experience: { ...LESSON, cue: "second cue" } });
    l.retain(stream.slice(0, 1));
    expect(l.taskIds()).toEqual(["t1"]);
    expect(readFileSync(l.index, "utf8")).not.toContain("second cue");
  });

  test("INDEX lists entries in stream order, and a re-add keeps its place", () => {
    const l = lib();
    for (const t of ["zeta", "alpha", "mid"]) l.add(t, TREE, { experience: LESSON });
    l.add("zeta", TREE, { experience: { ...LESSON, cue: "revised" } });
    expect(l.entries()).toEqual(["zeta", "alpha", "mid"]);
    const index = readFileSync(l.index, "utf8");
    expect(index.indexOf("harnesses/zeta/")).toBeLessThan(index.indexOf("harnesses/alpha/"));
    expect(index).toContain("- cue: revised");
  });

  test("forget removes named entries, ignores unknown ones, and rebuilds the index", () => {
    const l = lib();
    l.add("t1", TREE, { experience: LESSON });
    l.add("t2", TREE, { experience: LESSON });
    expect(l.forget(["t1", "nope"])).toEqual(["t1"]);
    expect(l.entries()).toEqual(["t2"]);
    expect(readFileSync(l.index, "utf8")).not.toContain("harnesses/t1/");
    expect(l.forget(["nope"])).toEqual([]);
  });

  test("entries with a missing INDEX.md are not hidden: contextDir rebuilds it", () => {
    const l = lib();
    l.add("t1", TREE, { experience: LESSON });
    rmSync(l.index);
    expect(l.contextDir()).toBe(l.dir);
    expect(readFileSync(l.index, "utf8")).toContain("harnesses/t1/");
  });

  test("a folder without EXPERIENCE.md is not a lesson", () => {
    const l = lib();
    l.add("t1", TREE, { experience: LESSON });
    rmSync(join(l.entryDir("t1"), "EXPERIENCE.md"));
    writeFileSync(join(l.entryDir("t1"), "notes.md"), "x");
    expect(l.contextDir()).toBeNull();
  });
});

describe("servedView (the entry cap, docs/differences.md S8)", () => {
  const STREAM = ["t1", "t2", "t3", "t4", "t5"];

  function stocked(): Library {
    const l = lib();
    for (const t of STREAM) l.add(t, TREE, { experience: { ...LESSON, cue: `cue of ${t}` } });
    return l;
  }

  test("cap 2 of 5: the 2 most recent entries, an INDEX of just them and the left-out count", () => {
    const l = stocked();
    const onDisk = readFileSync(l.index, "utf8");
    const view = l.servedView(2) as LibraryView;
    expect(view).toMatchObject({ dir: l.dir, entries: ["t4", "t5"], omitted: 3 });
    const index = view.index as string;
    expect(index).toContain("_3 older entries are not shown._");
    expect(index).toContain("## `harnesses/t4/`");
    expect(index).toContain("## `harnesses/t5/`");
    expect(index.indexOf("harnesses/t4/")).toBeLessThan(index.indexOf("harnesses/t5/"));
    for (const old of ["t1", "t2", "t3"]) {
      expect(index).not.toContain(`harnesses/${old}/`);
      expect(index).not.toContain(`cue of ${old}`);
    }
    expect(index).toContain("- cue: cue of t5");
    // Nothing is lost: the library on disk and its own INDEX.md are untouched.
    expect(l.entries()).toEqual(STREAM);
    expect(readFileSync(l.index, "utf8")).toBe(onDisk);
    expect(onDisk).not.toContain("not shown");
    for (const t of STREAM) expect(onDisk).toContain(`## \`harnesses/${t}/\``);
  });

  test("the most recent are by stream order, not by name; one left out reads in the singular", () => {
    const l = lib();
    for (const t of ["zeta", "alpha", "mid"]) l.add(t, TREE, { experience: LESSON });
    const view = l.servedView(2) as LibraryView;
    expect(view.entries).toEqual(["alpha", "mid"]);
    expect(view.index).toContain("_1 older entry is not shown._");
  });

  test("cap 0, or a cap at or above the entry count, serves the whole folder as today", () => {
    const l = stocked();
    for (const cap of [0, 5, 9]) {
      expect(l.servedView(cap)).toEqual({ dir: l.dir, entries: null, index: null, omitted: 0 });
    }
    expect(l.contextDir()).toBe(l.dir);
  });

  test("no lesson yet: nothing is served, whatever the cap", () => {
    const l = lib();
    expect(l.servedView(0)).toBeNull();
    expect(l.servedView(2)).toBeNull();
  });

  test("a negative or fractional cap is refused", () => {
    const l = stocked();
    expect(() => l.servedView(-1)).toThrow(
      "maxEntries must be an integer ≥ 0 (0 = no cap), got -1",
    );
    expect(() => l.servedView(1.5)).toThrow(RangeError);
    expect(() => l.servedView(0, -1)).toThrow(
      "maxBytes must be an integer ≥ 0 (0 = no cap), got -1",
    );
  });

  /** Bytes of an entry folder's files, summed the way a reader of the folder would count them. */
  const bytesOf = (l: Library, name: string): number =>
    walkFiles(join(l.dir, "harnesses", name)).reduce(
      (sum, rel) => sum + statSync(join(l.dir, "harnesses", name, rel)).size,
      0,
    );

  test("a byte budget serves the most recent entries that fit, never cutting one", () => {
    const l = stocked();
    const [t3, t4, t5] = ["t3", "t4", "t5"].map((t) => bytesOf(l, t)) as [number, number, number];
    // Exactly the three newest fit; one byte less and only two do.
    expect(l.servedView(0, t3 + t4 + t5)).toMatchObject({
      entries: ["t3", "t4", "t5"],
      omitted: 2,
    });
    const two = l.servedView(0, t3 + t4 + t5 - 1) as LibraryView;
    expect(two).toMatchObject({ entries: ["t4", "t5"], omitted: 3 });
    expect(two.index).toContain("_3 older entries are not shown._");
    // The entry cap and the byte budget together: the tighter one decides.
    expect(l.servedView(1, 10_000_000)).toMatchObject({ entries: ["t5"], omitted: 4 });
    expect(l.servedView(4, t4 + t5)).toMatchObject({ entries: ["t4", "t5"], omitted: 3 });
    expect(l.entries()).toEqual(STREAM);
  });

  test("the newest entry is served even alone over budget; a budget the library fits in is no cap", () => {
    const l = stocked();
    expect(l.servedView(0, 1)).toMatchObject({ entries: ["t5"], omitted: 4 });
    const all = STREAM.reduce((sum, t) => sum + bytesOf(l, t), 0);
    expect(l.servedView(0, all)).toEqual({ dir: l.dir, entries: null, index: null, omitted: 0 });
  });
});
