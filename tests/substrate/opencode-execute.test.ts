// The OpenCode executor through the tasks adapter: one normal rollout with the REAL opencode
// binary against the scripted chat server (a session costs ~6 s of CPU and ~630 MB), then the
// endings that are not normal — a runaway and a timeout — through its runSession seam.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";
import { createTasksAdapter } from "../../src/benchmarks/tasks/tasks-adapter.ts";
import { type ExitRecord, emptyRecord } from "../../src/core/lib/process.ts";
import { readRunMark } from "../../src/core/rollout/runmark.ts";
import {
  OpencodeSolver,
  RolloutError,
  type SessionOutcome,
  type SessionRequest,
} from "../../src/substrate/opencode/execute.ts";
import { OpencodeSubstrate } from "../../src/substrate/opencode/substrate.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-exec-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

/** One real session is ~6 s idle and far more on a loaded 2-core machine. */
const SESSION_TEST_MS = 240_000;
const COST = { input: 1, output: 2 };

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
  }
}

/**
 * A task folder INSIDE a directory whose AGENTS.md must never reach the solver, with its own
 * harness (system prompt marker, a skill) and one task with an input file, and the tasks adapter
 * over it. Its executor runs the real opencode binary against `server`, or, given `solver`, runs
 * that solver's sessions instead (the runSession seam below).
 */
function setup(server: ScriptedServer | null, solver?: OpencodeSolver) {
  const outer = mkdtempSync(join(SCRATCH, "h2-exec-"));
  writeFileSync(join(outer, "AGENTS.md"), "OUTER-AGENTS-MUST-NOT-LEAK\n");
  const tasksDir = join(outer, "tasks");
  write(tasksDir, {
    "harness/systemprompt.md": "HARNESS-SYSTEM-MARKER: you work on {{ domain_focus }} tasks.\n",
    "harness/guardrails.md": "- When notes need summarising, load the `summarise` skill.\n",
    "harness/LongTermMEMORY.md": "",
    "harness/tool_descriptions/tool_guidance.md": "",
    "harness/skills/summarise/SKILL.md":
      "---\nname: summarise\ndescription: notes need summarising\n---\nKeep it short.\n",
    "notes/summary/task.md": "Summarise notes.txt into answer.md.\n",
    "notes/summary/task.toml": 'deliverables = ["answer.md"]\n',
    "notes/summary/inputs/notes.txt": "alpha\nbeta\n",
  });
  const env = {
    PATH: process.env.PATH,
    HOME: join(outer, "real-home"),
    ...(server === null
      ? {}
      : {
          OPENCODE_CONFIG_CONTENT: JSON.stringify(
            opencodeProviderConfig(server.url, { cost: COST }),
          ),
        }),
    HARNESS2_SOLVER_MODEL: "local/mock-model",
    ANTHROPIC_API_KEY: "must-not-leak",
  };
  const runsDir = join(outer, "runs");
  const { adapter } = createTasksAdapter({
    tasksDir,
    runsDir,
    env,
    executor:
      solver === undefined
        ? new OpencodeSubstrate({ env, graceS: 2 })
        : new (class extends OpencodeSubstrate {
            override get solver(): OpencodeSolver {
              return solver;
            }
          })({ env, graceS: 2 }),
  });
  return { adapter, outer };
}

