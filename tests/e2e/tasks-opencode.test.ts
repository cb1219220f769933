// One real sweep of the `tasks` benchmark over a copy of fixtures/tasks, run on its one task
// data/csv-total (--only-tasks; the fixture's second task would double the sessions): solver and
// improver are both the REAL opencode binary, each against its own scripted model server. The
// improver's scripted tool call edits a harness file, the solver's scripted turns write output/,
// selection (k=1), reflection and the library run, `harness2 judge --bases` scores the pick and the
// base runs through the fixture's tests/check, the report pairs them, the rollouts' step costs
// reach the ledger, and no evidence folder ever holds anything from tests/. About 8 OpenCode
// sessions: slow, so this is the one such sweep in the suite.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";
import { stepCost } from "../helpers/opencode.ts";

const SWEEP_MS = 900_000;
const FIXTURE_TASKS = join(import.meta.dir, "../../fixtures/tasks");
const TASK = "data/csv-total";
/** The fixture's expected total (tests/expected.txt); the scripted solver writes exactly this. */
const TOTAL = "80.35";
/** Planted in the copied answer key only: it must never reach an evidence folder or a session. */
const SECRET = "answer-key-marker-must-not-leak";

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-tasks-"));
  cpSync(FIXTURE_TASKS, join(root, "tasks"), { recursive: true });
  // A comment line in the copied check: the check still passes, and the marker is in tests/.
  appendFileSync(join(root, "tasks", TASK, "tests", "check"), `# ${SECRET}\n`);
  solver = startChatServer({
    model: "solver-model",
    turns: [
      {
        toolCalls: [
          { name: "write", arguments: { filePath: "output/total.txt", content: `${TOTAL}\n` } },
        ],
      },
      { text: "Saved the total to output/total.txt." },
    ],
  });
  improver = startChatServer({
    model: "improver-model",
    turns: [
      {
        toolCalls: [
          {
            name: "write",
            arguments: {
              filePath: "context/harness/guardrails.md",
              content: "- Re-add the numbers once more before saving the total.\n",
            },
          },
        ],
      },
      {
        text: [
          "<notes>",
          "- revised guardrails.md: the rollout saved a total without checking it; add a re-check.",
          "</notes>",
          "",
          "<experience>",
          "cue: a task asks for a total of numbers in an input file",
          "lesson: re-add the numbers before saving the total",
          "evidence: the rollout wrote its total after a single pass over sales.csv",
          "confidence: medium",
          "</experience>",
        ].join("\n"),
      },
    ],
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 run --bench tasks with the real opencode binary", () => {
  test(
    "adapts, selects, reflects, stores a lesson; the pick and the base judge 1.0 through tests/check, paired; the rollouts' cost is in the ledger",
    async () => {
      const config = {
        autoupdate: false,
        share: "disabled",
        provider: {
          ...(opencodeProviderConfig(solver.url, {
            providerId: "solver",
            model: "solver-model",
            cost: { input: 1, output: 2 },
          }).provider as object),
          ...(opencodeProviderConfig(improver.url, {
            providerId: "improver",
            model: "improver-model",
            cost: { input: 1, output: 2 },
          }).provider as object),
        },
      };
      const env = {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        HARNESS2_SOLVER_MODEL: "solver/solver-model",
        HARNESS2_IMPROVER_MODEL: "improver/improver-model",
        HARNESS2_ROLLOUT_TIMEOUT: "300",
        HARNESS2_PROPOSER_TIMEOUT: "300",
        HARNESS2_BACKOFF_S: "0",
      };
      const runs = join(root, "runs");
      const tasks = join(root, "tasks");
      const r = await runCli(
        [
          "run",
          "--bench",
          "tasks",
          "--tasks",
          tasks,
          "--k",
          "1",
          "--mode",
          "parallel",
          "--no-tui",
          "--runs",
          runs,
          "--only-tasks",
          TASK,
        ],
        { env },
      );
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/data\/csv-total k=1: ok/);
      expect(r.stdout).toContain("R=4/4 P=3/3");

      // the improver's scripted edit reached the adopted harness
      const taskDir = join(runs, "tasks", "adapt", "tasks-oc-agg1");
      const [slug] = readdirSync(taskDir).filter((n) => n.startsWith("data"));
      const summary = JSON.parse(
        readFileSync(join(taskDir, slug as string, "summary.json"), "utf8"),
      );
      expect(summary.status).toBe("ok");
      const chosen = summary.selections.agg.chosenLabel as string;
      const adopted = readFileSync(
        join(taskDir, slug as string, "harnesses", chosen, "guardrails.md"),
        "utf8",
      );
      expect(adopted).toContain("Re-add the numbers");
      // the solver's scripted turns delivered the answer in the chosen rollout
      expect(
        readFileSync(
          join(summary.selections.agg.chosenRunDir, "workspace", "output", "total.txt"),
          "utf8",
        ),
      ).toBe(`${TOTAL}\n`);
      // reflection stored a lesson in the domain library
      const lessons = allFiles(join(runs, "tasks", "library")).filter((p) =>
        p.endsWith("EXPERIENCE.md"),
      );
      expect(lessons.length).toBe(1);
      expect(readFileSync(lessons[0] as string, "utf8")).toContain("re-add the numbers");
      // the answer key never reached any evidence folder, nor any improver session
      const evidence = allFiles(taskDir).filter((p) =>
        /\/(context|selection|reflection)\//.test(p),
      );
      expect(evidence.length).toBeGreaterThan(0);
      for (const p of evidence) {
        expect(p).not.toContain("expected.txt");
        expect(p).not.toContain("/tests/");
        expect(readFileSync(p, "utf8")).not.toContain(SECRET);
      }
      for (const req of [...improver.requests, ...solver.requests]) {
        expect(JSON.stringify(req.body)).not.toContain(SECRET);
      }

      // the judge scores the pick and the base runs through the fixture's tests/check
      // the sweep recorded its task folder, so the judge needs no --tasks
      const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
      if (judged.code !== 0) console.error(judged.stdout, judged.stderr);
      expect(judged.code).toBe(0);
      const verdicts = JSON.parse(judged.stdout) as {
        rows: {
          kind: string;
          task: string;
          graded: boolean;
          score: number | null;
          passed: number | null;
          total: number | null;
          label: string;
        }[];
      };
      const pick = verdicts.rows.filter((row) => row.kind === "pick");
      expect(pick.map((row) => [row.task, row.label, row.graded, row.score])).toEqual([
        [TASK, chosen, true, 1],
      ]);
      expect(pick[0]?.passed).toBe(1);
      expect(pick[0]?.total).toBe(1);
      const bases = verdicts.rows.filter((row) => row.kind === "base");
      expect(bases.length).toBeGreaterThan(0);
      for (const b of bases) expect([b.graded, b.score]).toEqual([true, 1]);

      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
      const rep = JSON.parse(report.stdout) as {
        summaries: {
          mode: string;
          k: number;
          n: number;
          unjudged: number;
          score: number | null;
          base: { n: number; score: number | null };
          delta: { n: number; mean: number | null; perTask: unknown[]; spread: unknown };
          spend: { executor: number; improver: number };
        }[];
      };
      expect(rep.summaries.length).toBe(1);
      const cell = rep.summaries[0];
      expect(cell?.mode).toBe("agg");
      expect(cell?.k).toBe(1);
      expect(cell?.n).toBe(1);
      expect(cell?.unjudged).toBe(0);
      expect(cell?.score).toBe(1);
      // the paired delta: the pick against the base harness on the same task, both judged 1.0
      expect(cell?.base).toEqual({ n: 1, score: 1 });
      expect(cell?.delta).toEqual({
        n: 1,
        mean: 0,
        perTask: [{ task: TASK, score: 1, base: 1, delta: 0 }],
        // one paired task: no interval, never a made-up one
        spread: { n: 1, sd: null, t: null, halfWidth: null, low: null, high: null },
      });

      // the rollouts' cost (two priced solver steps each, from the scripted usage) reached the
      // ledger, the rollouts and the report; the improver's sessions cost too
      const solverSession = 2 * stepCost(100, 20);
      const db = new Database(join(runs, "harness2.db"), { readonly: true });
      try {
        const ledger = db
          .query(
            "SELECT label, usd, cached FROM ledger_entries WHERE kind = 'rollout' ORDER BY seq",
          )
          .all() as { label: string; usd: number; cached: number }[];
        // base1, the two stage candidates and the final: none reused, each paid its two steps
        expect(ledger.length).toBe(4);
        for (const e of ledger) {
          expect(e.cached).toBe(0);
          expect(e.usd).toBeCloseTo(solverSession, 9);
        }
        const rollouts = db.query("SELECT usd FROM rollouts").all() as { usd: number }[];
        expect(rollouts.length).toBe(4);
        for (const x of rollouts) expect(x.usd).toBeCloseTo(solverSession, 9);
        const sessions = db
          .query("SELECT SUM(usd) AS usd FROM ledger_entries WHERE kind = 'session'")
          .get() as { usd: number };
        expect(sessions.usd).toBeGreaterThan(0);
        expect(cell?.spend.executor).toBeGreaterThan(0);
        expect(cell?.spend.improver).toBeGreaterThan(0);
      } finally {
        db.close();
      }
    },
    SWEEP_MS,
  );
});
