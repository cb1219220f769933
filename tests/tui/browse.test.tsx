// The run browser over a real store written by the store's own writer: navigation, the screens'
// contents (stage, selection, report tab) and keys typed faster than renders.

import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { renderToString, Text } from "ink";
import { textWidth } from "../../src/core/lib/format.ts";
import { openStore } from "../../store/db.ts";
import { sweepDetail } from "../../store/queries.ts";
import type { ModeView } from "../../store/views.ts";
import { BrowseApp } from "../../tui/browse/browse-app.tsx";
import { current, navigate, screenKey, startAt, windowOf } from "../../tui/browse/nav.ts";
import { sweepsLines } from "../../tui/browse/screens.ts";
import { type BrowseSource, storeSource } from "../../tui/browse/source.ts";
import {
  parentDir,
  parentLabel,
  selectionLines,
  stageLines,
} from "../../tui/browse/stage-screens.ts";
import type { Line } from "../../tui/components/Lines.tsx";
import { KEYS, type Rendered, renderInk } from "./ink-harness.ts";
import {
  browseScenario,
  JUDGED,
  type StoreFixture,
  storeWith,
  UNFINISHED,
} from "./store-fixture.ts";

const text = (lines: Line[]) => lines.map((l) => l.map((s) => s.text).join("")).join("\n");

let fixture: StoreFixture;
let db: Database;
const ROOT = "/r";
beforeAll(() => {
  fixture = storeWith(browseScenario(ROOT));
  db = openStore(fixture.dbPath, { create: false });
});
afterAll(() => {
  db.close();
  fixture.cleanup();
});

let mounted: Rendered[] = [];
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

describe("navigation", () => {
  test("open, move (clamped), scroll (clamped), back (never past the root), tab (only with two)", () => {
    let s = startAt();
    expect(current(s)).toEqual({ kind: "sweeps", cursor: 0 });
    s = navigate(s, { type: "move", at: "sweeps", delta: 5, count: 3 });
    expect(current(s)).toMatchObject({ cursor: 2 });
    s = navigate(s, { type: "move", at: "sweeps", delta: -9, count: 3 });
    expect(current(s)).toMatchObject({ cursor: 0 });
    s = navigate(s, {
      type: "open",
      screen: { kind: "sweep", sweepId: "x", tab: "tasks", cursor: 0, scroll: 0 },
    });
    const at = screenKey(current(s));
    s = navigate(s, { type: "tab", at, tabs: ["tasks"] });
    expect(current(s)).toMatchObject({ tab: "tasks" });
    s = navigate(s, { type: "tab", at, tabs: ["tasks", "report"] });
    expect(current(s)).toMatchObject({ tab: "report" });
    s = navigate(s, { type: "scroll", at: screenKey(current(s)), delta: 50, max: 7 });
    expect(current(s)).toMatchObject({ scroll: 7 });
    s = navigate(s, { type: "back" });
    s = navigate(s, { type: "back" });
    expect(s.stack).toHaveLength(1);
    expect(startAt("swp_1").stack.map((x) => x.kind)).toEqual(["sweeps", "sweep"]);
  });

  test("an action built for a screen that is no longer on top is dropped (keys faster than renders)", () => {
    let s = startAt("swp_1");
    const built = screenKey(current(s));
    const open = (i: number) => ({
      kind: "task" as const,
      sweepId: "swp_1",
      taskId: `t${i}`,
      cursor: 0,
    });
    s = navigate(s, { type: "move", at: built, delta: 1, count: 3 });
    // The cursor moved but the screen is the same: open uses the new cursor.
    s = navigate(s, { type: "openAt", at: built, open });
    expect(current(s)).toMatchObject({ kind: "task", taskId: "t1" });
    // A second Enter built from the old render must not open the tasks list's item on the task.
    const again = navigate(s, { type: "openAt", at: built, open });
    expect(again).toBe(s);
    expect(navigate(s, { type: "move", at: built, delta: 1, count: 3 })).toBe(s);
  });

  test("a window keeps the cursor in view", () => {
    expect(windowOf(5, 4, 10)).toEqual([0, 5]);
    expect(windowOf(100, 0, 10)).toEqual([0, 10]);
    expect(windowOf(100, 50, 10)).toEqual([45, 55]);
    expect(windowOf(100, 99, 10)).toEqual([90, 100]);
  });
});

