// One real JobBench sweep on the Codex executor (`--substrate cx`), k=1, on accountant/task1: the
// rollouts are the REAL codex binary against the scripted Responses server, the improvers the
// REAL codex binary against their own Responses server (tests/helpers/scripted.ts). The solver's one command reads the
// ledger with the workspace's own copy of the task folder (the .xlsx, through python's zipfile)
// and writes the totals; judged through the contract fake of JobBench's eval/judge.py.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import { JB_FIXTURE } from "../helpers/jobbench.ts";
import { benchSweepEnv, startCodexImprover } from "../helpers/scripted.ts";

const SWEEP_MS = 900_000;
const TASK = "accountant/task1";

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-jb-cx-"));
  cpSync(JB_FIXTURE, join(root, "job-bench-eval"), { recursive: true });
  // The totals come from the workbook itself: the workspace holds the task folder's files.
  const script = [
    "import zipfile, re, collections",
    "z = zipfile.ZipFile('vendor_ledger.xlsx')",
    "xml = z.read('xl/worksheets/sheet1.xml').decode()",
    "rows = [re.findall(r'<t>([^<]*)</t>|<v>([^<]*)</v>', r) for r in re.findall(r'<row[^>]*>(.*?)</row>', xml)]",
    "vals = [[a or b for a, b in r] for r in rows][1:]",
    "tot = collections.OrderedDict()",
    "for d, vendor, inv, amount in vals: tot[vendor] = tot.get(vendor, 0) + float(amount)",
    "out = ['vendor,total'] + ['%s,%.2f' % (v, tot[v]) for v in sorted(tot)] + ['GRAND TOTAL,%.2f' % sum(tot.values())]",
    "open('output/vendor_totals.csv', 'w').write('\\n'.join(out) + '\\n')",
    "open('output/notes.md', 'w').write('Northwind Supplies: credit note NW-1052 nets against March.\\n')",
  ].join("\n");
  const command = `mkdir -p output; python3 - <<'PY'\n${script}\nPY\ncat output/vendor_totals.csv`;
  solver = startResponsesServer({
    turns: [
      { toolCalls: [{ name: "exec_command", arguments: { cmd: command } }] },
      { text: "Wrote output/vendor_totals.csv and output/notes.md." },
    ],
  });
  improver = startCodexImprover({
    file: "AGENTS.md",
    content:
      "# Ledgers\n\n- Compute totals with a script over the workbook and write them under `output/`.\n",
    notes: "rewrote AGENTS.md: compute the totals from the workbook with a script.",
    cue: "a workbook of invoices and credit notes",
    lesson: "compute per-vendor totals with a script, signs kept",
    evidence: "the rollout summed vendor_ledger.xlsx with python",
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 on JobBench with the real codex binary", () => {
  test(
    "setup --from, a k=1 Codex sweep over the task folder's workbook, judged 1.0 and reported",
    async () => {
      const env = benchSweepEnv({ executor: "cx", solver, improver, deps: join(root, "deps") });
      const runs = join(root, "runs");
      expect(
        (await runCli(["setup", "--bench", "jb", "--from", join(root, "job-bench-eval")], { env }))
          .code,
      ).toBe(0);
      const r = await runCli(
        [
          "run",
          "--bench",
          "jb",
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
      expect(r.stdout).toMatch(/accountant\/task1 k=1: ok/);
      const run = join(runs, "jb/dataset/main/accountant/task1/rollouts/jb-cx-agg1/base1");
      expect(readFileSync(join(run, "workspace/output/vendor_totals.csv"), "utf8")).toContain(
        "GRAND TOTAL,2457.40",
      );
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
      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
    },
    SWEEP_MS,
  );
});
