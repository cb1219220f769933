// Which tree each pool candidate's harness.diff is against (docs/differences.md R25): the harness
// it was edited from, named in the header; `current` when that is the harness under edit. Baselines
// are checked like any tree that reaches a session, and the layout says what each name is.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import { mission } from "../../../src/core/evidence/mission.ts";
import { MissingBaselineError } from "../../../src/core/evidence/pool.ts";
import {
  type BuildEvidenceOptions,
  buildEvidenceTree,
  EvidenceDestinationError,
  type PoolEntry,
} from "../../../src/core/evidence/tree.ts";
import { treeDiff } from "../../../src/core/harness/diff.ts";
import type { Tree } from "../../../src/core/harness/surface.ts";
import { readTree } from "../../../src/core/harness/tree.ts";
import type { TripwireContext } from "../../../src/core/safety/tripwire.ts";
import { forbiddenWordsIn } from "../../../src/core/seams/bench-prompts.ts";
import {
  FakeAdapter,
  HARNESS,
  makeHarness,
  makeRun,
  SURFACE,
  stageContext,
} from "../evidence-fixture.ts";

let tmp: string;
let dest: string;
let ctx: TripwireContext;
let sink: RecordingSink;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "h2-pool-"));
  dest = join(tmp, "work", "context", "inv3");
  sink = new RecordingSink();
  ctx = stageContext(sink, "inv3");
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const withGuardrail = (line: string): Tree => ({ ...HARNESS, "guardrails.md": `${line}\n` });

/** Round 3 of a sequential run: c2 is under edit; round 1 edited the base, round 2 edited c1. */
function roundThree(): { opts: BuildEvidenceOptions; dir: (label: string) => string } {
  const dirs: Record<string, string> = {
    base: makeHarness(tmp, "base"),
    c1: makeHarness(tmp, "c1", withGuardrail("c1 line")),
    c2: makeHarness(tmp, "c2", withGuardrail("c2 line")),
    inv1: makeHarness(tmp, "inv1", withGuardrail("inv1 line")),
    inv2: makeHarness(tmp, "inv2", withGuardrail("inv2 line")),
  };
  const dir = (label: string) => dirs[label] as string;
  const entry = (label: string, from: string): PoolEntry => ({
    label,
    harnessDir: dir(label),
    rollout: makeRun(tmp, label),
    baseline: { label: from, harnessDir: dir(from) },
  });
  const opts: BuildEvidenceOptions = {
    ...ctx,
    surface: SURFACE,
    harnessDir: dir("c2"),
    pool: [entry("inv1", "base"), entry("c1", "base"), entry("inv2", "c1"), entry("c2", "c1")],
  };
  return { opts, dir };
}

async function caughtAsync(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the build to fail");
}

