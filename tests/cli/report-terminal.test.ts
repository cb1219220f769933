// `harness2 report` in a terminal draws the Ink view: it honours --per-task (the paired delta per
// task, issue 7) and splits spend into stages, selection, reflection and executor, with the same
// numbers as --json. Runs the command in-process with a terminal's io; the store holds a judged
// demo sweep whose run dirs are real demo executions.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCommandArgs } from "../../src/cli/command.ts";
import reportCommand from "../../src/cli/commands/report.ts";
import type { Report } from "../../src/core/report/types.ts";
import { runCli } from "../helpers/cli.ts";
import { type DemoSweep, recordDemoSweep } from "../judge/demo-sweep.ts";

/** Real python executions and CLI processes: a generous limit, not a timing check. */
const SLOW = 60_000;

let root: string;
let s: DemoSweep;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "h2-report-tty-"));
  s = await recordDemoSweep({ runsDir: join(root, "runs"), k: 2 });
  const env = { HARNESS2_RUNS_DIR: s.runsDir, HARNESS2_DB: undefined };
  const judged = await runCli(["judge", "--bases"], { env });
  if (judged.code !== 0) throw new Error(`judge failed: ${judged.stderr}`);
}, SLOW);
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function report(values: Record<string, boolean>, isTTY: boolean): Promise<string> {
  let out = "";
  const flags = Object.keys(values).map((name) => `--${name}`);
  const code = await reportCommand.run(parseCommandArgs(reportCommand, flags), {
    stdout: (t) => {
      out += t;
    },
    stderr: () => {},
    isTTY,
    env: { HARNESS2_RUNS_DIR: s.runsDir, NO_COLOR: "1" },
    cwd: root,
  });
  expect(code).toBe(0);
  return out;
}

const cells = (row: string | undefined) => row?.split("│").map((c) => c.trim());

describe("harness2 report in a terminal", () => {
  test("--per-task adds the per-task delta table; without it there is none", async () => {
    const json = JSON.parse(await report({ json: true }, true)) as Report;
    const plain = await report({}, true);
    expect(plain).toContain("Δ vs base harness");
    expect(plain).not.toContain("per task");
    const out = await report({ "per-task": true }, true);
    const lines = out.split("\n");
    const at = lines.indexOf("per task (pick − base harness)");
    expect(at).toBeGreaterThan(0);
    expect(cells(lines[at + 1])).toEqual(["task", ...json.summaries.map((m) => `Δ ${m.name}`)]);
    const tasks = [...new Set(json.summaries.flatMap((m) => m.delta.perTask.map((d) => d.task)))];
    expect(tasks.length).toBe(2);
    for (const [i, task] of tasks.sort().entries()) {
      const want = json.summaries.map((m) => {
        const d = m.delta.perTask.find((x) => x.task === task)?.delta;
        return d === undefined ? "—" : `${d > 0 ? "+" : ""}${d.toFixed(3)}`;
      });
      expect(cells(lines[at + 3 + i])).toEqual([task, ...want]);
    }
    // The demo's picks score 1 and its bases 0: every paired task gains a full point.
    expect(out).toMatch(/ledger-1\s+│\s+\+1\.000 │\s+\+1\.000/);
  });

  test("spend is split into stages, selection and reflection (improver) and executor", async () => {
    const json = JSON.parse(await report({ json: true }, true)) as Report;
    const lines = (await report({}, true)).split("\n");
    const head = lines.findIndex((l) => l.startsWith("spend (USD)"));
    expect(cells(lines[head])).toEqual([
      "spend (USD)",
      "stages",
      "selection",
      "reflection",
      "improver",
      "executor",
    ]);
    // The fixture's stages cost money and its other parts none, so a swapped column would show
    // (tests/tui/report-view.test.tsx checks every part with distinct amounts).
    const agg = json.summaries[0]?.spend;
    expect(agg?.stages).toBeGreaterThan(0);
    expect(agg?.stages).not.toBe(agg?.executor);
    const usd = (x: number) => `$${x.toFixed(4)}`;
    json.summaries.forEach((m, i) => {
      expect(cells(lines[head + 2 + i])).toEqual([
        m.name,
        usd(m.spend.stages),
        usd(m.spend.selection),
        usd(m.spend.reflection),
        usd(m.spend.improver),
        usd(m.spend.executor),
      ]);
    });
  });

  test("outside a terminal --per-task still gives the text table", async () => {
    const out = await report({ "per-task": true }, false);
    expect(out).toContain("per task (pick − base harness)");
    expect(out).toMatch(/ledger-1\s+\+1\.000\s+\+1\.000/);
  });
});
