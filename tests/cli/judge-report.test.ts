// `harness2 judge` and `harness2 report` from outside, on stores recorded like the method records a
// sweep, whose run dirs are real demo executions (base harness → 0, fixed harness → 1).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCommandArgs } from "../../src/cli/command.ts";
import reportCommand from "../../src/cli/commands/report.ts";
import type { Report } from "../../src/core/report/types.ts";
import { SCORE_COLUMNS } from "../../src/judge/report-render.ts";
import { openStore } from "../../store/db.ts";
import { StoreWriter } from "../../store/writer.ts";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { type DemoSweep, recordDemoSweep } from "../judge/demo-sweep.ts";

/** Real python executions and several CLI processes per test: a generous limit, not a timing check. */
const SLOW = 60_000;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-judge-cli-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (s: Pick<DemoSweep, "runsDir">, ...args: string[]): Promise<CliResult> =>
  runCli(args, { env: { HARNESS2_RUNS_DIR: s.runsDir, HARNESS2_DB: undefined } });

function judgments(s: DemoSweep): Record<string, unknown>[] {
  const db = openStore(s.dbPath);
  try {
    return db
      .query(
        "SELECT subject, label, graded, score, reason, judge, at FROM judgments ORDER BY subject",
      )
      .all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const reportJson = async (s: DemoSweep, ...args: string[]): Promise<Report> => {
  const r = await cli(s, "report", "--json", ...args);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Report;
};

describe("a demo sweep judged (k=2, both modes)", () => {
  let s: DemoSweep;
  beforeAll(async () => {
    s = await recordDemoSweep({ runsDir: join(root, "clean"), k: 2 });
  }, SLOW);

  test(
    "every chosen run scores 1.0 and every base 0.0; exit 0",
    async () => {
      const r = await cli(s, "judge", "--bases");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`judging sweep ${s.sweep} (demo/oc)`);
      // No explanation of "ungraded" when there is none to explain.
      expect(r.stdout).toContain(
        "4 pick(s) and 4 base run(s): 8 graded, 0 ungraded, 0 already graded (kept)\n",
      );
      const rows = judgments(s);
      expect(rows).toHaveLength(8);
      for (const row of rows) {
        const base = String(row.label).startsWith("base");
        expect(row).toMatchObject({ graded: 1, score: base ? 0 : 1, reason: "" });
        expect(row.judge).toBe('{"scorer":"demo-ledger-total","version":"1"}');
      }
      // --json gives the judge's identity as an object, not JSON text inside JSON.
      const again = JSON.parse((await cli(s, "judge", "--json")).stdout);
      expect(again.judge).toEqual({ scorer: "demo-ledger-total", version: "1" });
      expect(again.rows[0]?.judge ?? again.judge).toEqual({
        scorer: "demo-ledger-total",
        version: "1",
      });
    },
    SLOW,
  );

  test(
    "the report shows a delta of +1.0 per mode, paired on both tasks",
    async () => {
      const report = await reportJson(s);
      expect(report.sweeps).toEqual([s.sweep]);
      expect(report.summaries.map((x) => x.name)).toEqual(["parallel k=2", "sequential k=2"]);
      for (const m of report.summaries) {
        expect(m).toMatchObject({ tasks: 2, n: 2, ungraded: 0, unjudged: 0, score: 1, allPass: 1 });
        expect(m.base).toEqual({ n: 2, score: 0 });
        expect(m.delta.mean).toBe(1);
        expect(m.delta.spread).toEqual({ n: 2, sd: 0, t: 12.706, halfWidth: 0, low: 1, high: 1 });
        expect(m.delta.perTask.map((d) => [d.task, d.delta])).toEqual([
          ["ledger-1", 1],
          ["ledger-2", 1],
        ]);
        expect(m.picks).toMatchObject({ selector: 2, final: 2, fallback: 0, failed: 0 });
        expect(m.spend.stages).toBe(0.5);
        expect(m.spend.executor).toBe(0.04);
      }
      expect(report.bases).toEqual([
        {
          k: 2,
          tasks: 2,
          graded: 4,
          ungraded: 0,
          unjudged: 0,
          score: 0,
          // Both tasks' bases score 0: sd 0, a zero-width interval at 0.
          spread: { n: 2, sd: 0, t: 12.706, halfWidth: 0, low: 0, high: 0 },
          executor: 0.04,
        },
      ]);
      expect(report.comparisons).toEqual([
        {
          kind: "modes",
          label: "sequential − parallel at k=2",
          a: "sequential k=2",
          b: "parallel k=2",
          n: 2,
          mean: 0,
          spread: { n: 2, sd: 0, t: 12.706, halfWidth: 0, low: 0, high: 0 },
        },
      ]);
      expect(report.warnings).toEqual([]);
    },
    SLOW,
  );

  test(
    "the report's text table has the JSON's numbers",
    async () => {
      const report = await reportJson(s);
      const text = await cli(s, "report");
      expect(text.code).toBe(0);
      // It ends with how to take the adopted harness home (the markdown, for notes, does not).
      expect(text.stdout).toMatch(
        /Take the adopted harness home: \S+ harness export \.\/adapted-harness --domain accounting\n$/,
      );
      const lines = text.stdout.split("\n");
      const head = lines.findIndex((l) => l.startsWith("mode ") && l.includes("score"));
      expect(lines[head]?.trim().split(/\s+/)).toEqual([...SCORE_COLUMNS]);
      const rows = report.summaries.map((_, i) => (lines[head + 1 + i] ?? "").trim().split(/\s+/));
      report.summaries.forEach((m, i) => {
        const r = rows[i] as string[];
        expect(r.slice(1).map(Number)).toEqual([
          m.k,
          m.tasks,
          m.n,
          m.score as number,
          m.allPass as number,
          m.base.score as number,
          m.delta.mean as number,
          m.delta.n,
          m.ungraded,
          m.unjudged,
          m.unfinished,
        ]);
      });
      expect(text.stdout).toContain("Δ vs base harness");
      expect(text.stdout).toContain("+1.000");
      expect(text.stdout).not.toContain("\x1b[");
    },
    SLOW,
  );

  test(
    "a second judge pass changes nothing",
    async () => {
      const before = judgments(s);
      const r = await cli(s, "judge", "--bases");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("0 graded, 0 ungraded");
      expect(r.stdout).toContain("8 already graded (kept)");
      expect(judgments(s)).toEqual(before);
    },
    SLOW,
  );

  test(
    "--markdown prints the same table for notes",
    async () => {
      const r = await cli(s, "report", "--markdown");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("## demo-oc k=2 modes=parallel,sequential");
      expect(r.stdout).toContain(
        "| parallel | 2 | 2 | 2 | 1.000 | 1.000 | 0.000 | +1.000 | 2 | 0 | 0 | 0 |",
      );
      expect(r.stdout).toContain("| ledger-1 | +1.000 | +1.000 |");
      expect(r.stdout).not.toContain("Take the adopted harness home");
    },
    SLOW,
  );

  test(
    "in a terminal the report is the Ink view with bar charts",
    async () => {
      let out = "";
      const code = await reportCommand.run(parseCommandArgs(reportCommand, []), {
        stdout: (t) => {
          out += t;
        },
        stderr: () => {},
        isTTY: true,
        env: { HARNESS2_RUNS_DIR: s.runsDir, NO_COLOR: "1" },
        cwd: root,
      });
      expect(code).toBe(0);
      expect(out).toContain("score (0 … 1)");
      expect(out).toContain("█".repeat(10));
      expect(out).toContain("+1.000");
      expect(out).not.toContain("\x1b[");
    },
    SLOW,
  );
});

describe("ungraded rows: a fallback selection and a throwing scorer", () => {
  let s: DemoSweep;
  beforeAll(async () => {
    s = await recordDemoSweep({
      runsDir: join(root, "faults"),
      k: 1,
      faults: { "ledger-1:seq": "fallback" },
      breakAnswer: ["ledger-2:agg"],
    });
  }, SLOW);

  test(
    "judge records both ungraded with their reasons and exits 2",
    async () => {
      const r = await cli(s, "judge", "--bases");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("2 row(s) ungraded");
      expect(r.stdout).toContain(
        "4 pick(s) and 2 base run(s): 4 graded, 2 ungraded, 0 already graded (kept) (2 ungraded: no pick to judge or the check failed; never counted as 0)\n",
      );
      expect(r.stdout).toContain(
        "ledger-1 sequential k=1 c1: ungraded — selection fell back (no choice block); a fallback pick is never judged",
      );
      expect(r.stdout).toMatch(/ledger-2 parallel k=1 agg1: ungraded — judge error: .*EISDIR/);
      const rows = judgments(s);
      const fallback = rows.find((x) => x.subject === `${s.sweep}:ledger-1:seq:1`);
      expect(fallback).toMatchObject({ graded: 0, score: null, label: "c1" });
      const broken = rows.find((x) => x.subject === "demo-oc-agg1/ledger-2/agg1");
      expect(broken).toMatchObject({ graded: 0, score: null });
    },
    SLOW,
  );

  test(
    "the report keeps them out of the mean and says why",
    async () => {
      const report = await reportJson(s);
      const [agg, seq] = report.summaries;
      expect(agg).toMatchObject({ tasks: 2, n: 1, ungraded: 1, score: 1 });
      expect(agg?.delta).toMatchObject({ n: 1, mean: 1 });
      expect(seq).toMatchObject({ tasks: 2, n: 1, ungraded: 1, score: 1 });
      expect(seq?.picks).toMatchObject({ trivial: 1, fallback: 1 });
      const w = report.warnings.join("\n");
      expect(w).toContain("parallel k=1: 1 pick(s) are ungraded because the judge failed");
      expect(w).toContain("sequential k=1: selection fell back on 1 and failed on 0 of 2 task(s)");
      expect(report.notes[0]).toContain("gap of 0.000 is a noise floor");
    },
    SLOW,
  );

  test(
    "judging again still exits 2 while a row stays ungraded",
    async () => {
      const r = await cli(s, "judge");
      expect(r.code).toBe(2);
      expect(r.stdout).toContain("0 graded, 2 ungraded");
      expect(r.stdout).toContain("2 already graded (kept)");
    },
    SLOW,
  );
});

describe("refusals, handles and exit codes", () => {
  let k1: DemoSweep;
  let k2: DemoSweep;
  beforeAll(async () => {
    const runsDir = join(root, "handles");
    k1 = await recordDemoSweep({ runsDir, k: 1, t0: Date.UTC(2026, 10, 29, 8) });
    k2 = await recordDemoSweep({ runsDir, k: 2, t0: Date.UTC(2026, 10, 29, 9) });
  }, SLOW);

  test(
    "the sweep's flags and a unique prefix name sweeps; several RUNs go in one table",
    async () => {
      const byFlags = await cli(k1, "judge", "--bases", "--bench", "demo", "--k", "1");
      expect(byFlags.code).toBe(0);
      expect(byFlags.stdout).toContain(`judging sweep ${k1.sweep}`);
      const prefix = k2.sweep.slice(0, k2.sweep.length - 3);
      const byPrefix = await cli(k2, "judge", "--bases", prefix);
      expect(byPrefix.code).toBe(0);
      expect(byPrefix.stdout).toContain(`judging sweep ${k2.sweep}`);

      const both = await reportJson(k1, k1.sweep, k2.sweep);
      expect(both.summaries.map((m) => m.name)).toEqual([
        "parallel k=1",
        "sequential k=1",
        "parallel k=2",
        "sequential k=2",
      ]);
      expect(both.summaries.map((m) => m.delta.mean)).toEqual([1, 1, 1, 1]);
      expect(both.comparisons.filter((c) => c.kind === "k").map((c) => [c.label, c.mean])).toEqual([
        ["parallel k=2 − k=1", 0],
        ["sequential k=2 − k=1", 0],
      ]);
      expect(both.notes[0]).toContain("k=1: parallel and sequential are the same procedure");
      const byCell = await reportJson(k1, "--bench", "demo", "--k", "1,2");
      expect(byCell.sweeps).toEqual([k1.sweep, k2.sweep]);
      expect(byCell.summaries).toEqual(both.summaries);
      const last = await reportJson(k1, "--modes", "sequential");
      expect(last.sweeps).toEqual([k2.sweep]);
      expect(last.summaries.map((m) => m.name)).toEqual(["sequential k=2"]);
    },
    SLOW,
  );

  test(
    "a changed judge is refused with the difference printed, exit 1, nothing recorded",
    async () => {
      const writer = StoreWriter.open(k1.dbPath);
      writer.emit({
        type: "judgment.recorded",
        ts: Date.UTC(2026, 10, 29, 10),
        sweep: k1.sweep,
        domain: "accounting",
        task: "ledger-1",
        mode: "agg",
        k: 1,
        label: "agg1",
        runId: "demo-oc-agg1/ledger-1/agg1-elsewhere",
        graded: true,
        score: 1,
        passed: 1,
        total: 1,
        reason: "",
        judge: '{"scorer":"demo-ledger-total","version":"0"}',
      });
      writer.close();
      const before = judgments(k1);
      const r = await cli(k1, "judge", k1.sweep);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('version: was "0", now "1"');
      expect(r.stderr).toContain("new runs directory");
      expect(judgments(k1)).toEqual(before);
    },
    SLOW,
  );

  test(
    "unknown handles, mixed naming and missing stores are one-line errors",
    async () => {
      const unknown = await cli(k1, "report", "swp_nope");
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("no sweep 'swp_nope'");
      const mixed = await cli(k1, "judge", "last", "--bench", "demo");
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toContain("either by RUN or by its flags");
      const noMatch = await cli(k1, "report", "--bench", "lab");
      expect(noMatch.code).toBe(1);
      expect(noMatch.stderr).toContain("no sweep matches --bench lab");
      const empty = await cli({ runsDir: join(root, "empty") }, "judge");
      expect(empty.code).toBe(1);
      expect(empty.stderr).toContain("no harness2 store");
      const badParallel = await cli(k1, "judge", "--parallel", "0");
      expect(badParallel.code).toBe(2);
    },
    SLOW,
  );
});

describe("a sweep whose modes never finished", () => {
  test(
    "judge has nothing to judge (exit 1); report counts the tasks as unfinished",
    async () => {
      const s = await recordDemoSweep({
        runsDir: join(root, "unfinished"),
        k: 1,
        modes: ["agg"],
        unfinished: ["ledger-1:agg", "ledger-2:agg"],
      });
      const r = await cli(s, "judge");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("nothing to judge");
      const report = await reportJson(s);
      expect(report.summaries[0]).toMatchObject({ tasks: 2, unfinished: 2, n: 0, score: null });
    },
    SLOW,
  );
});
