// The evidence tree: exact layout, contents vs names mode, leak filtering while copying, every
// tripwire with its event, symlinks never followed, failing hooks as evidence, the mission text.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import type { ContextTree } from "../../../src/core/evidence/context-tree.ts";
import { mission, RENDER_TRUNCATION_MARKER } from "../../../src/core/evidence/mission.ts";
import {
  type BuildEvidenceOptions,
  buildEvidenceTree,
  copySource,
  EvidenceDestinationError,
  NoTrajectoryError,
} from "../../../src/core/evidence/tree.ts";
import { walkFiles } from "../../../src/core/lib/safe-fs.ts";
import { Library } from "../../../src/core/library/library.ts";
import type { LibraryView } from "../../../src/core/library/values.ts";
import { type TripwireContext, TripwireError } from "../../../src/core/safety/tripwire.ts";
import { forbiddenWordsIn } from "../../../src/core/seams/bench-prompts.ts";
import type { RunView } from "../../../src/core/seams/benchmark.ts";
import {
  FakeAdapter,
  HARNESS,
  makeHarness,
  makeRun,
  makeSource,
  put,
  SURFACE,
  stageContext,
} from "../evidence-fixture.ts";

let tmp: string;
let dest: string;
let sink: RecordingSink;
let ctx: TripwireContext;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "h2-evidence-"));
  dest = join(tmp, "work", "context", "inv2");
  sink = new RecordingSink();
  ctx = stageContext(sink, "inv2");
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** A full stage: two base rollouts, three candidates, decisions, a harness and a library. */
function fullStage(mode: "contents" | "names" = "contents") {
  const adapter = new FakeAdapter(makeSource(tmp), mode);
  const rollouts = [makeRun(tmp, "base1"), makeRun(tmp, "base2")];
  const c1Tree = { ...HARNESS, "guardrails.md": "Check signs.\nKeep credits.\n" };
  const pool = [
    { label: "inv1", harnessDir: makeHarness(tmp, "inv1"), rollout: makeRun(tmp, "inv1") },
    { label: "dom1", harnessDir: makeHarness(tmp, "dom1"), rollout: makeRun(tmp, "dom1") },
    { label: "c1", harnessDir: makeHarness(tmp, "c1", c1Tree), rollout: makeRun(tmp, "c1") },
  ];
  const libraryDir = join(tmp, "library", "accounting");
  put(libraryDir, "INDEX.md", "# Lessons\n- ledger-0: keep signs\n");
  put(libraryDir, "entries/ledger-0.md", "Lesson: keep signed amounts.\n");
  const opts: BuildEvidenceOptions = {
    ...ctx,
    surface: SURFACE,
    harnessDir: join(tmp, "harnesses", "c1"),
    libraryDir,
    pool,
    decisions: { inv1: "Keep signed amounts.", dom1: "", c1: "Merged inv1 and dom1." },
  };
  return { adapter, rollouts, opts };
}

async function caughtAsync(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the build to fail");
}

function allText(root: string): string {
  return walkFiles(root)
    .map((rel) => readFileSync(join(root, rel), "utf8"))
    .join("\n");
}

