// One real WorkBuddy sweep on the Codex executor (code subset, `--substrate cx`), k=1: the
// improvers are the REAL codex binary against their own Responses server; the rollouts are trials
// of jobs of harness2's own Codex agent, run by the contract fake of the checkout's runner. The code
// subset shows the improver the names of what a rollout changed, never the change itself.

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
const TASK = "fix-median";

let root: string;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-wb-cx-"));
  improver = startCodexImprover({
    file: "AGENTS.md",
    content:
      "Follow the request exactly. Before you finish, reopen every file you changed and run the tests, including even-length and empty inputs.\n",
    notes: "rewrote AGENTS.md: the change was never rechecked against its edge cases.",
    cue: "a small fix to a statistics helper",
    lesson: "reopen the change and test the even-length case",
    evidence: "the rollout sorted the input and stopped",
  });
});

afterAll(async () => {
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 on WorkBuddy (code) on the Codex executor", () => {
  test(
    "check, a k=1 sweep of Codex-agent jobs, judge --bases and the report; the improver sees names only",
    async () => {
      const runs = join(root, "runs");
      const env = wbSweepEnv(root, improver, {
        HARNESS2_CODEX_CONTAINER_URL: "http://host.docker.internal:4010/v1",
        HARNESS2_CODEX_API_KEY: "cx-key",
        HARNESS2_CODEX_MODEL: "mock-model",
      });
      const checkout = wbCheckout(root);
      expect((await runCli(["setup", "--bench", "wb", "--from", checkout], { env })).code).toBe(0);
      const check = await runCli(
        ["check", "--bench", "wb", "--subset", "code", "--substrate", "cx"],
        { env },
      );
      if (check.code !== 0) console.error(check.stdout, check.stderr);
      expect(check.code).toBe(0);

      const args = ["--bench", "wb", "--subset", "code", "--substrate", "cx", "--k", "1"];
      const r = await runCli(["run", ...args, "--no-tui", "--runs", runs], { env });
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/fix-median k=1: ok/);

      const store = join(runs, "wb-code/tasks", TASK, "rollouts/wb-code-cx-agg1");
      const verdict = (label: string) =>
        JSON.parse(readFileSync(join(store, label, "verifier/score.json"), "utf8"));
      expect(verdict("base1")).toMatchObject({ tests_passed: 2, tests_total: 4 });
      expect(verdict("agg1")).toMatchObject({ tests_passed: 4, tests_total: 4 });

      // The improvers were shown what changed by name; the change itself stayed out of their view.
      const context = allFiles(join(runs, "wb-code/adapt")).filter((p) => p.includes("/context/"));
      expect(context.length).toBeGreaterThan(0);
      expect(context.some((p) => readFileSync(p, "utf8").includes("agent.patch: stats.py"))).toBe(
        true,
      );
      for (const p of context) {
        const text = readFileSync(p, "latin1");
        expect(text).not.toContain("s = sorted(xs)");
        expect(text).not.toContain("LEAK-MARKER");
      }

      const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
      expect(judged.code).toBe(0);
      const rows = (
        JSON.parse(judged.stdout) as { rows: { kind: string; graded: boolean; score: number }[] }
      ).rows;
      expect(rows.map((x) => [x.kind, x.graded, x.score]).sort()).toEqual([
        ["base", true, 0.5],
        ["pick", true, 1],
      ]);
      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
      const cell = (
        JSON.parse(report.stdout) as { summaries: { delta: { n: number; mean: number } }[] }
      ).summaries[0];
      expect(cell?.delta).toMatchObject({ n: 1, mean: 0.5 });
    },
    SWEEP_MS,
  );
});
