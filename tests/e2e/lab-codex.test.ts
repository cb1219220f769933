// One real LAB sweep on the Codex executor (`--substrate cx`), k=1, on employment/severance-memo:
// the rollouts are the REAL codex binary against the scripted Responses server, the improvers the
// REAL codex binary against their own Responses server (tests/helpers/scripted.ts). The solver's one command reads the
// agreement with the runtime's scripts/read_doc.py and writes the memo from it, so the LAB install
// on Codex (codex_root plus read_doc.py and the workspace note) is exercised for real; the
// improver's AGENTS.md keeps what LAB's rule requires. Judged through the evaluation's contract fake.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import { benchSweepEnv, startCodexImprover } from "../helpers/scripted.ts";

const SWEEP_MS = 900_000;
const TASK = "employment/severance-memo";

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-lab-cx-"));
  cpSync(join(import.meta.dir, "../../fixtures/benchmarks/lab"), join(root, "harvey-labs"), {
    recursive: true,
  });
  // The memo quotes the agreement's own words, which only read_doc.py can get out of the .docx.
  const command = [
    "mkdir -p output",
    "python3 scripts/read_doc.py documents/employment_agreement.docx > notes_agreement.txt || exit 1",
    "{ echo 'Severance owed: USD 180,000 (nine months), on a release signed within 21 days.'; grep -o 'nine (9) months of base salary' notes_agreement.txt; } > output/severance_memo.md",
    "cat output/severance_memo.md",
  ].join("; ");
  solver = startResponsesServer({
    turns: [
      { toolCalls: [{ name: "exec_command", arguments: { cmd: command } }] },
      { text: "Wrote output/severance_memo.md." },
    ],
  });
  improver = startCodexImprover({
    file: "AGENTS.md",
    content:
      "# Legal matter\n\n- Read documents/ with `python3 scripts/read_doc.py <file>`; never guess a clause.\n- Write each requested file under `output/` and reopen it.\n",
    notes: "rewrote AGENTS.md: keep the read_doc.py and output/ rules, add reopening.",
    cue: "a memo must quote an agreement",
    lesson: "read the agreement with read_doc.py before writing",
    evidence: "the rollout read employment_agreement.docx with read_doc.py",
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 on LAB with the real codex binary", () => {
  test(
    "setup --from, a k=1 Codex sweep that uses the runtime's read_doc.py, judged and reported",
    async () => {
      const env = benchSweepEnv({
        executor: "cx",
        solver,
        improver,
        deps: join(root, "deps"),
        extra: { HARNESS2_JUDGE_MODEL: "judge-model" },
      });
      const runs = join(root, "runs");
      const setup = await runCli(["setup", "--bench", "lab", "--from", join(root, "harvey-labs")], {
        env,
      });
      expect(setup.code).toBe(0);
      const r = await runCli(
        [
          "run",
          "--bench",
          "lab",
          "--substrate",
          "cx",
          "--k",
          "1",
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
      expect(r.stdout).toMatch(/employment\/severance-memo k=1: ok/);
      const run = join(runs, "lab/tasks/employment/severance-memo/rollouts/lab-cx-agg1/base1");
      const memo = readFileSync(join(run, "workspace/output/severance_memo.md"), "utf8");
      expect(memo).toContain("nine (9) months of base salary");
      expect(readFileSync(join(run, "workspace/AGENTS.md"), "utf8")).toContain("# This workspace");
      const metrics = JSON.parse(readFileSync(join(run, "metrics.json"), "utf8"));
      expect(metrics).toMatchObject({ nudges: 0, toolCalls: 1, documentsRead: 1 });
      expect(metrics.tokens.input).toBeGreaterThan(0);
      // the adopted Codex harness is the improver's, which kept LAB's two rules
      const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], { env });
      if (judged.code !== 0) console.error(judged.stdout, judged.stderr);
      expect(judged.code).toBe(0);
      const rows = (
        JSON.parse(judged.stdout) as { rows: { kind: string; graded: boolean; score: number }[] }
      ).rows;
      expect(rows.map((x) => [x.kind, x.graded, x.score])).toEqual([
        ["pick", true, 1],
        ["base", true, 1],
      ]);
    },
    SWEEP_MS,
  );
});