describe("layout", () => {
  test("a full stage writes exactly the documented files", async () => {
    const { adapter, rollouts, opts } = fullStage();
    const tree = await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    const harness = [
      "guardrails.md",
      "scripts/summarize.py",
      "skills/README.md",
      "systemprompt.md",
    ];
    expect(walkFiles(dest)).toEqual([
      "decisions/c1.md",
      "decisions/dom1.md",
      "decisions/inv1.md",
      "deliverables/base1/INDEX.md",
      "deliverables/base1/answer.txt",
      "deliverables/base2/INDEX.md",
      "deliverables/base2/answer.txt",
      ...harness.map((p) => `harness/${p}`),
      "library/INDEX.md",
      "library/entries/ledger-0.md",
      ...["c1", "dom1", "inv1"].flatMap((c) => [
        ...harness.map((p) => `pool/${c}/harness/${p}`),
        `pool/${c}/harness.diff`,
        `pool/${c}/produced.md`,
        `pool/${c}/rollout.md`,
      ]),
      "rollouts/base1.md",
      "rollouts/base2.md",
      "source/ledger.csv",
      "task.md",
    ]);
    expect(tree).toMatchObject({
      root: dest,
      taskId: "ledger-1",
      sourceFiles: 1,
      skippedSymlinks: ["linked-dir", "linked.txt"],
      decisions: 3,
      rollouts: ["base1", "base2"],
      failed: [],
      deliverablesMode: "contents",
      deliverableDirs: ["base1", "base2"],
      deliverableTexts: [],
      harnessFiles: 3,
      pool: ["inv1", "dom1", "c1"],
      library: true,
      libraryIndex: true,
    });
    expect(adapter.seenObsTrunc.every((n) => n === 50_000)).toBe(true);
    expect(sink.events).toHaveLength(0);
  });

  test("files hold what the hooks returned; decisions, diffs and INDEX.md read right", async () => {
    const { adapter, rollouts, opts } = fullStage();
    await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    const read = (rel: string) => readFileSync(join(dest, rel), "utf8");
    expect(read("task.md")).toBe("Sum every signed amount in ledger.csv for ledger-1.\n");
    expect(read("rollouts/base1.md")).toContain("[ACTION] run summarize.py (base1)");
    expect(read("decisions/dom1.md")).toBe("No decision notes were returned.\n");
    expect(read("decisions/inv1.md")).toBe("Keep signed amounts.");
    expect(read("pool/c1/harness.diff")).toBe("");
    expect(read("pool/inv1/harness.diff")).toBe(
      "--- current/guardrails.md\n+++ inv1/guardrails.md\n@@ -1,2 +1 @@\n Check signs.\n-Keep credits.\n",
    );
    expect(read("pool/dom1/produced.md")).toBe("Total: 85.15 (dom1)\n");
    const index = read("deliverables/base1/INDEX.md");
    expect(index).toContain("# base1 produced 1 file(s)");
    expect(index).toContain("- `answer.txt` → `answer.txt` (21 characters)");
    expect(index).not.toContain("images/");
    expect(index).not.toContain("raw/");
  });

  test("the layout names exactly the folders that exist", async () => {
    const { adapter, rollouts, opts } = fullStage();
    const full = await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    const paths = (t: ContextTree) => t.layout.split("\n").map((l) => l.trim().split(/\s+/)[0]);
    expect(paths(full)).toEqual([
      "context/task.md",
      "context/source/",
      "context/decisions/",
      "context/rollouts/",
      "context/deliverables/<label>/",
      "context/harness/",
      "context/pool/",
      "context/library/",
    ]);
    expect(full.layout).toContain("FULL trajectories: base1.md, base2.md");
    expect(full.layout).toContain("the harness you are editing (3 files)");
    expect(full.layout).toContain("3 candidates");

    const bare = await buildEvidenceTree(
      dest,
      new FakeAdapter(null),
      "ledger-1",
      [makeRun(tmp, "base1")],
      {
        ...ctx,
        surface: SURFACE,
        libraryDir: join(tmp, "no-such-library"),
      },
    );
    expect(paths(bare)).toEqual([
      "context/task.md",
      "context/rollouts/",
      "context/deliverables/<label>/",
    ]);
    for (const p of paths(bare)) {
      const rel = (p as string).replace("context/", "").replace("<label>/", "base1/");
      expect(existsSync(join(dest, rel))).toBe(true);
    }
    expect(existsSync(join(dest, "source"))).toBe(false);
    expect(existsSync(join(dest, "library"))).toBe(false);
    expect(existsSync(join(dest, "harness"))).toBe(false);
  });

  test("an empty library folder is not copied and not named", async () => {
    const libraryDir = join(tmp, "library", "empty");
    put(libraryDir, "__pycache__/x.pyc", "junk");
    const t = await buildEvidenceTree(
      dest,
      new FakeAdapter(null),
      "ledger-1",
      [makeRun(tmp, "base1")],
      {
        ...ctx,
        surface: SURFACE,
        libraryDir,
      },
    );
    expect(t.library).toBe(false);
    expect(t.layout).not.toContain("library");
  });

  test("with no harness under edit, pool diffs are against an empty harness and say so", async () => {
    const adapter = new FakeAdapter(null);
    const t = await buildEvidenceTree(dest, adapter, "ledger-1", [makeRun(tmp, "base1")], {
      ...ctx,
      surface: SURFACE,
      pool: [{ label: "inv1", harnessDir: makeHarness(tmp, "inv1"), rollout: null }],
    });
    const diff = readFileSync(join(dest, "pool/inv1/harness.diff"), "utf8");
    expect(diff.startsWith("# No harness was being edited")).toBe(true);
    expect(diff).toContain("--- empty/systemprompt.md\n+++ inv1/systemprompt.md\n");
    expect(t.layout).toContain("against an empty one");
    expect(existsSync(join(dest, "pool/inv1/rollout.md"))).toBe(false);
  });

  test("a destination holding an input is refused before anything is wiped", async () => {
    const harnessDir = makeHarness(tmp, "c1");
    const err = await caughtAsync(
      buildEvidenceTree(join(tmp, "harnesses"), new FakeAdapter(null), "ledger-1", [], {
        ...ctx,
        surface: SURFACE,
        harnessDir,
      }),
    );
    expect(err).toBeInstanceOf(EvidenceDestinationError);
    expect(existsSync(join(harnessDir, "systemprompt.md"))).toBe(true);
  });
});