describe("OpenCode executor with the real opencode binary", () => {
  let server: ScriptedServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  test(
    "a rollout writes output/answer.md: delivered, cost summed, run mark, stream, trajectory",
    async () => {
      const usages = [1000, 2000, 3000, 4000].map((input) => ({ input, output: 100 }));
      server = startChatServer({
        turns: [
          {
            text: "Reading the notes.",
            toolCalls: [{ name: "read", arguments: { filePath: "notes.txt" } }],
            usage: usages[0],
          },
          {
            toolCalls: [
              { name: "bash", arguments: { command: "env > env.txt", description: "env" } },
            ],
            usage: usages[1],
          },
          {
            toolCalls: [
              {
                name: "write",
                arguments: { filePath: "output/answer.md", content: "alpha, beta\n" },
              },
            ],
            usage: usages[2],
          },
          { text: "Saved output/answer.md.", usage: usages[3] },
        ],
      });
      const { adapter } = setup(server);
      const runId = "tasks-oc-agg1/notes/summary/base1";
      const runDir = await adapter.execute("notes/summary", null, runId);

      expect(runDir).toBe(adapter.rolloutDir(runId));
      expect(await adapter.delivered(runDir)).toBe(true);
      expect(readFileSync(join(runDir, "workspace/output/answer.md"), "utf8")).toBe(
        "alpha, beta\n",
      );

      const expectedUsd = usages.reduce(
        (s, u) => s + (u.input * COST.input + u.output * COST.output) / 1e6,
        0,
      );
      const mark = await readRunMark(runDir);
      expect(mark?.runId).toBe(runId);
      expect(mark?.extras.usd as number).toBeCloseTo(expectedUsd, 9);
      expect(mark?.outputFingerprint).not.toBeNull();
      const record = JSON.parse(readFileSync(join(runDir, "rollout.json"), "utf8"));
      expect(record.exit).toMatchObject({ code: 0, timedOut: false });
      expect(record.failure).toBeNull();
      expect(existsSync(join(runDir, "session"))).toBe(false);

      // The stream is saved as printed, and renders in the shared grammar.
      const stream = readFileSync(join(runDir, "opencode.jsonl"), "utf8");
      expect(stream.split("\n").filter((l) => l.startsWith('{"type":"step_finish"'))).toHaveLength(
        4,
      );
      const trajectory = await adapter.trajectory(runDir, { obsTrunc: 50_000 });
      expect(trajectory).toStartWith("[ASSISTANT] Reading the notes.\n[ACTION] read(");
      expect(trajectory).toContain(
        '[ACTION] write({"filePath":"output/answer.md","content":"alpha, beta\\n"})',
      );
      // The last content line, then the session's usage summed over its four step_finish events.
      expect(trajectory).toEndWith(
        `[ASSISTANT] Saved output/answer.md.\n[HARNESS] session usage | steps=4 tokens in=10000 cached=0 out=400 reasoning=0 usd=${expectedUsd.toFixed(6)}`,
      );

      // What the model was sent: the task prompt on the first turn, the rendered harness (with
      // its template filled and its skill advertised), never the AGENTS.md above the runs dir.
      const turns = server.requests.filter((r) => r.role === "turn");
      expect(turns.map((r) => r.turn)).toEqual([0, 1, 2, 3]);
      const first = JSON.stringify(turns[0]?.body);
      expect(first).toContain(
        JSON.stringify(await adapter.taskPrompt("notes/summary")).slice(1, -1),
      );
      expect(first).toContain("HARNESS-SYSTEM-MARKER: you work on notes tasks.");
      expect(first).toContain("notes need summarising");
      expect(first).not.toContain("OUTER-AGENTS-MUST-NOT-LEAK");
      expect(JSON.stringify(turns[1]?.body)).toContain("alpha");

      // The session's environment: its own HOME and XDG dirs, the fence, no foreign credentials.
      const env = readFileSync(join(runDir, "workspace/env.txt"), "utf8");
      expect(env).toContain(`HOME=${join(runDir, "session/home")}`);
      expect(env).toContain(`XDG_CONFIG_HOME=${join(runDir, "session/xdg/config")}`);
      expect(env).toContain("OPENCODE_PERMISSION=");
      expect(env).not.toContain("must-not-leak");

      // Executing the same run id again reuses the finished rollout.
      const before = server.requests.length;
      expect(await adapter.execute("notes/summary", null, runId)).toBe(runDir);
      expect(server.requests.length).toBe(before);
    },
    SESSION_TEST_MS,
  );
});

/**
 * The executor's endings that are not a normal session, through its one seam (`runSession`): a
 * session the step watch stopped, and one killed at its timeout. That the real opencode binary
 * really ends these ways — stopped after a few empty steps, killed at the timeout with no process
 * left — is proved once, on the shared runWatchedSession, by the OpenCode channel's real-binary
 * tests (tests/channels/opencode-channel.test.ts); what is left to check here is what the
 * executor makes of each ending, without paying a session for it.
 */
