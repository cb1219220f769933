// From stored records to judge subjects and report cells: which run a pick means, which picks may
// be scored, and how a sweep that skipped tasks on resume carries their earlier records.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  baseSubjects,
  judgmentKeys,
  pickSubjects,
  reportCells,
  type StoredCell,
  type StoredJudgment,
  type StoredRecords,
} from "../../src/judge/sweep-data.ts";
import { openStore } from "../../store/db.ts";
import { newSweepId } from "../../store/ids.ts";
import { sweepRecords } from "../../store/report-queries.ts";
import { StoreWriter } from "../../store/writer.ts";
import { recordDemoSweep } from "./demo-sweep.ts";

const SWEEP = "swp_0000000000data0000";

function storedCell(over: Partial<StoredCell>): StoredCell {
  return {
    sweepId: SWEEP,
    domain: "d",
    task: "t",
    k: 2,
    mode: "agg",
    carried: false,
    modeStatus: "ok",
    modeError: "",
    fellBack: [],
    similarity: null,
    selection: {
      chosenLabel: "agg1",
      ok: true,
      fallback: false,
      trivial: false,
      error: "",
      chosenRunId: null,
      chosenRunDir: null,
    },
    rollouts: [
      { label: "agg1", runId: "demo-oc-agg2/t/agg1", runDir: "/x/agg1", finished: true, ok: true },
      {
        label: "inv1",
        runId: "demo-oc-agg2/t/inv1",
        runDir: "/x/agg-inv1",
        finished: true,
        ok: true,
      },
      {
        label: "inv1",
        runId: "demo-oc-seq2/t/inv1",
        runDir: "/x/seq-inv1",
        finished: true,
        ok: true,
      },
      {
        label: "base1",
        runId: "demo-oc-agg2/t/base1",
        runDir: "/x/base1",
        finished: true,
        ok: true,
      },
    ],
    improver: { stages: 0, selection: 0, reflection: 0 },
    executor: 0,
    ...over,
  };
}

const records = (cells: StoredCell[]): StoredRecords => ({
  cells,
  bases: [
    {
      sweepId: SWEEP,
      domain: "d",
      task: "t",
      k: 2,
      carried: false,
      modes: ["seq", "agg"],
      rollouts: [
        {
          label: "base1",
          runId: "demo-oc-agg2/t/base1",
          runDir: "/x/base1",
          finished: true,
          ok: true,
        },
      ],
      executor: 0,
    },
  ],
});

const judgment = (score: number | null, reason = ""): StoredJudgment => ({
  graded: score !== null,
  score,
  passed: null,
  total: null,
  metric: null,
  reason,
  judge: "j",
});

describe("pick subjects", () => {
  test("the chosen run is found by label, and a label both modes use by the mode in its run id", () => {
    const [agg, seq] = pickSubjects(
      records([
        storedCell({}),
        storedCell({
          mode: "seq",
          selection: { ...storedCell({}).selection!, chosenLabel: "inv1" },
        }),
      ]),
    );
    expect(agg).toMatchObject({ runId: "demo-oc-agg2/t/agg1", runDir: "/x/agg1" });
    expect(seq).toMatchObject({ runId: "demo-oc-seq2/t/inv1", runDir: "/x/seq-inv1" });
  });

  test("a recorded run id and run dir win over the label", () => {
    const [p] = pickSubjects(
      records([
        storedCell({
          selection: {
            ...storedCell({}).selection!,
            chosenRunId: "demo-oc-agg2/t/inv1",
            chosenRunDir: "/elsewhere",
          },
        }),
      ]),
    );
    expect(p).toMatchObject({ runId: "demo-oc-agg2/t/inv1", runDir: "/elsewhere" });
  });

  test("unfinished modes give no subject; a failed mode is refused with its error", () => {
    const subjects = pickSubjects(
      records([
        storedCell({ modeStatus: "running" }),
        storedCell({ modeStatus: null, selection: null }),
        storedCell({ task: "u", modeStatus: "failed", modeError: "tripwire", selection: null }),
      ]),
    );
    expect(subjects).toHaveLength(1);
    expect(subjects[0]).toMatchObject({ task: "u", modeFailed: "tripwire", ok: false });
  });

  test("base subjects are filed under the record's first mode; keys cover run ids and places", () => {
    const r = records([storedCell({})]);
    expect(baseSubjects(r)).toEqual([
      {
        kind: "base",
        sweep: SWEEP,
        domain: "d",
        task: "t",
        mode: "seq",
        k: 2,
        label: "base1",
        runId: "demo-oc-agg2/t/base1",
        runDir: "/x/base1",
      },
    ]);
    expect(judgmentKeys(r)).toEqual([
      "demo-oc-agg2/t/agg1",
      `${SWEEP}:t:agg:2`,
      "demo-oc-agg2/t/base1",
    ]);
  });
});