describe("screens", () => {
  test("at 80 columns the sweep list keeps status, counts, spend and duration; ids shrink", () => {
    const sweep = (id: string, status: "ok" | "interrupted", resumedBy: string | null) => ({
      id,
      startedAt: "2026-11-30T10:00:00.000Z",
      finishedAt: null,
      status,
      bench: "jobbench",
      substrate: "oc",
      ks: [1, 2, 4],
      modes: ["agg", "seq"],
      seed: 7,
      tag: "paper",
      tasks: {
        total: 120,
        ok: 100,
        failed: 3,
        running: 0,
        interrupted: 2,
        skipped: 15,
        withProblems: 4,
      },
      worker: null,
      usd: 123.4567,
      durationS: 3600,
      resumes: null,
      resumedBy,
    });
    const later = "swp_01m95w6awfsrm22h32";
    const lines = text(
      sweepsLines(
        [sweep(later, "ok", null), sweep("swp_01m95w5zzzzzzzzzzz", "interrupted", later)],
        0,
        80,
      ),
    ).split("\n");
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/status .*ok\/fail\/all .*spend .*duration/);
    expect(lines[3]).toMatch(
      /interrupted → resumed( by swp_01m95w6)? +│ +100\/3\/120 │ \$123\.4567 │ +1h00m/,
    );
    // Wide enough, the ids stay whole.
    expect(text(sweepsLines([sweep(later, "ok", null)], 0, 200))).toContain(later);
  });

  test("a stage's parent: base in parallel mode and round 1, else the previous checkpoint", () => {
    expect(parentLabel("agg", "inv2")).toBe("base");
    expect(parentLabel("agg", "agg1")).toBe("base");
    expect(parentLabel("seq", "inv1")).toBe("base");
    expect(parentLabel("seq", "dom2")).toBe("c1");
    expect(parentLabel("seq", "c3")).toBe("c2");
    expect(parentDir("/w/t/harnesses/dom2", "c1")).toBe("/w/t/harnesses/c1");
  });

  test("a final's stage lists its own call only, never the selector's or reflector's calls on it", () => {
    const task = sweepDetail(db, UNFINISHED)?.tasks.find((t) => t.task === "ledger-1");
    expect(task?.calls.map((c) => c.label)).toEqual(
      expect.arrayContaining(["select.seq2", "select.seq2.repair1", "experience.agg2"]),
    );
    for (const [mode, label] of [
      ["agg", "agg2"],
      ["seq", "c2"],
    ] as const) {
      const m = task?.modes.find((x) => x.mode === mode) as ModeView;
      const stage = m.stages.find((s) => s.label === label);
      const out = text(
        stageLines({ task: task!, mode, stage: stage!, paths: null, diff: "", width: 120 }),
      );
      expect(out).toContain("proposer calls (1)");
      expect(out).toContain(`${label}.a1`);
      expect(out).not.toContain("select.");
      expect(out).not.toContain("experience.");
    }
  });

  test("a stage shows notes, its full error, paths, proposer calls with audit files, and a toned diff", () => {
    const task = sweepDetail(db, UNFINISHED)?.tasks.find((t) => t.task === "ledger-1");
    const mode = task?.modes.find((m) => m.mode === "agg") as ModeView;
    const stage = mode.stages.find((s) => s.label === "dom1");
    expect(stage).toBeDefined();
    const lines = stageLines({
      task: task!,
      mode: "agg",
      stage: stage!,
      paths: {
        evidenceDir: "/r/ledger-1/context/dom1",
        harnessDir: "",
        startedAt: 0,
        finishedAt: 0,
      },
      diff: "--- a/base/AGENTS.md\n+++ b/dom1/AGENTS.md\n@@ -1 +1 @@\n-old\n+new\n",
      width: 120,
    });
    const out = text(lines);
    expect(out).toContain("stage dom1 (DOM) · parallel · ledger-1 k=2");
    expect(out).toContain("status fell back · attempts 2");
    expect(out).toContain(
      "  invalid proposal: skills/x/SKILL.md needs a description\n  second line",
    );
    expect(out).toContain("  edited the system prompt");
    expect(out).toContain("harness   /r/ledger-1/harnesses/dom1");
    expect(out).toContain("parent    base (/r/ledger-1/harnesses/base)");
    expect(out).toContain("evidence  /r/ledger-1/context/dom1");
    // Both attempts' calls, recorded as dom1.a1 and dom1.a2, with their cost.
    expect(out).toContain("proposer calls (2)");
    expect(out).toMatch(/dom1\.a1\s+│\s+1 │ scripted\/scripted\/improve[^\n]*\$0\.0100/);
    expect(out).toMatch(/dom1\.a2\s+│\s+1 │ scripted\/scripted\/improve[^\n]*\$0\.0100/);
    expect(out).toContain("audit /r/_audit/dom1.a1.json");
    expect(out).toContain("audit /r/_audit/dom1.a2.json");
    const tones = Object.fromEntries(lines.map((l) => [l.map((s) => s.text).join(""), l[0]?.tone]));
    expect(tones["+new"]).toBe("ok");
    expect(tones["-old"]).toBe("error");
    expect(tones["@@ -1 +1 @@"]).toBe("accent");
  });

  test("a selection decodes the anonymous ids, marks the chosen one and a fallback", () => {
    const task = sweepDetail(db, UNFINISHED)?.tasks.find((t) => t.task === "ledger-1");
    const seq = task?.modes.find((m) => m.mode === "seq") as ModeView;
    const out = text(selectionLines(task!, seq, 100));
    expect(out).toContain("chosen c2 (shown to the selector as B) [FALLBACK]");
    expect(out).toContain("selector error: selector reply had no CHOICE line");
    expect(out).toMatch(/A\s+│ c1\s+│\s*\n/);
    expect(out).toMatch(/B\s+│ c2\s+│ ✔ chosen/);
    const agg = task?.modes.find((m) => m.mode === "agg") as ModeView;
    const ok = text(selectionLines(task!, agg, 100));
    expect(ok).toContain("[chosen blind]");
    expect(ok).toContain("  Candidate B reconciles every ledger\n  and cites the sources.");
  });
});

