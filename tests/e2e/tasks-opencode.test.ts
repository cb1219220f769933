// One real sweep of the `tasks` benchmark: solver and improver are both the REAL opencode binary,
// each against its own scripted model server. The improver's scripted tool call edits a harness
// file, the solver's scripted turns write output/, selection (k=1), reflection and the library run,
// `harness2 judge` scores the pick through tests/check, and no evidence folder ever holds anything
// from tests/. About 8 OpenCode sessions: slow, so this is the one such sweep in the suite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { runCli } from "../helpers/cli.ts";

const SWEEP_MS = 900_000;
const SECRET = "expected-total-is-six";

let root: string;
let solver: ScriptedServer;
let improver: ScriptedServer;

function put(rel: string, body: string, mode?: number) {
  const path = join(root, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, body);
  if (mode !== undefined) chmodSync(path, mode);
}

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-tasks-"));
  put(
    "tasks/data/sum/task.md",
    "Add up the numbers in numbers.txt and save the total in output/answer.md.\n",
  );
  put("tasks/data/sum/inputs/numbers.txt", "1\n2\n3\n");
  put("tasks/data/sum/tests/expected.txt", `6\n# ${SECRET}\n`);
  put(
    "tasks/data/sum/tests/check",
    [
      "#!/bin/sh",
      "# the answer key: run only by the judge",
      'got=$(tr -d " \\n" < "$1/answer.md" 2>/dev/null)',
      'if [ "$got" = "6" ]; then echo \'{"passed": 1, "total": 1}\'; else echo \'{"passed": 0, "total": 1}\'; fi',
      "",
    ].join("\n"),
    0o755,
  );
  solver = startChatServer({
    model: "solver-model",
    turns: [
      {
        toolCalls: [{ name: "write", arguments: { filePath: "output/answer.md", content: "6\n" } }],
      },
      { text: "Saved the total to output/answer.md." },
    ],
  });
  improver = startChatServer({
    model: "improver-model",
    turns: [
      {
        toolCalls: [
          {
            name: "write",
            arguments: {
              filePath: "context/harness/guardrails.md",
              content: "- Re-add the numbers once more before saving the total.\n",
            },
          },
        ],
      },
      {
        text: [
          "<notes>",
          "- revised guardrails.md: the rollout saved a total without checking it; add a re-check.",
          "</notes>",
          "",
          "<experience>",
          "cue: a task asks for a total of numbers in an input file",
          "lesson: re-add the numbers before saving the total",
          "evidence: the rollout wrote its total after a single pass over numbers.txt",
          "confidence: medium",
          "</experience>",
        ].join("\n"),
      },
    ],
  });
});

afterAll(async () => {
  await solver?.stop();
  await improver?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 run --bench tasks with the real opencode binary", () => {
  test(
    "adapts, selects, reflects, stores a lesson, and judges the pick through tests/check",
    async () => {
      const config = {
        autoupdate: false,
        share: "disabled",
        provider: {
          ...(opencodeProviderConfig(solver.url, {
            providerId: "solver",
            model: "solver-model",
            cost: { input: 1, output: 2 },
          }).provider as object),
          ...(opencodeProviderConfig(improver.url, {
            providerId: "improver",
            model: "improver-model",
            cost: { input: 1, output: 2 },
          }).provider as object),
        },
      };
      const env = {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        HARNESS2_SOLVER_MODEL: "solver/solver-model",
        HARNESS2_IMPROVER_MODEL: "improver/improver-model",
        HARNESS2_ROLLOUT_TIMEOUT: "300",
        HARNESS2_PROPOSER_TIMEOUT: "300",
        HARNESS2_BACKOFF_S: "0",
      };
      const runs = join(root, "runs");
      const tasks = join(root, "tasks");
      const r = await runCli(
        [
          "run",
          "--bench",
          "tasks",
          "--tasks",
          tasks,
          "--k",
          "1",
          "--mode",
          "parallel",
          "--no-tui",
          "--runs",
          runs,
        ],
        { env },
      );
      if (r.code !== 0) console.error(r.stdout, r.stderr);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/data\/sum k=1: ok/);
      expect(r.stdout).toContain("R=4/4 P=3/3");

      // the improver's scripted edit reached the adopted harness
      const taskDir = join(runs, "tasks", "adapt", "tasks-oc-agg1");
      const [slug] = readdirSync(taskDir).filter((n) => n.startsWith("data"));
      const summary = JSON.parse(
        readFileSync(join(taskDir, slug as string, "summary.json"), "utf8"),
      );
      expect(summary.status).toBe("ok");
      const chosen = summary.selections.agg.chosenLabel as string;
      const adopted = readFileSync(
        join(taskDir, slug as string, "harnesses", chosen, "guardrails.md"),
        "utf8",
      );
      expect(adopted).toContain("Re-add the numbers");
      // the solver's scripted turns delivered the answer in the chosen rollout
      expect(
        readFileSync(
          join(summary.selections.agg.chosenRunDir, "workspace", "output", "answer.md"),
          "utf8",
        ),
      ).toBe("6\n");
      // reflection stored a lesson in the domain library
      const lessons = allFiles(join(runs, "tasks", "library")).filter((p) =>
        p.endsWith("EXPERIENCE.md"),
      );
      expect(lessons.length).toBe(1);
      expect(readFileSync(lessons[0] as string, "utf8")).toContain("re-add the numbers");
      // the answer key never reached any evidence folder, nor any improver session
      const evidence = allFiles(taskDir).filter((p) =>
        /\/(context|selection|reflection)\//.test(p),
      );
      expect(evidence.length).toBeGreaterThan(0);
      for (const p of evidence) {
        expect(p).not.toContain("expected.txt");
        expect(readFileSync(p, "utf8")).not.toContain(SECRET);
      }
      for (const req of improver.requests) expect(JSON.stringify(req.body)).not.toContain(SECRET);

      // the judge scores the pick through tests/check
      // the sweep recorded its task folder, so the judge needs no --tasks
      const judged = await runCli(["judge", "last", "--runs", runs], { env });
      if (judged.code !== 0) console.error(judged.stdout, judged.stderr);
      expect(judged.code).toBe(0);
      const report = await runCli(["report", "last", "--runs", runs, "--json"], { env });
      expect(report.code).toBe(0);
      expect(report.stdout).toContain('"graded"');
    },
    SWEEP_MS,
  );
});