describe("report cells", () => {
  test("a refused pick is ungraded whatever the store holds; a judgeable one takes its row or none", () => {
    const fallback = storedCell({
      task: "f",
      selection: { ...storedCell({}).selection!, ok: false, fallback: true, error: "no choice" },
    });
    const { picks, bases } = reportCells(
      records([
        storedCell({}),
        fallback,
        storedCell({
          task: "n",
          mode: "seq",
          selection: { ...storedCell({}).selection!, chosenLabel: "c1" },
          rollouts: [
            { label: "c1", runId: "demo-oc-seq2/n/c1", runDir: "/x/c1", finished: true, ok: true },
          ],
        }),
      ]),
      new Map([
        ["demo-oc-agg2/t/agg1", judgment(1)],
        // a graded row of the same run must not make the fallback count
        [`${SWEEP}:f:agg:2`, judgment(1)],
        ["demo-oc-agg2/t/base1", judgment(0)],
      ]),
    );
    expect(picks[0]?.judgment).toMatchObject({ graded: true, score: 1 });
    expect(picks[1]?.pick).toEqual({ kind: "fallback", label: "agg1" });
    expect(picks[1]?.judgment).toMatchObject({ graded: false, score: null });
    expect(picks[1]?.judgment?.reason).toContain("fell back (no choice)");
    expect(picks[2]?.judgment).toBeNull();
    expect(bases[0]?.runs).toEqual([{ label: "base1", judgment: judgment(0) }]);
  });

  test("a judgeable pick the judge recorded by its place (no run dir) reads that row", () => {
    const { picks } = reportCells(
      records([storedCell({})]),
      new Map([[`${SWEEP}:t:agg:2`, judgment(null, "run directory /x/agg1 does not exist")]]),
    );
    expect(picks[0]?.judgment).toMatchObject({
      graded: false,
      reason: expect.stringContaining("does not exist"),
    });
  });
});

describe("sweepRecords: a resumed sweep carries the tasks it skipped", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "h2-sweep-data-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("cells and bases of skipped tasks come from the earlier sweep of the experiment", async () => {
    const first = await recordDemoSweep({ runsDir: dir, k: 1, t0: Date.UTC(2026, 10, 30, 8) });
    const writer = StoreWriter.open(first.dbPath);
    const t0 = Date.UTC(2026, 10, 30, 9);
    const sweep = newSweepId(t0);
    const base = { ts: t0, sweep };
    writer.emit({
      type: "sweep.started",
      ...base,
      bench: "demo",
      substrate: "oc",
      ks: [1],
      modes: ["agg", "seq"],
      seed: null,
      tag: "",
      argv: ["demo"],
      config: {},
      identity: {},
      runsRoot: dir,
      domains: [{ domain: "accounting", tasks: ["ledger-1", "ledger-2"] }],
    });
    for (const task of ["ledger-1", "ledger-2"]) {
      writer.emit({
        type: "task.skipped",
        ...base,
        ts: t0 + 1,
        domain: "accounting",
        task,
        k: 1,
        reason: "summary ok and outputs intact",
      });
    }
    writer.close();
    const db = openStore(first.dbPath);
    try {
      const r = sweepRecords(db, sweep);
      expect(r?.sweep.id).toBe(sweep);
      expect(
        r?.cells.map((c) => [c.task, c.mode, c.carried, c.sweepId, c.selection?.chosenLabel]),
      ).toEqual([
        ["ledger-1", "agg", true, first.sweep, "agg1"],
        ["ledger-1", "seq", true, first.sweep, "c1"],
        ["ledger-2", "agg", true, first.sweep, "agg1"],
        ["ledger-2", "seq", true, first.sweep, "c1"],
      ]);
      expect(r?.bases.map((b) => [b.task, b.carried, b.rollouts.map((x) => x.label)])).toEqual([
        ["ledger-1", true, ["base1"]],
        ["ledger-2", true, ["base1"]],
      ]);
      expect(r?.cells[0]?.improver.stages).toBe(0.25);
      expect(r?.cells[0]?.executor).toBe(0.01);
      expect(r?.bases[0]?.executor).toBe(0.01);
      const own = sweepRecords(db, first.sweep);
      expect(own?.cells.every((c) => !c.carried && c.sweepId === first.sweep)).toBe(true);
      expect(sweepRecords(db, "swp_missing")).toBeNull();
    } finally {
      db.close();
    }
  }, 60_000);
});