describe("pool diffs against each candidate's own baseline", () => {
  test("each diff is against the tree its candidate edited, and its header names that tree", async () => {
    const { opts, dir } = roundThree();
    const t = await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], opts);
    const tree = (label: string) => readTree(SURFACE, dir(label));
    const diff = (label: string) => readFileSync(join(dest, "pool", label, "harness.diff"), "utf8");
    expect(diff("inv1")).toBe(treeDiff(tree("base"), tree("inv1"), "base", "inv1"));
    expect(diff("c1")).toBe(treeDiff(tree("base"), tree("c1"), "base", "c1"));
    expect(diff("inv2")).toBe(treeDiff(tree("c1"), tree("inv2"), "c1", "inv2"));
    expect(diff("c2")).toBe(treeDiff(tree("c1"), tree("c2"), "c1", "c2"));
    expect(diff("inv2")).toBe(
      "--- c1/guardrails.md\n+++ inv2/guardrails.md\n@@ -1 +1 @@\n-c1 line\n+inv2 line\n",
    );
    expect(t.poolBaselines).toEqual(["base", "c1"]);
    expect(t.layout).toContain(
      "each harness.diff is against the harness that candidate was edited from, named on its " +
        "`---` lines: `current` is context/harness/, `base` is the harness this task started " +
        "from, `c1` is pool/c1/harness/",
    );
    expect(forbiddenWordsIn(t.layout)).toEqual([]);
    const m = mission(t, { job: "Improve the harness." });
    expect(m).toContain("(its `harness.diff`, whose `---` lines name that harness)");
    expect(m).not.toContain("editing baseline");
    expect(forbiddenWordsIn(m)).toEqual([]);
  });

  test("a baseline that is the folder under edit is `current`, exactly as without one", async () => {
    const { opts, dir } = roundThree();
    const inv3 = makeHarness(tmp, "inv3", withGuardrail("inv3 line"));
    const plain = { label: "inv3", harnessDir: inv3, rollout: null };
    // The same folder spelled differently is still the folder under edit.
    const spelled = join(tmp, "harnesses", ".", "c2", "..", "c2");
    const build = async (entry: PoolEntry) => {
      const t = await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], {
        ...opts,
        pool: [entry],
      });
      return { t, diff: readFileSync(join(dest, "pool/inv3/harness.diff"), "utf8") };
    };
    const withBaseline = await build({ ...plain, baseline: { label: "c2", harnessDir: spelled } });
    const without = await build(plain);
    expect(withBaseline.diff).toBe(
      treeDiff(readTree(SURFACE, dir("c2")), readTree(SURFACE, inv3), "current", "inv3"),
    );
    expect(withBaseline.diff).toBe(without.diff);
    expect(withBaseline.t.poolBaselines).toEqual([]);
    expect(withBaseline.t.layout).toBe(without.t.layout);
    expect(withBaseline.t.layout).not.toContain("edited from");
  });

  test("a baseline folder that is gone fails the build, naming it, and leaves nothing", async () => {
    const { opts } = roundThree();
    const gone = join(tmp, "harnesses", "c0");
    const err = await caughtAsync(
      buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], {
        ...opts,
        pool: [{ ...(opts.pool?.[0] as PoolEntry), baseline: { label: "c0", harnessDir: gone } }],
      }),
    );
    expect(err).toBeInstanceOf(MissingBaselineError);
    expect(err.message).toContain(`inv1 was edited from c0, but ${gone} does not exist`);
    expect(existsSync(dest)).toBe(false);
  });

  test("a symlink in a baseline trips the symlink wire and leaves nothing", async () => {
    const { opts, dir } = roundThree();
    symlinkSync(tmp, join(dir("c1"), "skills", "escape"));
    const err = await caughtAsync(
      buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], {
        ...opts,
        // c1 is not itself in this pool: only its role as a baseline reads it.
        pool: (opts.pool ?? []).filter((e) => e.label !== "c1"),
      }),
    );
    expect(err).toMatchObject({ kind: "symlink", path: "skills/escape" });
    expect(sink.ofType("tripwire.fired")[0]?.kind).toBe("symlink");
    expect(existsSync(dest)).toBe(false);
  });

  test("a destination holding a baseline is refused before anything is wiped", async () => {
    const { opts, dir } = roundThree();
    const err = await caughtAsync(
      buildEvidenceTree(dir("base"), new FakeAdapter(null), "ledger-1", [], {
        ...opts,
        pool: [opts.pool?.[0] as PoolEntry],
      }),
    );
    expect(err).toBeInstanceOf(EvidenceDestinationError);
    expect(existsSync(join(dir("base"), "systemprompt.md"))).toBe(true);
  });

  test("a named baseline outside the pool is said to be out of context", async () => {
    const { opts } = roundThree();
    const t = await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], {
      ...opts,
      pool: (opts.pool ?? []).filter((e) => e.label !== "c1"),
    });
    expect(t.poolBaselines).toEqual(["base", "c1"]);
    expect(t.layout).toContain("`c1` is not in this context");
  });
});

describe("each candidate's harness read once per pool entry", () => {
  test("a later build with the same entries serves what the first read, even from a changed folder; new entries read it again", async () => {
    const { opts, dir } = roundThree();
    await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], opts);
    const first = readFileSync(join(dest, "pool/inv2/harness.diff"), "utf8");
    expect(first).toContain("+inv2 line");

    // Nothing changes a candidate's folder once its entry exists; were it changed, the entry's
    // tree is what the evidence keeps showing, and nothing of the change is copied.
    makeHarness(tmp, "inv2", withGuardrail("changed later"));
    symlinkSync(tmp, join(dir("inv2"), "skills", "escape"));
    await buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], opts);
    expect(readFileSync(join(dest, "pool/inv2/harness.diff"), "utf8")).toBe(first);
    expect(readFileSync(join(dest, "pool/inv2/harness/guardrails.md"), "utf8")).toBe("inv2 line\n");
    expect(sink.ofType("tripwire.fired")).toEqual([]);

    // A new entry for the folder reads it afresh: the planted link trips before anything lands.
    const fresh = (opts.pool ?? []).map((e) => ({ ...e }));
    const err = await caughtAsync(
      buildEvidenceTree(dest, new FakeAdapter(null), "ledger-1", [], { ...opts, pool: fresh }),
    );
    expect(err).toMatchObject({ kind: "symlink", path: "skills/escape" });
    expect(existsSync(dest)).toBe(false);
  });
});