class ScriptedSolver extends OpencodeSolver {
  readonly asked: SessionRequest[] = [];
  constructor(private readonly outcome: (req: SessionRequest) => SessionOutcome) {
    super({ env: { PATH: process.env.PATH } });
  }
  override async runSession(req: SessionRequest): Promise<SessionOutcome> {
    this.asked.push(req);
    // What a killed session leaves: the part of its stream it printed.
    writeFileSync(req.streamFile, '{"type":"step_start","sessionID":"ses_x"}\n');
    writeFileSync(req.stderrFile, "");
    return this.outcome(req);
  }
}

/** A session's exit record: what runProcess gives for a process that ran, with `over` on top. */
const exitOf = (over: Partial<ExitRecord>): ExitRecord => ({
  ...emptyRecord(false),
  code: 0,
  durationMs: 1500,
  pid: 4242,
  ...over,
});

function scriptedSetup(outcome: (req: SessionRequest) => SessionOutcome) {
  const solver = new ScriptedSolver(outcome);
  return { adapter: setup(null, solver).adapter, solver };
}

const outcomeOf = (exit: ExitRecord, over: Partial<SessionOutcome> = {}): SessionOutcome => ({
  exit,
  usd: 0.0042,
  events: 3,
  errors: [],
  texts: [],
  stoppedBecause: "",
  lastError: "",
  ...over,
});

describe("OpenCode executor: a session that did not end normally (the runSession seam)", () => {
  test("stopped by the step watch: a runaway rollout that says why, its spend kept, no run mark", async () => {
    const why = "the model returned no content for 5 steps in a row";
    const { adapter, solver } = scriptedSetup(() =>
      outcomeOf(exitOf({ code: null, signal: "SIGTERM" }), { stoppedBecause: why }),
    );
    const runId = "tasks-oc-agg1/notes/summary/dom1";
    const err = await adapter
      .execute("notes/summary", null, runId, { timeoutS: 300 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutError);
    expect((err as RolloutError).failure).toBe("runaway");
    expect((err as RolloutError).message).toContain(`was stopped: ${why}`);
    expect((err as RolloutError).usd).toBeCloseTo(0.0042, 9);
    const runDir = adapter.rolloutDir(runId);
    expect(await readRunMark(runDir)).toBeNull();
    const record = JSON.parse(readFileSync(join(runDir, "rollout.json"), "utf8"));
    expect(record).toMatchObject({ failure: "runaway", usd: 0.0042, nudges: 0 });
    expect(record.exit).toMatchObject({ code: null, signal: "SIGTERM", timedOut: false });
    // The session had the rollout's whole time; its private folder is gone.
    expect(solver.asked.map((r) => r.timeoutS)).toEqual([300]);
    expect(existsSync(join(runDir, "session"))).toBe(false);
  });

  test("killed at the timeout: a dead rollout naming the limit and the CLI's last error, no run mark, run again next time", async () => {
    const { adapter, solver } = scriptedSetup(() =>
      outcomeOf(exitOf({ code: null, signal: "SIGKILL", timedOut: true, durationMs: 12_000 }), {
        lastError: "upstream is slow",
      }),
    );
    const runId = "tasks-oc-agg1/notes/summary/inv1";
    const err = await adapter
      .execute("notes/summary", null, runId, { timeoutS: 12 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutError);
    expect((err as RolloutError).failure).toBe("timeout");
    expect((err as RolloutError).message).toContain(
      "timed out after 12s (killed); the CLI's last error: upstream is slow",
    );
    const runDir = adapter.rolloutDir(runId);
    expect(await readRunMark(runDir)).toBeNull();
    const record = JSON.parse(readFileSync(join(runDir, "rollout.json"), "utf8"));
    expect(record.failure).toBe("timeout");
    expect(record.exit).toMatchObject({ timedOut: true, wallS: 12 });
    // The next attempt at the same run id runs again: a dead rollout is never reused.
    const again = await adapter
      .execute("notes/summary", null, runId, { timeoutS: 12 })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(RolloutError);
    expect(solver.asked).toHaveLength(2);
  });
});