describe("deliverables", () => {
  test("names mode writes only a listing whose note names no measurement", async () => {
    const { adapter, rollouts, opts } = fullStage("names");
    const t = await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    expect(walkFiles(join(dest, "deliverables"))).toEqual(["base1/INDEX.md", "base2/INDEX.md"]);
    const index = readFileSync(join(dest, "deliverables/base1/INDEX.md"), "utf8");
    expect(index).toContain("# base1 produced 1 file(s)\n\n- `answer.txt`\n");
    expect(index).toContain("deliberately withheld");
    expect(index).not.toContain("Total: 85.15");
    expect(forbiddenWordsIn(index)).toEqual([]);
    expect(readFileSync(join(dest, "pool/c1/produced.md"), "utf8")).toContain("- `answer.txt`");
    expect(t.layout).toContain("names only");
    expect(t.layout).toContain("deliberately not provided");
  });

  test("names mode without a listing hook says unavailable instead of counting one file", async () => {
    const adapter = new FakeAdapter(null, "names");
    adapter.deliverableListing = undefined;
    await buildEvidenceTree(dest, adapter, "ledger-1", [makeRun(tmp, "base1")], {
      ...ctx,
      surface: SURFACE,
    });
    const index = readFileSync(join(dest, "deliverables/base1/INDEX.md"), "utf8");
    expect(index).toContain("# base1: file names unavailable");
    expect(index).not.toContain("produced 1 file");
    adapter.deliverableListing = async () => {
      throw new Error("listing broke");
    };
    await buildEvidenceTree(dest, adapter, "ledger-1", [makeRun(tmp, "base1")], {
      ...ctx,
      surface: SURFACE,
    });
    expect(readFileSync(join(dest, "deliverables/base1/INDEX.md"), "utf8")).toContain(
      "(listing unavailable: Error: listing broke)",
    );
  });

  test("contents mode: colliding names are disambiguated; images (max 8) and raw only when present", async () => {
    const adapter = new FakeAdapter(null);
    const run = makeRun(tmp, "base1");
    adapter.files[run.runDir] = { "a/b": "first", a__b: "second", "report.txt": "third" };
    adapter.images[run.runDir] = Array.from({ length: 10 }, (_, i) =>
      put(tmp, `imgs/${i % 2 ? "x" : "y"}/chart.png`, new Uint8Array([i])),
    );
    adapter.assets[run.runDir] = [put(tmp, "assets/book.xlsx", new Uint8Array([1, 2]))];
    await buildEvidenceTree(dest, adapter, "ledger-1", [run], { ...ctx, surface: SURFACE });
    const d = join(dest, "deliverables/base1");
    expect(readFileSync(join(d, "a__b.txt"), "utf8")).toBe("first");
    expect(readFileSync(join(d, "a__b~2.txt"), "utf8")).toBe("second");
    expect(readFileSync(join(d, "report.txt"), "utf8")).toBe("third");
    expect(walkFiles(join(d, "images"))).toHaveLength(8);
    expect(existsSync(join(d, "images/chart~8.png"))).toBe(true);
    expect(walkFiles(join(d, "raw"))).toEqual(["book.xlsx"]);
    const index = readFileSync(join(d, "INDEX.md"), "utf8");
    expect(index).toContain("# base1 produced 3 file(s)");
    expect(index).toContain("`a__b` → `a__b~2.txt`");
    expect(index).toContain("`images/` holds 8 image(s)");
    expect(index).toContain("CANONICAL");
    expect(forbiddenWordsIn(index)).toEqual([]);
  });

  test("no per-file map gives one deliverables/<label>.md and the layout says so", async () => {
    const adapter = new FakeAdapter(null);
    const run = makeRun(tmp, "base1");
    adapter.files[run.runDir] = {};
    const t = await buildEvidenceTree(dest, adapter, "ledger-1", [run], {
      ...ctx,
      surface: SURFACE,
    });
    expect(readFileSync(join(dest, "deliverables/base1.md"), "utf8")).toBe(
      "Total: 85.15 (base1)\n",
    );
    expect(t.deliverableTexts).toEqual(["base1"]);
    expect(t.layout).toContain("context/deliverables/<label>.md");
    expect(t.layout).not.toContain("context/deliverables/<label>/");
  });

  test("throwing deliverable hooks end up as text in the evidence, never as a failed build", async () => {
    const adapter = new FakeAdapter(null);
    const base = makeRun(tmp, "base1");
    adapter.fail.deliverableFiles = true;
    adapter.fail.deliverableText = true;
    await buildEvidenceTree(dest, adapter, "ledger-1", [base], {
      ...ctx,
      surface: SURFACE,
      pool: [{ label: "c1", harnessDir: null, rollout: makeRun(tmp, "c1") }],
    });
    expect(readFileSync(join(dest, "deliverables/base1.md"), "utf8")).toBe(
      "(deliverable unavailable: RangeError: extractor exploded)\n",
    );
    expect(readFileSync(join(dest, "pool/c1/produced.md"), "utf8")).toBe(
      "(deliverable unavailable: Error: reader crashed)\n",
    );
    // a deliverable failure never overwrites a good rollout.md
    expect(readFileSync(join(dest, "pool/c1/rollout.md"), "utf8")).toContain("(c1)");

    // A run is read once per RunView (a rollout rolled again has a new one): the hooks' new
    // behaviour is seen through a fresh view of the same run.
    adapter.fail = { images: true };
    await buildEvidenceTree(dest, adapter, "ledger-1", [{ ...base }], { ...ctx, surface: SURFACE });
    const index = readFileSync(join(dest, "deliverables/base1/INDEX.md"), "utf8");
    expect(index).toContain("images/ could not be listed: Error: no image reader");
  });

  test("each hook reads a run once however many builds show it; a new RunView is read again", async () => {
    const adapter = new FakeAdapter(null);
    const calls: string[] = [];
    const trajectory = adapter.trajectory.bind(adapter);
    adapter.trajectory = async (runDir, opts) => {
      calls.push(`trajectory ${runDir.slice(runDir.lastIndexOf("/") + 1)} ${opts.obsTrunc}`);
      return trajectory(runDir, opts);
    };
    const base = makeRun(tmp, "base1");
    const c1 = makeRun(tmp, "c1");
    const pool = [{ label: "c1", harnessDir: null, rollout: c1 }];
    const built = async (runs: RunView[], obsTrunc?: number) => {
      await buildEvidenceTree(dest, adapter, "ledger-1", runs, {
        ...ctx,
        surface: SURFACE,
        pool,
        obsTrunc,
      });
      return {
        base: readFileSync(join(dest, "rollouts/base1.md"), "utf8"),
        c1: readFileSync(join(dest, "pool/c1/rollout.md"), "utf8"),
      };
    };
    const first = await built([base]);
    expect(await built([base])).toEqual(first);
    expect(calls).toEqual([
      `trajectory base1 ${adapter.spec.obsTrunc}`,
      `trajectory c1 ${adapter.spec.obsTrunc}`,
    ]);
    // another clip is another reading; another RunView of base1 is read afresh
    await built([base], 7);
    await built([{ ...base }]);
    expect(calls.slice(2)).toEqual([
      "trajectory base1 7",
      "trajectory c1 7",
      `trajectory base1 ${adapter.spec.obsTrunc}`,
    ]);
  });
});

