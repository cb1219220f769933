// One real WorkBuddy sweep (office, `--substrate oc`), k=1: the improvers are the REAL codex
// binary against their own Responses server; the rollouts are trials of jobs the contract fake of
// the checkout's runner resolves and hands to its Harbor stand-in (fixtures/benchmarks/workbuddy/
// README.md), where harness2's own OpenCode agent, installed by setup, runs in a container whose
// scripted agent only reopens its outputs when its harness says so. Then judge (the verifiers'
// score files) and the paired report. Markers planted in the verifier's output, tests/ and
// environment/ never reach anything an improver was given.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";
import { startCodexImprover } from "../helpers/scripted.ts";
import { wbCheckout, wbSweepEnv } from "../helpers/workbuddy.ts";

const SWEEP_MS = 900_000;
const TASK = "q3-expense-totals";
const MARKERS = ["LEAK-MARKER-VERIFIER", "LEAK-MARKER-TESTS"];

let root: string;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-wb-"));
  improver = startCodexImprover({
    file: "systemprompt.md",
    content:
      "Before you finish, reopen every output file with an independent reader and reconcile its totals with the inputs.\n",
    notes:
      "rewrote systemprompt.md: the outputs were never reopened, so a short range went unseen.",
    cue: "a summary workbook built from an expenses sheet",
    lesson: "reopen the workbook and reconcile the grand total with the inputs",
    evidence: "the rollout wrote summary.xlsx once and stopped",
  });
});

afterAll(async () => {
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 on WorkBuddy (office) through Harbor jobs", () => {
  test(
    "setup --from, check, a k=1 sweep of jobs, judge --bases, the paired report; nothing hidden leaks",
    async () => {
      const runs = join(root, "runs");
      const checkout = wbCheckout(root);
      const env = wbSweepEnv(root, improver);
      const setup = await runCli(["setup", "--bench", "wb", "--from", checkout], { env });
      expect(setup.code).toBe(0);
      expect(setup.stdout).toContain("1 office, 1 web and 1 code tasks");
      expect(setup.stdout).toContain("Tencent's own licence");
      expect(setup.stdout).toContain("harness2's agents installed");

      const check = await runCli(["check", "--bench", "wb", "--subset", "office"], { env });
      if (check.code !== 0) console.error(check.stdout, check.stderr);
      expect(check.code).toBe(0);
      expect(check.stdout).toContain("Docker: engine 27.0.0-fake");

      const r = await runCli(
        ["run", "--bench", "wb", "--subset", "office", "--k", "1", "--no-tui", "--runs", runs],
        { env },
      );
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/q3-expense-totals k=1: ok/);
      expect(r.stdout).toContain("R=4/4 P=3/3");

      // Four rollouts, four jobs: the base (its k attempts in one job), inv1, dom1, agg1; each
      // reached Harbor as the runner rendered it, with harness2's OpenCode agent.
      const jobsDir = join(runs, "wb-office/jobs");
      const runConfigs = () =>
        allFiles(jobsDir).filter((p) => /\/jobs\/[^/]+\/[^/]+\/config\.json$/.test(p));
      const configs = runConfigs();
      expect(configs).toHaveLength(4);
      const agents = configs.map(
        (p) =>
          (
            JSON.parse(readFileSync(p, "utf8")) as {
              agents: { import_path: string; kwargs: Record<string, unknown> }[];
            }
          ).agents[0],
      );
      expect(new Set(agents.map((a) => a?.import_path))).toEqual(
        new Set(["harness2_wb.opencode_agent:Harness2OpenCodeAgent"]),
      );
      expect(agents.filter((a) => a?.kwargs.harness_workspace !== undefined)).toHaveLength(3);
      const store = join(runs, "wb-office/tasks", TASK, "rollouts/wb-office-oc-agg1");
      const agg = JSON.parse(readFileSync(join(store, "agg1/verifier/score.json"), "utf8"));
      const base = JSON.parse(readFileSync(join(store, "base1/verifier/score.json"), "utf8"));
      expect(agg.reward).toBe(1);
      expect(base.reward).toBeLessThan(1);

      // Evidence: the workbook's formulas and cached values reached the improvers; the verdict did not.
      const audit = allFiles(join(runs, "wb-office/adapt")).filter((p) => !p.endsWith(".db"));
      const context = audit.filter((p) => p.includes("/context/"));
      expect(context.some((p) => readFileSync(p, "utf8").includes("=SUM(B2:B4) → "))).toBe(true);
      for (const p of audit) {
        for (const m of MARKERS) expect(readFileSync(p, "latin1")).not.toContain(m);
        expect(p).not.toMatch(/\/(tests|environment|verifier)\//);
      }
      for (const req of improver.requests) {
        for (const m of MARKERS) expect(JSON.stringify(req.body)).not.toContain(m);
        expect(JSON.stringify(req.body)).not.toContain("score.json");
      }

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
      expect(bases.map((x) => x.graded)).toEqual([true]);
      expect(bases[0]?.score).toBeLessThan(1);

      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
      const cell = (
        JSON.parse(report.stdout) as {
          summaries: { mode: string; score: number; delta: { n: number; mean: number } }[];
        }
      ).summaries[0];
      expect(cell?.score).toBe(1);
      expect(cell?.delta.n).toBe(1);
      expect(cell?.delta.mean).toBeGreaterThan(0);

      // Again: the finished task is skipped; no new job runs.
      const again = await runCli(
        ["run", "--bench", "wb", "--subset", "office", "--k", "1", "--no-tui", "--runs", runs],
        { env },
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("1 skipped");
      expect(runConfigs()).toHaveLength(4);
    },
    SWEEP_MS,
  );
});