describe("BrowseApp over a real store", () => {
  function mount(extra: Partial<BrowseSource> = {}, size = { columns: 120, rows: 40 }) {
    const diffs: [string, string][] = [];
    const source: BrowseSource = {
      ...storeSource(db, fixture.dbPath, {
        harnessDiff: (from, to) => {
          diffs.push([from, to]);
          return "--- a/base/AGENTS.md\n+++ b/dom1/AGENTS.md\n@@ -1 +1 @@\n-Sum every amount.\n+Sum every amount, refunds included.\n";
        },
        reportText: (id, o) => `REPORT ${id} at ${o.columns} columns\nparallel k=2  0.750`,
      }),
      ...extra,
    };
    let quits = 0;
    const r = renderInk(<BrowseApp source={source} color={false} onQuit={() => quits++} />, size);
    mounted.push(r);
    return { r, diffs, quits: () => quits };
  }

  test("sweeps → tasks → task → stage (diff against its parent) → back → selection", async () => {
    const { r, diffs } = mount();
    let f = await r.waitFor((x) => x.includes("sweeps (2)"));
    expect(f).toMatch(/▶ swp_20261130_unfinished .*│ unfinished │ demo\/opencode/);
    expect(f).toMatch(/ {2}swp_20261130_judged .*│ ok/);
    r.type(KEYS.enter);
    f = await r.waitFor((x) => x.includes(`sweeps › ${UNFINISHED}`));
    expect(f).toContain("tasks 0 ok, 1 failed, 0 running, 1 stopped, 0 skipped of 2");
    expect(f).not.toContain("report");
    expect(f).toMatch(/▶ ledger-1 .*partial.*parallel ok → agg2 · sequential ok → FALLBACK c2/);
    r.type(KEYS.enter);
    f = await r.waitFor((x) => x.includes("task ledger-1 k=2 in acct"));
    expect(f).toContain("TRIPWIRE grader_verdict at dom1: context/dom1/rollouts/base1.md [PASSED]");
    expect(f).toMatch(/▶ {3}inv1 /);
    r.type(KEYS.down);
    f = await r.waitFor((x) => /▶ {3}dom1 /.test(x));
    expect(f).toMatch(/dom1\s+│ DOM │ base\s+│ fell back │\s+2 │/);
    // The stage tables are the lineage: where each candidate came from, what it cost with its
    // rollouts, and the pick.
    expect(f).toMatch(/agg2 ★ │ AGG │ every proposal │ ok/);
    expect(f).toMatch(/c1\s+│ COMPOSE │ inv1\+dom1 │ ok/);
    expect(f).toMatch(/inv2\s+│ INV\s+│ c1\s+│ ok/);
    expect(f).toMatch(/c2 ★\s+│ COMPOSE │ inv2\+dom2 │/);
    r.type(KEYS.enter);
    f = await r.waitFor((x) => x.includes("stage dom1 (DOM) · parallel"));
    expect(f).toContain("status fell back");
    expect(f).toContain("+Sum every amount, refunds included.");
    expect(diffs).toEqual([["/r/ledger-1/harnesses/base", "/r/ledger-1/harnesses/dom1"]]);
    r.type(KEYS.escape);
    await r.waitFor((x) => /▶ {3}dom1 /.test(x));
    // Down to the sequential selection: 6 parallel stages, its selection, 6 sequential stages.
    for (let i = 0; i < 12; i++) r.type(KEYS.down);
    f = await r.waitFor((x) => /▶ {3}selection B → c2 \[FALLBACK\]/.test(x));
    r.type(KEYS.enter);
    f = await r.waitFor((x) => x.includes("selection sequential · ledger-1 k=2"));
    expect(f).toMatch(/B\s+│ c2\s+│ ✔ chosen/);
  });

  test("the report tab appears once a sweep has judgments and shows the report text", async () => {
    // The CLI's report is itself drawn by Ink (renderToString): that must not happen inside the
    // browser's own render, which React reports through console.error.
    const errors: unknown[] = [];
    const spy = spyOn(console, "error").mockImplementation((...a: unknown[]) => {
      errors.push(a);
    });
    const { r } = mount({
      reportText: (id, o) =>
        renderToString(
          <Text>
            REPORT {id} at {o.columns} columns{"\n"}parallel k=2 0.750
          </Text>,
        ),
    });
    await r.waitFor((x) => x.includes("sweeps (2)"));
    r.type(KEYS.down);
    await r.waitFor((x) => x.includes("▶ swp_20261130_judged"));
    r.type(KEYS.enter);
    let f = await r.waitFor((x) => x.includes(`sweeps › ${JUDGED}`));
    expect(f).toContain("[tasks]  library   report");
    expect(f).toContain("tab switch view");
    r.type(KEYS.tab);
    f = await r.waitFor((x) => x.includes("› library"));
    expect(f).toContain("acct · parallel · 1 lesson(s)");
    expect(f).toContain("+ ledger-0 (k=2, medium)");
    expect(f).toContain("cue: ledgers like ledger-0");
    expect(f).toContain("served to: no later task in this sweep");
    r.type(KEYS.tab);
    f = await r.waitFor((x) => x.includes("› report") && x.includes("REPORT"));
    expect(f).toContain(`REPORT ${JUDGED} at 120 columns`);
    expect(f).toContain("parallel k=2 0.750");
    r.type(KEYS.tab);
    await r.waitFor((x) => x.includes("▶ ledger-0"));
    spy.mockRestore();
    expect(errors).toEqual([]);
  });

  test("? shows the keys and screens, any key closes it, q still quits", async () => {
    const { r, quits } = mount({});
    await r.waitFor((x) => x.includes("sweeps (2)"));
    r.type("?");
    let f = await r.waitFor(
      (x) => x.includes("keys") && x.includes("this help; any key closes it"),
    );
    expect(f).toContain("tab           switch the sweep's view: tasks, library, report");
    expect(f).toContain("harness2 help concepts");
    r.type("j");
    f = await r.waitFor((x) => x.includes("sweeps (2)") && !x.includes("this help"));
    r.type("?");
    await r.waitFor((x) => x.includes("this help"));
    r.type("q");
    expect(quits()).toBe(1);
  });

  test("long screens scroll and say where they are; q quits", async () => {
    const { r, quits } = mount({}, { columns: 100, rows: 14 });
    await r.waitFor((x) => x.includes("sweeps (2)"));
    r.type(KEYS.enter);
    await r.waitFor((x) => x.includes("▶ ledger-1"));
    r.type(KEYS.enter);
    await r.waitFor((x) => x.includes("task ledger-1 k=2 in acct"));
    r.type(KEYS.down);
    await r.waitFor((x) => /▶ {3}dom1 /.test(x));
    r.type(KEYS.enter);
    let f = await r.waitFor((x) => x.includes("stage dom1 (DOM)"));
    const first = /lines 1–(\d+) of (\d+)/.exec(f);
    expect(first).not.toBeNull();
    r.type(KEYS.down);
    f = await r.waitFor((x) => x.includes("lines 2–"));
    expect(f).not.toContain("stage dom1 (DOM)");
    r.type("q");
    expect(quits()).toBe(1);
  });

  test("an empty store says how to start, and a failing read is one line, not a crash", async () => {
    const empty = mount({ sweeps: () => [] });
    await empty.r.waitFor((x) =>
      x.includes("no sweeps recorded yet — start one with `harness2 demo`"),
    );
    const broken = mount({
      sweeps: () => {
        throw new Error("database disk image is malformed");
      },
    });
    await broken.r.waitFor((x) =>
      x.includes("could not read the store: database disk image is malformed"),
    );
  });
});
