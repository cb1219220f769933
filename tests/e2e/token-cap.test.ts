// `--max-tokens` (issue 34): a Codex executor model without a price has rollouts of unknown cost,
// which `--max-usd` alone cannot count (refused at start); with `--max-tokens` their reported
// tokens count against that cap instead, the sweep stops there (exit 3, reason budget) and a
// higher cap resumes it without running a finished rollout again. Every session is the REAL codex
// binary: the executor against one scripted Responses server, the (priced) improvers another.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";

const SWEEP_MS = 600_000;
const TASK = "data/csv-total";
let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-token-cap-"));
  cpSync(join(import.meta.dir, "../../fixtures/tasks"), join(root, "tasks"), { recursive: true });
  // Each rollout: 2 turns × (1,000 input + 50 output) = 2,100 tokens.
  solver = startResponsesServer({
    usage: { input: 1000, output: 50 },
    turns: [
      {
        toolCalls: [
          {
            name: "exec_command",
            arguments: { cmd: "mkdir -p output; echo 79.00 > output/total.txt" },
          },
        ],
      },
      { text: "Saved." },
    ],
  });
  improver = startResponsesServer({
    model: "improver-model",
    turns: [{ text: "<notes>\n- nothing to change\n</notes>" }],
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

const env = () => ({
  HARNESS2_IMPROVER_CHANNEL: "codex",
  HARNESS2_IMPROVER_MODEL: "improver-model",
  HARNESS2_IMPROVER_CODEX_BASE_URL: improver.url,
  HARNESS2_IMPROVER_CODEX_API_KEY: "improver-key",
  HARNESS2_CODEX_BASE_URL: solver.url,
  HARNESS2_CODEX_API_KEY: "scripted-key",
  HARNESS2_CODEX_MODEL: "mock-model",
  // The improvers are priced; the executor's model is not.
  HARNESS2_CODEX_PRICES: '{"improver-model": {"input": 1, "output": 2}}',
  HARNESS2_ROLLOUT_TIMEOUT: "300",
  HARNESS2_PROPOSER_TIMEOUT: "300",
  HARNESS2_BACKOFF_S: "0",
});

const run = (runs: string, ...caps: string[]) =>
  runCli(
    [
      "run",
      "--bench",
      "tasks",
      "--substrate",
      "cx",
      "--tasks",
      join(root, "tasks"),
      "--k",
      "1",
      "--mode",
      "parallel",
      "--no-tui",
      "--runs",
      runs,
      "--only-tasks",
      TASK,
      ...caps,
    ],
    { env: env() },
  );

function rollouts(runs: string): { tokens: number; priced: number }[] {
  const db = new Database(join(runs, "harness2.db"), { readonly: true });
  try {
    return db
      .query("SELECT tokens, priced FROM rollouts WHERE finished = 1 AND COALESCE(reused, 0) = 0")
      .all() as { tokens: number; priced: number }[];
  } finally {
    db.close();
  }
}

describe("--max-tokens bounds the rollouts whose price is unknown", () => {
  test(
    "refused without it, stops at it, and a higher cap resumes without running anything twice",
    async () => {
      const runs = join(root, "runs");
      const refused = await run(runs, "--max-usd", "5");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("or bound those rollouts with --max-tokens N too");

      const capped = await run(runs, "--max-usd", "5", "--max-tokens", "2000");
      if (capped.code !== 3) console.error(capped.stdout, capped.stderr);
      expect(capped.code).toBe(3);
      expect(capped.stderr).toMatch(
        /token cap 2000 reached \(\d+ tokens of calls without a price recorded for this experiment\)/,
      );
      expect(capped.stdout).toMatch(/e\.g\. twice it: .*--max-usd 10 --max-tokens 4000/);
      const first = rollouts(runs);
      expect(first.length).toBeGreaterThan(0);
      for (const r of first) expect(r).toEqual({ tokens: 2100, priced: 0 });

      const resumed = await run(runs, "--max-usd", "5", "--max-tokens", "100000");
      if (resumed.code !== 0) console.error(resumed.stdout, resumed.stderr);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(/data\/csv-total k=1: ok/);
      // The resume started from what the first run recorded, and re-ran none of its rollouts.
      expect(resumed.stdout).toContain(
        `${(first.length * 2100).toLocaleString("en-US")} of the 100,000 token cap`,
      );
      const all = rollouts(runs);
      const sessions = solver.requests.filter((q) => q.role === "turn" && q.turn === 0).length;
      expect(sessions).toBe(all.length);
    },
    SWEEP_MS,
  );
});
