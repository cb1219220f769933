// One real sweep of the `tasks` benchmark on the Codex executor (`--substrate cx`), k=1, on the
// fixture's data/csv-total: the improvers are the REAL opencode binary against the scripted chat
// server, the rollouts the REAL codex binary against the scripted Responses server. The solver's
// one scripted command runs `scripts/total.py` when the harness ships it and falls back to a wrong
// guess otherwise, so the base harness (the Codex baseline) scores 0 and the improvers' edit — a
// script plus an AGENTS.md line — scores 1: `judge --bases` and `report` show the paired delta.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import {
  CSV_TOTAL_ANSWER,
  CSV_TOTAL_PY,
  csvTotalSetup,
  sweepCsvTotalOnCodex,
} from "../helpers/csv-total.ts";

const SWEEP_MS = 900_000;
const SECRET = "answer-key-marker-must-not-leak";
const TOTAL_PY = CSV_TOTAL_PY;

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  ({ root, solver } = csvTotalSetup("h2-e2e-codex-", SECRET));
  improver = startChatServer({
    model: "improver-model",
    turns: [
      {
        toolCalls: [
          {
            name: "write",
            arguments: { filePath: "context/harness/scripts/total.py", content: TOTAL_PY },
          },
          {
            name: "write",
            arguments: {
              filePath: "context/harness/AGENTS.md",
              content:
                "# Totals\n\n- For a total of a CSV column, run `python3 scripts/total.py` and save what it prints; never guess.\n- Write deliverables under `output/`.\n",
            },
          },
        ],
      },
      {
        text: CSV_TOTAL_ANSWER,
      },
    ],
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 run --bench tasks --substrate cx with the real codex and opencode binaries", () => {
  test(
    "OpenCode improvers edit the Codex harness, Codex rollouts run it; judge and report pair base 0 with pick 1",
    async () => {
      const env = {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(
          opencodeProviderConfig(improver.url, {
            providerId: "improver",
            model: "improver-model",
            cost: { input: 1, output: 2 },
          }),
        ),
        HARNESS2_IMPROVER_MODEL: "improver/improver-model",
        HARNESS2_CODEX_BASE_URL: solver.url,
        HARNESS2_CODEX_API_KEY: "scripted-key",
        HARNESS2_CODEX_MODEL: "mock-model",
        HARNESS2_CODEX_PRICES: '{"mock-model": {"input": 1, "output": 2}}',
        HARNESS2_ROLLOUT_TIMEOUT: "300",
        HARNESS2_PROPOSER_TIMEOUT: "300",
        HARNESS2_BACKOFF_S: "0",
      };
      const tasks = join(root, "tasks");
      const checked = await runCli(["check", "--tasks", tasks, "--substrate", "cx"], { env });
      if (checked.code !== 0) console.error(checked.stdout, checked.stderr);
      expect(checked.code).toBe(0);
      expect(checked.stdout).toMatch(/ok {4}codex: 0\.171\.0/);
      expect(checked.stdout).toContain("Ready: tasks/cx");

      await sweepCsvTotalOnCodex({
        root,
        env,
        secret: SECRET,
        servers: [improver, solver],
      });
    },
    SWEEP_MS,
  );
});
