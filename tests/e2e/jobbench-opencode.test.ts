// One real JobBench sweep (`--bench jb`) over a copy of the fixture checkout, on its task
// accountant/task1 at k=1: the solver is the REAL opencode binary, the improvers the REAL codex
// binary (tests/helpers/scripted.ts), each against its own scripted model server. `setup --from` adopts the copy, the sweep adapts, selects (trivially at
// k=1) and reflects, `judge --bases` runs the fixture's contract fake of the upstream judge over the
// layout it expects, and `report` pairs pick and base. A marker planted in every hidden place —
// RUBRICS.json, the task card, the withheld search references, an old judge report, and answer
// files inside the task folder — reaches no evidence file and no model request.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";
import { JB_FIXTURE } from "../helpers/jobbench.ts";
import { benchSweepEnv, startCodexImprover } from "../helpers/scripted.ts";

const SWEEP_MS = 900_000;
const TASK = "accountant/task1";
const SECRET = "jobbench-answer-key-marker-must-not-leak";
const TOTALS = [
  "vendor,total",
  "Contoso Freight,942.80",
  "Fabrikam Office,96.20",
  "Northwind Supplies,1418.40",
  "GRAND TOTAL,2457.40",
  "",
].join("\n");

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-jb-"));
  const data = join(root, "job-bench-eval");
  cpSync(JB_FIXTURE, data, { recursive: true });
  const task = join(data, "dataset/main", TASK);
  const rubrics = JSON.parse(readFileSync(join(task, "RUBRICS.json"), "utf8"));
  writeFileSync(join(task, "RUBRICS.json"), JSON.stringify({ ...rubrics, note: SECRET }));
  writeFileSync(join(task, "task_card.md"), `# card\n${SECRET}\n`);
  writeFileSync(join(task, "files_required_to_search/vendor_master.txt"), SECRET);
  mkdirSync(join(task, "eval_result/eval_old"), { recursive: true });
  writeFileSync(join(task, "eval_result/eval_old/grok-4-3_judge.json"), `{"note": "${SECRET}"}`);
  mkdirSync(join(task, "task_folder/reference"), { recursive: true });
  writeFileSync(join(task, "task_folder/reference/solution.csv"), SECRET);
  solver = startChatServer({
    model: "solver-model",
    turns: [
      {
        toolCalls: [
          { name: "write", arguments: { filePath: "output/vendor_totals.csv", content: TOTALS } },
        ],
      },
      {
        toolCalls: [
          {
            name: "write",
            arguments: {
              filePath: "output/notes.md",
              content: "Northwind Supplies: credit note NW-1052 (-150.00) nets against March.\n",
            },
          },
        ],
      },
      { text: "Saved output/vendor_totals.csv and output/notes.md." },
    ],
  });
  improver = startCodexImprover({
    file: "guardrails.md",
    content: "- Reconcile the grand total against the ledger before saving it.\n",
    notes: "revised guardrails.md: the totals were written without a reconciliation step.",
    cue: "a ledger has credit notes as negative amounts",
    lesson: "reconcile per-vendor totals and the grand total against the ledger",
    evidence: "the rollout summed vendor_ledger.xlsx once and saved the totals",
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 on JobBench with the real opencode binary", () => {
  test(
    "setup --from, a k=1 sweep, judge --bases through the upstream judge contract, the paired report; nothing hidden leaks",
    async () => {
      const deps = join(root, "deps");
      const runs = join(root, "runs");
      const env = benchSweepEnv({ executor: "oc", solver, improver, deps });
      const setup = await runCli(
        ["setup", "--bench", "jb", "--from", join(root, "job-bench-eval")],
        {
          env,
        },
      );
      expect(setup.code).toBe(0);
      expect(setup.stdout).toContain("4 main and 1 easy tasks");

      const r = await runCli(
        ["run", "--bench", "jb", "--k", "1", "--no-tui", "--runs", runs, "--only-tasks", TASK],
        { env },
      );
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/accountant\/task1 k=1: ok/);
      expect(r.stdout).toContain("R=4/4 P=3/3");

      // the rollouts ran in clean copies of the task folder and delivered the totals
      const store = join(runs, "jb/dataset/main/accountant/task1");
      const base = join(store, "rollouts/jb-oc-agg1/base1/workspace");
      expect(readFileSync(join(base, "output/vendor_totals.csv"), "utf8")).toBe(TOTALS);
      // a lesson in the profession's library
      const lessons = allFiles(join(runs, "jb", "library")).filter((p) =>
        p.endsWith("EXPERIENCE.md"),
      );
      expect(lessons.length).toBe(1);
      expect(lessons[0]).toContain("/accountant/");

      // nothing hidden reached an evidence folder, a rollout workspace or any model request
      const written = allFiles(join(runs, "jb")).filter((p) => !p.endsWith(".db"));
      expect(written.some((p) => /\/(context|selection|reflection)\//.test(p))).toBe(true);
      for (const p of written) {
        expect(p).not.toContain("RUBRICS.json");
        expect(p).not.toContain("task_card.md");
        expect(p).not.toContain("files_required_to_search");
        expect(readFileSync(p, "latin1")).not.toContain(SECRET);
      }
      for (const req of [...improver.requests, ...solver.requests]) {
        expect(JSON.stringify(req.body)).not.toContain(SECRET);
      }
      // the improver's evidence holds the deliverable's files as text, and the clean inputs
      const context = written.filter((p) => p.includes("/context/"));
      expect(context.some((p) => readFileSync(p, "utf8").includes("credit note NW-1052"))).toBe(
        true,
      );
      expect(context.some((p) => p.endsWith("/source/vendor_ledger.xlsx"))).toBe(true);

      const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
      if (judged.code !== 0) console.error(judged.stdout, judged.stderr);
      expect(judged.code).toBe(0);
      const rows = (
        JSON.parse(judged.stdout) as {
          rows: { kind: string; task: string; graded: boolean; score: number }[];
        }
      ).rows;
      expect(rows.filter((x) => x.kind === "pick").map((x) => [x.task, x.graded, x.score])).toEqual(
        [[TASK, true, 1]],
      );
      const bases = rows.filter((x) => x.kind === "base");
      expect(bases.map((x) => [x.graded, x.score])).toEqual([[true, 1]]);
      // the judge got the upstream layout under runs/jb/judging, never the dataset itself
      const judging = allFiles(join(runs, "jb/judging/main/accountant/task1"));
      expect(judging.some((p) => p.endsWith("grok-4-3_judge.json"))).toBe(true);
      expect(
        allFiles(join(root, "job-bench-eval/dataset/main", TASK)).some((p) =>
          p.includes("model_output"),
        ),
      ).toBe(false);

      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
      const cell = (
        JSON.parse(report.stdout) as {
          summaries: {
            mode: string;
            score: number;
            base: unknown;
            delta: { n: number; mean: number };
          }[];
        }
      ).summaries[0];
      expect(cell?.mode).toBe("agg");
      expect(cell?.score).toBe(1);
      expect(cell?.base).toEqual({ n: 1, score: 1 });
      expect(cell?.delta.n).toBe(1);
      expect(cell?.delta.mean).toBe(0);

      // again: the finished task is skipped, its rollouts reused
      const again = await runCli(
        ["run", "--bench", "jb", "--k", "1", "--no-tui", "--runs", runs, "--only-tasks", TASK],
        { env },
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("1 skipped");
    },
    SWEEP_MS,
  );
});
