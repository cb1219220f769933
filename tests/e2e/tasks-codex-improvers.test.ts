// The tasks × Codex cell: one real sweep with EVERY session on Codex
// (`HARNESS2_IMPROVER_CHANNEL=codex`, `--substrate cx`), k=1, on the fixture's data/csv-total: the
// improvers are the REAL codex binary against their own scripted Responses server
// (HARNESS2_IMPROVER_CODEX_BASE_URL), in the OS sandbox; the rollouts the REAL codex binary
// against the solver's. The improvers' edit (a script plus an AGENTS.md line)
// turns the base's wrong guess (0) into the computed total (1); the method's checks hold: the
// pick is the edited harness, a lesson is stored, the evidence never holds the answer key, and
// every improver call is recorded on the codex channel at its priced cost.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";
import {
  CSV_TOTAL_ANSWER,
  CSV_TOTAL_PY,
  csvTotalSetup,
  sweepCsvTotalOnCodex,
} from "../helpers/csv-total.ts";
import { allFiles } from "../helpers/files.ts";

const SWEEP_MS = 900_000;
const SECRET = "answer-key-marker-must-not-leak";
const TOTAL_PY = CSV_TOTAL_PY;

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

beforeAll(() => {
  ({ root, solver } = csvTotalSetup("h2-e2e-codex-imp-", SECRET));
  improver = startResponsesServer({
    model: "improver-model",
    usage: { input: 2000, output: 100 },
    turns: [
      {
        toolCalls: [
          {
            name: "exec_command",
            arguments: {
              cmd: [
                "mkdir -p context/harness/scripts",
                `cat > context/harness/scripts/total.py <<'PY'\n${TOTAL_PY}PY`,
                "cat > context/harness/AGENTS.md <<'MD'",
                "# Totals",
                "",
                "- For a total of a CSV column, run `python3 scripts/total.py` and save what it prints; never guess.",
                "- Write deliverables under `output/`.",
                "MD",
              ].join("\n"),
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

describe("harness2 run --substrate cx with Codex improvers: the real codex binary for every session", () => {
  test(
    "Codex improvers edit the Codex harness, Codex rollouts run it; judge and report pair base 0 with pick 1",
    async () => {
      const env = {
        HARNESS2_IMPROVER_CHANNEL: "codex",
        HARNESS2_IMPROVER_MODEL: "improver-model",
        HARNESS2_IMPROVER_CODEX_BASE_URL: improver.url,
        HARNESS2_IMPROVER_CODEX_API_KEY: "improver-key",
        HARNESS2_CODEX_BASE_URL: solver.url,
        HARNESS2_CODEX_API_KEY: "scripted-key",
        HARNESS2_CODEX_MODEL: "mock-model",
        HARNESS2_CODEX_PRICES:
          '{"mock-model": {"input": 1, "output": 2}, "improver-model": {"input": 3, "output": 15}}',
        HARNESS2_ROLLOUT_TIMEOUT: "300",
        HARNESS2_PROPOSER_TIMEOUT: "300",
        HARNESS2_BACKOFF_S: "0",
      };
      const runs = join(root, "runs");
      const tasks = join(root, "tasks");
      const checked = await runCli(["check", "--tasks", tasks, "--substrate", "cx"], { env });
      if (checked.code !== 0) console.error(checked.stdout, checked.stderr);
      expect(checked.code).toBe(0);
      expect(checked.stdout).toMatch(/ok {4}codex: 0\.171\.0/);
      expect(checked.stdout).toContain("Ready: tasks/cx");
      expect(checked.stdout).toContain(
        "codex improvers: improver-model, priced from HARNESS2_CODEX_PRICES",
      );

      const cell = await sweepCsvTotalOnCodex({
        root,
        env,
        secret: SECRET,
        servers: [improver, solver],
      });
      // Every improver session ran on Codex against its own endpoint, priced from the table: each
      // is 2 turns × (2,000 input at $3 + 100 output at $15 per million) = $0.015.
      const sessions = improver.requests.filter((q) => q.role === "turn" && q.turn === 0).length;
      expect(sessions).toBeGreaterThanOrEqual(3);
      expect(cell?.spend.improver).toBeCloseTo(sessions * 0.015, 6);
      for (const q of improver.requests.filter((x) => x.role === "turn")) {
        expect(q.headers.authorization).toBe("Bearer improver-key");
      }
      // The reflector stored the lesson from the Codex session's final message.
      const lessons = allFiles(runs).filter((p) => p.endsWith("EXPERIENCE.md"));
      expect(lessons.length).toBeGreaterThan(0);
      expect(readFileSync(lessons[0] as string, "utf8")).toContain(
        "compute the total with a script instead of estimating it",
      );
    },
    SWEEP_MS,
  );
});