describe("leaks and tripwires", () => {
  test("a leak-glob file in the source is filtered while copying: never written anywhere", async () => {
    const { adapter, rollouts, opts } = fullStage();
    const root = join(tmp, "copy-only");
    const copied = await copySource(adapter, "ledger-1", root, adapter.spec.leakGlobs, ctx);
    // copySource checks its copy and would throw, leaving the file, had the filter let it through
    expect(copied.files).toBe(1);
    expect(walkFiles(root)).toEqual(["source/ledger.csv"]);
    expect(sink.events).toHaveLength(0);

    await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    const everything = walkFiles(join(tmp, "work"));
    expect(everything.filter((p) => p.includes("reference_answer"))).toEqual([]);
    expect(everything.filter((p) => p.endsWith(".env") || p.includes("tests/"))).toEqual([]);
  });

  test("symlinks in the source are never followed", async () => {
    const { adapter, rollouts, opts } = fullStage();
    await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    expect(existsSync(join(dest, "source/linked.txt"))).toBe(false);
    expect(existsSync(join(dest, "source/linked-dir"))).toBe(false);
    expect(allText(dest)).not.toContain("TOP SECRET");
  });

  test("a run folder's grader output never reaches the evidence", async () => {
    const { adapter, rollouts, opts } = fullStage();
    await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    expect(allText(dest)).not.toContain("pass_rate");
    expect(walkFiles(dest).some((p) => p.includes("deterministic_eval"))).toBe(false);
  });

  const planted: [string, (s: ReturnType<typeof fullStage>) => void, string][] = [
    [
      "source",
      (s) => put(s.adapter.sourceDir as string, "data/summary.json", '{"pass_rate": 1}'),
      "source/data/summary.json",
    ],
    [
      "source, in a suffix no list names (.jsonl)",
      (s) =>
        put(s.adapter.sourceDir as string, "results.jsonl", '{"case": 1, "passed_count": 3}\n'),
      "source/results.jsonl",
    ],
    [
      "harness",
      (s) => put(s.opts.harnessDir as string, "guardrails.md", "deterministic_eval_result: ok\n"),
      "harness/guardrails.md",
    ],
    [
      "pool candidate (.ts plugin)",
      (s) =>
        put(
          s.opts.pool?.[1]?.harnessDir as string,
          "plugin/check.ts",
          'const v = {"test_pass_rate": 1};\n',
        ),
      "pool/dom1/harness/plugin/check.ts",
    ],
    [
      "library entry",
      (s) =>
        put(
          s.opts.libraryDir as string,
          "entries/ledger-0.md",
          "Judge findings on the rendered result",
        ),
      "library/entries/ledger-0.md",
    ],
  ];
  for (const [where, plant, path] of planted) {
    test(`a verdict marker planted in the ${where} trips, emits an event and leaves nothing`, async () => {
      const stage = fullStage();
      plant(stage);
      const err = await caughtAsync(
        buildEvidenceTree(dest, stage.adapter, "ledger-1", stage.rollouts, stage.opts),
      );
      expect(err).toBeInstanceOf(TripwireError);
      expect((err as TripwireError).kind).toBe("grader_verdict");
      expect((err as TripwireError).path).toBe(path);
      const events = sink.ofType("tripwire.fired");
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        kind: "grader_verdict",
        path,
        stage: "inv2",
        task: "ledger-1",
        mode: "seq",
      });
      expect(existsSync(dest)).toBe(false);
    });
  }

  test("a reserved string in the solver's own deliverable trips, worded as the task's output, not a leak", async () => {
    const stage = fullStage();
    const run = stage.rollouts[0] as RunView;
    put(run.runDir, "answer.txt", 'Batch report: {"pass_rate": 0.75}\n');
    const err = await caughtAsync(
      buildEvidenceTree(dest, stage.adapter, "ledger-1", stage.rollouts, stage.opts),
    );
    expect(err).toBeInstanceOf(TripwireError);
    const message = (err as TripwireError).message;
    expect((err as TripwireError).path).toStartWith("deliverables/");
    expect(message).toContain("the solver's own output deliverables/");
    expect(message).toContain('the JSON key "p·ass_rate"');
    expect(message).toContain('fixtures/tasks/README.md, "Reserved strings"');
    expect(message).not.toContain("leak");
    expect(message).not.toContain('"pass_rate"');
    expect(existsSync(dest)).toBe(false);
  });

  test("a leak-glob path in a harness trips before anything of it is copied", async () => {
    const stage = fullStage();
    put(stage.opts.harnessDir as string, "tests/test_outputs.py", "assert True\n");
    const err = await caughtAsync(
      buildEvidenceTree(dest, stage.adapter, "ledger-1", stage.rollouts, stage.opts),
    );
    expect(err).toMatchObject({
      kind: "leak_path",
      path: "tests/test_outputs.py",
      marker: "tests/**",
    });
    expect(sink.ofType("tripwire.fired")[0]?.kind).toBe("leak_path");
    expect(existsSync(dest)).toBe(false);
  });

  test("a `.env` in a library trips the leak wire", async () => {
    const stage = fullStage();
    put(stage.opts.libraryDir as string, "cfg/.env", "KEY=1\n");
    const err = await caughtAsync(
      buildEvidenceTree(dest, stage.adapter, "ledger-1", stage.rollouts, stage.opts),
    );
    expect(err).toMatchObject({ kind: "leak_path", path: "cfg/.env", marker: ".env" });
  });

  test("a symlink in a pool candidate trips the symlink wire", async () => {
    const stage = fullStage();
    symlinkSync(join(tmp, "outside"), join(tmp, "harnesses", "inv1", "skills", "escape"));
    const err = await caughtAsync(
      buildEvidenceTree(dest, stage.adapter, "ledger-1", stage.rollouts, stage.opts),
    );
    expect(err).toMatchObject({ kind: "symlink", path: "skills/escape" });
    expect(sink.ofType("tripwire.fired")[0]?.kind).toBe("symlink");
  });
});

