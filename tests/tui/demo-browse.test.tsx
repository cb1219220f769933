// The browser over a store the real demo wrote (not scripted events): a stage screen finds its
// proposer calls, which the method records as `<stage>.a<N>`, with their attempts and cost, and
// the selector's and reflector's calls stay off every stage.

import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { treeDiff } from "../../src/core/harness/diff.ts";
import { readTree } from "../../src/core/harness/tree.ts";
import { OPENCODE_SURFACE } from "../../src/substrate/opencode/surface.ts";
import { openStore } from "../../store/db.ts";
import { sweepDetail } from "../../store/queries.ts";
import { listSweeps } from "../../store/sweep-list.ts";
import type { ModeView } from "../../store/views.ts";
import { BrowseApp } from "../../tui/browse/browse-app.tsx";
import { storeSource } from "../../tui/browse/source.ts";
import { selectionLines, stageLines } from "../../tui/browse/stage-screens.ts";
import { runCli } from "../helpers/cli.ts";
import { KEYS, renderInk } from "./ink-harness.ts";

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "h2-demo-browse-"));
  const r = await runCli(["demo", "--no-tui", "--runs", dir]);
  if (r.code !== 0) throw new Error(`demo failed (${r.code}): ${r.stderr}`);
  db = openStore(join(dir, "harness2.db"), { create: false });
}, 120_000);
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("browsing a store the demo wrote", () => {
  test("inv1's stage screen lists its call inv1.a1 with attempts and cost, and nothing else", () => {
    const id = listSweeps(db)[0]?.id as string;
    const task = sweepDetail(db, id)?.tasks.find((t) => t.task === "ledger-1");
    expect(task).toBeDefined();
    const labels = task?.calls.map((c) => c.label) ?? [];
    expect(labels).toContain("inv1.a1");
    expect(labels.some((l) => l.startsWith("select."))).toBe(true);
    expect(labels.some((l) => l.startsWith("experience."))).toBe(true);
    for (const mode of ["agg", "seq"] as const) {
      const m = task?.modes.find((x) => x.mode === mode) as ModeView;
      for (const stage of m.stages) {
        const out = stageLines({ task: task!, mode, stage, paths: null, diff: "", width: 140 })
          .map((l) => l.map((s) => s.text).join(""))
          .join("\n");
        // Every stage of the demo took one attempt: exactly its own call, never a selector's.
        expect(out).toContain("proposer calls (1)");
        expect(out).toMatch(
          new RegExp(`${stage.label}\\.a1\\s+│\\s+1 │ [^\\n]*│\\s+\\d+s │ \\$0\\.0000`),
        );
        expect(out).not.toMatch(/select\.|experience\./);
      }
    }
  });

  test("in the browser: sweep → ledger-1 → inv1 shows the call table", async () => {
    const source = storeSource(db, join(dir, "harness2.db"));
    const r = renderInk(<BrowseApp source={source} color={false} onQuit={() => {}} />, {
      columns: 140,
      rows: 50,
    });
    try {
      await r.waitFor((x) => x.includes("sweeps (1)"));
      r.type(KEYS.enter);
      await r.waitFor((x) => /▶ ledger-1 /.test(x));
      r.type(KEYS.enter);
      await r.waitFor((x) => /▶ {3}inv1 /.test(x));
      r.type(KEYS.enter);
      const f = await r.waitFor((x) => x.includes("stage inv1 (INV) · parallel"));
      expect(f).toContain("status ok · attempts 1 · cost $0.0000");
      expect(f).toContain("proposer calls (1)");
      expect(f).toMatch(/inv1\.a1\s+│\s+1 │ [^\n]*\$0\.0000/);
      expect(f).toMatch(/audit \S+inv1\.a1\./);
    } finally {
      r.unmount();
    }
  });
});

/** The CLI's diff callback, as `harness2 browse` gives it (src/cli/commands/browse.ts). */
const withDiffs = () =>
  storeSource(db, join(dir, "harness2.db"), {
    harnessDiff: (from, to) =>
      treeDiff(readTree(OPENCODE_SURFACE, from), readTree(OPENCODE_SURFACE, to), "a", "b"),
  });

describe("a selection screen reaches what a user would ship and learn from", () => {
  test("the adopted harness against the starting harness, the reflection and the library entry", () => {
    const id = listSweeps(db)[0]?.id as string;
    const task = sweepDetail(db, id)?.tasks.find((t) => t.task === "ledger-1") as NonNullable<
      ReturnType<typeof sweepDetail>
    >["tasks"][number];
    const source = withDiffs();
    for (const mode of ["agg", "seq"] as const) {
      const m = task.modes.find((x) => x.mode === mode) as ModeView;
      const chosen = m.stages.find((s) => s.label === m.selection?.chosenLabel);
      expect(chosen).toBeDefined();
      const modeDir = join(chosen!.harnessDir, "..", "..");
      const base = join(modeDir, "reflection", `${mode}${task.k}`, "base_harness");
      const diff = source.harnessDiff?.(base, chosen!.harnessDir) ?? null;
      const out = selectionLines(task, m, 140, diff)
        .map((l) => l.map((s) => s.text).join(""))
        .join("\n");
      expect(out).toContain("adopted harness against the starting harness");
      expect(out).toContain("-            if amount > 0:");
      expect(out).toContain("reflection  lesson stored");
      expect(out).toContain("library     + ledger-1");
      expect(out).toContain("cue: a ledger holds refunds or fees as negative amounts");
    }
  });

  test("in the browser: ledger-1 → parallel selection shows the diff against the base", async () => {
    const source = withDiffs();
    const r = renderInk(<BrowseApp source={source} color={false} onQuit={() => {}} />, {
      columns: 140,
      rows: 80,
    });
    try {
      await r.waitFor((x) => x.includes("sweeps (1)"));
      r.type(KEYS.enter);
      await r.waitFor((x) => /▶ ledger-1 /.test(x));
      r.type(KEYS.enter);
      await r.waitFor((x) => /▶ {3}inv1 /.test(x));
      // Below the parallel mode's six stages comes its selection.
      for (let i = 0; i < 6; i++) r.type(KEYS.down);
      await r.waitFor((x) => /▶ {3}selection A → agg\d/.test(x));
      r.type(KEYS.enter);
      const f = await r.waitFor((x) => x.includes("adopted harness against the starting harness"));
      expect(f).toContain("-            if amount > 0:");
    } finally {
      r.unmount();
    }
  });
});
