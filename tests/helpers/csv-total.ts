// One k=1 parallel sweep of the fixture's data/csv-total on the Codex executor (`--substrate cx`),
// run and checked as the tasks × Codex cell does (tests/e2e/tasks-codex-improvers.test.ts): the
// adopted harness holds the improvers' script and rule, the pick's output is right, the improvers
// saw the Codex trajectory and never the answer key, and judge --bases and report pair base 0 with pick 1.

import { expect } from "bun:test";
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "./cli.ts";
import { allFiles } from "./files.ts";

export const CSV_TOTAL_TASK = "data/csv-total";

/** The script the improvers add to the harness: the signed total of sales.csv, two decimals. */
export const CSV_TOTAL_PY = [
  '"""Prints the signed total of the amount column of sales.csv, two decimals."""',
  "import csv",
  "",
  'with open("sales.csv", newline="") as f:',
  "    print(f\"{sum(float(r['amount']) for r in csv.DictReader(f)):.2f}\")",
  "",
].join("\n");

/** The improvers' final answer after their edit: notes, and the lesson the reflector stores. */
export const CSV_TOTAL_ANSWER = [
  "<notes>",
  "- added scripts/total.py and an AGENTS.md rule: the rollout guessed a total instead of computing it.",
  "</notes>",
  "",
  "<experience>",
  "cue: a task asks for a total of a CSV column",
  "lesson: compute the total with a script instead of estimating it",
  "evidence: the base rollout saved 79.00 without summing sales.csv",
  "confidence: medium",
  "</experience>",
].join("\n");

/**
 * A scratch copy of the fixture tasks with `secret` planted in data/csv-total's answer key, and
 * the Codex solver: it runs scripts/total.py when the harness ships it, else guesses wrong.
 */
export function csvTotalSetup(
  prefix: string,
  secret: string,
): { root: string; solver: ScriptedServer } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(import.meta.dir, "../../fixtures/tasks"), join(root, "tasks"), { recursive: true });
  appendFileSync(join(root, "tasks", CSV_TOTAL_TASK, "tests", "check"), `# ${secret}\n`);
  const solver = startResponsesServer({
    turns: [
      {
        toolCalls: [
          {
            name: "exec_command",
            arguments: {
              cmd: "mkdir -p output; python3 scripts/total.py > output/total.txt 2>/dev/null || echo 79.00 > output/total.txt; cat output/total.txt",
            },
          },
        ],
      },
      { text: "Saved the total to output/total.txt." },
    ],
  });
  return { root, solver };
}

export async function sweepCsvTotalOnCodex(o: {
  root: string;
  env: Record<string, string>;
  /** A marker planted in the answer key: it must reach no model and no evidence. */
  secret: string;
  servers: readonly ScriptedServer[];
}) {
  const { env } = o;
  const SECRET = o.secret;
  const TOTAL_PY = CSV_TOTAL_PY;
  const TASK = CSV_TOTAL_TASK;
  const runs = join(o.root, "runs");
  const tasks = join(o.root, "tasks");
  const r = await runCli(
    [
      "run",
      "--bench",
      "tasks",
      "--substrate",
      "cx",
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

  const taskDir = join(runs, "tasks", "adapt", "tasks-cx-agg1");
  const [slug] = readdirSync(taskDir).filter((n) => n.startsWith("data"));
  const summary = JSON.parse(readFileSync(join(taskDir, slug as string, "summary.json"), "utf8"));
  expect(summary.status).toBe("ok");
  const chosen = summary.selections.agg.chosenLabel as string;
  const adopted = join(taskDir, slug as string, "harnesses", chosen);
  expect(readFileSync(join(adopted, "scripts", "total.py"), "utf8")).toBe(TOTAL_PY);
  expect(readFileSync(join(adopted, "AGENTS.md"), "utf8")).toContain("scripts/total.py");
  const pickDir = summary.selections.agg.chosenRunDir as string;
  expect(readFileSync(join(pickDir, "workspace", "output", "total.txt"), "utf8")).toBe("80.35\n");
  // the Codex rollouts ran with the installed harness and the improvers saw their trajectory
  expect(readFileSync(join(pickDir, "codex.jsonl"), "utf8")).toContain("command_execution");
  const evidence = allFiles(taskDir).filter((p) => /\/(context|selection|reflection)\//.test(p));
  const texts = evidence.map((p) => readFileSync(p, "utf8"));
  expect(texts.some((t) => t.includes("[ACTION] shell: /bin/bash -lc"))).toBe(true);
  expect(texts.some((t) => t.includes("[HARNESS] session usage | turns=1"))).toBe(true);
  for (const [i, t] of texts.entries()) {
    expect(t).not.toContain(SECRET);
    expect(evidence[i]).not.toContain("/tests/");
  }
  for (const req of o.servers.flatMap((s) => s.requests)) {
    expect(JSON.stringify(req.body)).not.toContain(SECRET);
  }

  const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
  if (judged.code !== 0) console.error(judged.stdout, judged.stderr);
  expect(judged.code).toBe(0);
  const rows = (JSON.parse(judged.stdout) as { rows: { kind: string; score: number | null }[] })
    .rows;
  expect(rows.filter((x) => x.kind === "pick").map((x) => x.score)).toEqual([1]);
  const bases = rows.filter((x) => x.kind === "base");
  expect(bases.length).toBeGreaterThan(0);
  for (const b of bases) expect(b.score).toBe(0);

  const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
  expect(report.code).toBe(0);
  const cell = (
    JSON.parse(report.stdout) as {
      summaries: {
        mode: string;
        score: number | null;
        base: { n: number; score: number | null };
        delta: { n: number; mean: number | null };
        spend: { executor: number; improver: number };
      }[];
    }
  ).summaries[0];
  expect(cell?.mode).toBe("agg");
  expect(cell?.score).toBe(1);
  expect(cell?.base).toEqual({ n: 1, score: 0 });
  expect(cell?.delta.n).toBe(1);
  expect(cell?.delta.mean).toBe(1);
  // Codex rollouts priced from the table reached the report's spend.
  expect(cell?.spend.executor).toBeGreaterThan(0);
  return cell;
}