describe("library cap (docs/differences.md S8)", () => {
  const STREAM = ["ledger-a", "ledger-b", "ledger-c", "ledger-d", "ledger-e"];

  /** A real library holding five lessons, added in stream order. */
  function stockedLibrary(): Library {
    const l = new Library({
      root: join(tmp, "library", "agg"),
      domain: "accounting",
      surface: SURFACE,
      mode: "agg",
      k: 1,
      sweep: "sw",
      sink: new RecordingSink(),
      clock: { now: () => 1 },
    });
    for (const t of STREAM) {
      l.add(t, HARNESS, {
        experience: {
          cue: `cue of ${t}`,
          lesson: "recompute the totals",
          evidence: "base1 lost a sign",
        },
      });
    }
    return l;
  }

  function build(library: Pick<BuildEvidenceOptions, "library" | "libraryDir">, at = dest) {
    return buildEvidenceTree(at, new FakeAdapter(null), "ledger-1", [makeRun(tmp, "base1")], {
      ...ctx,
      surface: SURFACE,
      ...library,
    });
  }

  /** Every file of the evidence's library/ folder with its text. */
  function libraryFiles(root: string): Record<string, string> {
    const lib = join(root, "library");
    return Object.fromEntries(
      walkFiles(lib).map((rel) => [rel, readFileSync(join(lib, rel), "utf8")]),
    );
  }

  test("cap 2 of 5: only the 2 newest entries and an INDEX of them; the library on disk keeps 5", async () => {
    const l = stockedLibrary();
    const t = await build({ library: l.servedView(2) });
    expect(readdirSync(join(dest, "library", "harnesses")).sort()).toEqual([
      "ledger-d",
      "ledger-e",
    ]);
    const index = readFileSync(join(dest, "library", "INDEX.md"), "utf8");
    expect(index).toContain("_3 older entries are not shown._");
    expect(index.match(/^## /gm)).toHaveLength(2);
    expect(index).toContain("## `harnesses/ledger-d/`");
    expect(index).toContain("## `harnesses/ledger-e/`");
    expect(index).not.toContain("ledger-a");
    expect(t.library).toBe(true);
    expect(t.libraryIndex).toBe(true);
    expect(t.layout).toContain("context/library/");

    expect(l.entries()).toEqual(STREAM);
    expect(readdirSync(join(l.dir, "harnesses")).sort()).toEqual(STREAM);
    const onDisk = readFileSync(l.index, "utf8");
    expect(onDisk.match(/^## /gm)).toHaveLength(5);
    expect(onDisk).not.toContain("not shown");
  });

  test("cap 0 and a cap above the entry count serve exactly what the uncapped build serves", async () => {
    const l = stockedLibrary();
    await build({ libraryDir: l.contextDir() });
    const today = libraryFiles(dest);
    expect(Object.keys(today).filter((rel) => rel.endsWith("EXPERIENCE.md"))).toHaveLength(5);
    for (const cap of [0, 7]) {
      const at = join(tmp, "work", "context", `cap${cap}`);
      await build({ library: l.servedView(cap) }, at);
      expect(libraryFiles(at)).toEqual(today);
      expect(readFileSync(join(at, "library", "INDEX.md"), "utf8")).not.toContain("not shown");
    }
  });

  test("entries left out are neither copied nor checked; a served entry is still checked", async () => {
    const l = stockedLibrary();
    put(l.entryDir("ledger-a"), "harness/.env", "KEY=1\n");
    await build({ library: l.servedView(2) });
    expect(allText(dest)).not.toContain("KEY=1");
    expect(sink.ofType("tripwire.fired")).toHaveLength(0);

    put(l.entryDir("ledger-e"), "harness/.env", "KEY=2\n");
    const err = await caughtAsync(build({ library: l.servedView(2) }));
    expect(err).toMatchObject({ kind: "leak_path", path: "harnesses/ledger-e/harness/.env" });
    expect(existsSync(dest)).toBe(false);
  });

  test("a served entry that became a symlink trips the symlink wire", async () => {
    const l = stockedLibrary();
    const view = l.servedView(1) as LibraryView;
    rmSync(l.entryDir("ledger-e"), { recursive: true });
    symlinkSync(l.entryDir("ledger-a"), l.entryDir("ledger-e"));
    const err = await caughtAsync(build({ library: view }));
    expect(err).toMatchObject({ kind: "symlink", path: "harnesses/ledger-e" });
    expect(existsSync(dest)).toBe(false);
  });

  test("libraryDir and library together are refused", async () => {
    const l = stockedLibrary();
    await expect(build({ libraryDir: l.dir, library: l.servedView(2) })).rejects.toThrow(
      "libraryDir or library, not both",
    );
  });
});

describe("trajectories", () => {
  test("no trajectory rendered for ANY rollout is an error, and nothing stays on disk", async () => {
    const adapter = new FakeAdapter(null);
    const runs = [makeRun(tmp, "base1"), makeRun(tmp, "base2")];
    adapter.fail.trajectory = new Set(runs.map((r) => r.runDir));
    const err = await caughtAsync(
      buildEvidenceTree(dest, adapter, "ledger-1", runs, { ...ctx, surface: SURFACE }),
    );
    expect(err).toBeInstanceOf(NoTrajectoryError);
    expect((err as NoTrajectoryError).failures).toHaveLength(2);
    expect(err.message).toContain("base1: TypeError: unreadable stream");
    expect(existsSync(dest)).toBe(false);
  });

  test("one failed trajectory is evidence; the layout lists only the rendered one", async () => {
    const adapter = new FakeAdapter(null);
    const runs: RunView[] = [makeRun(tmp, "base1"), makeRun(tmp, "base2")];
    adapter.fail.trajectory = new Set([runs[0]?.runDir as string]);
    const t = await buildEvidenceTree(dest, adapter, "ledger-1", runs, {
      ...ctx,
      surface: SURFACE,
      obsTrunc: 20_000,
    });
    expect(readFileSync(join(dest, "rollouts/base1.md"), "utf8")).toContain(
      "(trajectory unavailable: TypeError:",
    );
    expect(t.rollouts).toEqual(["base2"]);
    expect(t.failed).toEqual([expect.stringContaining("base1: TypeError")]);
    expect(t.layout).toContain("FULL trajectories: base2.md");
    expect(adapter.seenObsTrunc).toEqual([20_000]);
  });

  test("no rollouts at all is fine (selection-style trees)", async () => {
    const t = await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], {
      ...ctx,
      surface: SURFACE,
    });
    expect(walkFiles(dest)).toEqual(["task.md"]);
    expect(t.layout).toBe(`${"context/task.md".padEnd(32)} the task as the agent received it`);
  });
});

describe("mission", () => {
  test("job, evidence pointer, layout, truncation note and reading method — and no measurement words", async () => {
    const { adapter, rollouts, opts } = fullStage();
    const t = await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, opts);
    const m = mission(t, { job: "  # YOUR JOB\n\nImprove the harness.  \n" });
    expect(m.startsWith("# YOUR JOB\n\nImprove the harness.\n\n# YOUR EVIDENCE\n\n")).toBe(true);
    expect(m).toContain(t.layout);
    expect(m).toContain(RENDER_TRUNCATION_MARKER);
    expect(m).toContain("harness.diff");
    expect(m).toContain("speculation");
    expect(forbiddenWordsIn(m)).toEqual([]);
    const bare = await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], {
      ...ctx,
      surface: SURFACE,
    });
    const mb = mission(bare, { job: "Pick one." });
    expect(mb).not.toContain(RENDER_TRUNCATION_MARKER);
    expect(mb).not.toContain("harness");
  });

  test("no text the builder writes names a benchmark, grader, rubric or score", async () => {
    for (const mode of ["contents", "names"] as const) {
      const { adapter, rollouts, opts } = fullStage(mode);
      rmSync(join(tmp, "sources"), { recursive: true, force: true });
      rmSync(join(tmp, "outside"), { recursive: true, force: true });
      const t = await buildEvidenceTree(dest, adapter, "ledger-1", rollouts, {
        ...opts,
        harnessDir: null,
      });
      expect(forbiddenWordsIn(allText(dest))).toEqual([]);
      expect(forbiddenWordsIn(t.layout)).toEqual([]);
      rmSync(join(tmp, "harnesses"), { recursive: true, force: true });
      rmSync(join(tmp, "runs"), { recursive: true, force: true });
      rmSync(join(tmp, "library"), { recursive: true, force: true });
    }
  });
});
