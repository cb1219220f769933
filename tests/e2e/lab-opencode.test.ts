// One real LAB sweep (`--bench lab`) over a copy of the fixture checkout, on its task
// employment/severance-memo at k=1, the solver the REAL opencode binary and the improvers the REAL
// codex binary (tests/helpers/scripted.ts), each against its own scripted model server.
// Under the base harness the scripted agent first stops without writing anything, so the base
// rollout gets one follow-up in the same session (under the improvers' rule it writes at once); it
// then reads the agreement with the provided scripts/read_doc.py (a real
// bash call in the workspace) and writes the memo. Checked: the workspace_config install (the tool
// gate, read_doc.py, the runtime's note last, read-only documents, no task.json), metrics.json,
// `judge --bases` through the contract fake of LAB's evaluation, the paired report, and that a
// marker planted in the task's criteria reaches no file and no model request.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";
import { benchSweepEnv, startCodexImprover } from "../helpers/scripted.ts";

const SWEEP_MS = 900_000;
const TASK = "employment/severance-memo";
const SECRET = "lab-criteria-marker-must-not-leak";
/** The improvers' rule; a harness holding it makes the scripted agent write at once. */
const RULE = "Write every requested file under output/ before summarising anything.";
const MEMO =
  "Severance: nine months of the USD 240,000 base salary, USD 180,000, owed once a general release is signed within 21 days.\n";

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-lab-"));
  const data = join(root, "harvey-labs");
  cpSync(join(import.meta.dir, "../../fixtures/benchmarks/lab"), data, { recursive: true });
  const tj = join(data, "tasks", TASK, "task.json");
  const task = JSON.parse(readFileSync(tj, "utf8"));
  task.criteria[0].description += ` ${SECRET}`;
  writeFileSync(tj, JSON.stringify(task, null, 2));
  // Under the base harness the agent stops before writing and needs a follow-up; under the
  // improvers' rule (it reaches the model in the harness) it writes at once, so only the base
  // rollout pays a second OpenCode session.
  const work = [
    {
      toolCalls: [
        {
          name: "bash",
          arguments: {
            command: "python3 scripts/read_doc.py documents/employment_agreement.docx",
            description: "Read the agreement",
          },
        },
      ],
    },
    {
      toolCalls: [
        { name: "write", arguments: { filePath: "output/severance_memo.md", content: MEMO } },
      ],
    },
    { text: "The memo is in output/severance_memo.md." },
  ];
  solver = startChatServer({
    model: "solver-model",
    turns: [{ text: "I have looked at the matter." }, ...work],
    branches: [{ whenRequestContains: RULE, turns: work }],
  });
  improver = startCodexImprover({
    file: "guardrails.md",
    content: `- ${RULE}\n`,
    notes:
      "revised guardrails.md: the agent stopped before writing the memo and needed a follow-up.",
    cue: "an assignment names files to deliver",
    lesson: "write each named file under output/ before reporting back",
    evidence: "the rollout ended its first turn without writing output/severance_memo.md",
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 on LAB with the real opencode binary", () => {
  test(
    "setup --from, a k=1 sweep with follow-ups, the workspace_config install, metrics.json, judge --bases, the report; criteria never leak",
    async () => {
      const runs = join(root, "runs");
      const env = benchSweepEnv({
        executor: "oc",
        solver,
        improver,
        deps: join(root, "deps"),
        extra: { HARNESS2_JUDGE_MODEL: "judge-model" },
      });
      const setup = await runCli(["setup", "--bench", "lab", "--from", join(root, "harvey-labs")], {
        env,
      });
      expect(setup.code).toBe(0);
      expect(setup.stdout).toContain("4 tasks");

      const r = await runCli(
        ["run", "--bench", "lab", "--k", "1", "--no-tui", "--runs", runs, "--only-tasks", TASK],
        { env },
      );
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/employment\/severance-memo k=1: ok/);
      expect(r.stdout).toContain("R=4/4 P=3/3");

      const run = join(runs, "lab/tasks/employment/severance-memo/rollouts/lab-oc-agg1/base1");
      const ws = join(run, "workspace");
      expect(readFileSync(join(ws, "output/severance_memo.md"), "utf8")).toBe(MEMO);
      // the install: read_doc.py provided, the runtime's note last, the tool gate, read-only documents
      expect(readFileSync(join(ws, "scripts/read_doc.py"), "utf8")).toContain("def docx(");
      const agents = readFileSync(join(ws, "AGENTS.md"), "utf8");
      expect(agents).toContain("python3 scripts/read_doc.py <file>");
      expect(agents.trimEnd().endsWith("write each requested file there.")).toBe(true);
      const permission = JSON.parse(readFileSync(join(ws, "opencode.json"), "utf8")).permission;
      expect(permission).toMatchObject({
        webfetch: "deny",
        websearch: "deny",
        task: "deny",
        skill: "deny",
      });
      expect(statSync(join(ws, "documents/employment_agreement.docx")).mode & 0o222).toBe(0);
      // one follow-up in the same session; read_doc.py really ran on the agreement
      const metrics = JSON.parse(readFileSync(join(run, "metrics.json"), "utf8"));
      expect(metrics).toMatchObject({ nudges: 1, toolCalls: 2, documentsRead: 1 });
      // the improvers' rule reached the executor: under it the agent wrote at once
      const probe = join(runs, "lab/tasks/employment/severance-memo/rollouts/lab-oc-agg1/inv1");
      expect(JSON.parse(readFileSync(join(probe, "metrics.json"), "utf8"))).toMatchObject({
        nudges: 0,
        documentsRead: 1,
      });
      expect(metrics.tokens.input).toBeGreaterThan(0);
      const stream = readFileSync(join(run, "opencode.jsonl"), "utf8");
      expect(stream).toContain("nine (9) months of base salary");
      expect(
        new Set([...stream.matchAll(/"sessionID":"(ses_[A-Za-z0-9]+)"/g)].map((m) => m[1])).size,
      ).toBe(1);

      // criteria and task.json reach no file of the run and no model request
      const written = allFiles(join(runs, "lab")).filter((p) => !p.endsWith(".db"));
      for (const p of written) {
        expect(p).not.toContain("task.json");
        expect(readFileSync(p, "latin1")).not.toContain(SECRET);
        expect(readFileSync(p, "latin1")).not.toContain("offline_expect");
      }
      for (const req of [...improver.requests, ...solver.requests]) {
        expect(JSON.stringify(req.body)).not.toContain(SECRET);
      }

      const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
      if (judged.code !== 0) console.error(judged.stdout, judged.stderr);
      expect(judged.code).toBe(0);
      const rows = (
        JSON.parse(judged.stdout) as {
          rows: { kind: string; graded: boolean; score: number; passed: number; total: number }[];
        }
      ).rows;
      expect(rows.map((x) => [x.kind, x.graded, x.score, x.passed, x.total])).toEqual([
        ["pick", true, 1, 2, 2],
        ["base", true, 1, 2, 2],
      ]);
      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
      const cell = (
        JSON.parse(report.stdout) as { summaries: { score: number; delta: { n: number } }[] }
      ).summaries[0];
      expect(cell?.score).toBe(1);
      expect(cell?.delta.n).toBe(1);
    },
    SWEEP_MS,
  );
});
