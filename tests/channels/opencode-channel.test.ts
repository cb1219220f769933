// The OpenCode channel: pure parsing/env/argv units, then the REAL opencode binary against the
// scripted chat server (sequential, few sessions — each costs ~6 s and ~630 MB).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { startChatServer } from "../../fixtures/servers/chat-server.ts";
import type { RecordedRequest, ScriptedServer } from "../../fixtures/servers/script.ts";
import {
  configEnvRefs,
  mergeConfig,
  stripMigrationBanner,
  workspaceFence,
} from "../../src/agent-cli/opencode.ts";
import { readOpencodeStream } from "../../src/agent-cli/opencode-stream.ts";
import { EMPTY_STEPS_LIMIT } from "../../src/agent-cli/opencode-watch.ts";
import { ChannelSetupError } from "../../src/agent-cli/session-env.ts";
import {
  OPENCODE_PROMPT,
  OpencodeChannel,
  readAnswerFile,
} from "../../src/channels/opencode-channel.ts";
import { runProcess } from "../../src/core/lib/process.ts";
import {
  OPENCODE_BIN,
  SESSION_TEST_MS,
  scriptedOpencodeEnv,
  sessionRequest,
  stepCost,
} from "../helpers/opencode.ts";
import { processesMentioning, zombieChildren } from "../helpers/procs.ts";
import { testTempDir } from "../helpers/temp.ts";

const request = sessionRequest;

describe("OpenCode output parsing", () => {
  const line = (o: unknown) => JSON.stringify(o);

  test("joins every text part, sums step costs, collects error messages", () => {
    const stdout = [
      "Performing one time database migration, may take a few minutes...",
      line({ type: "step_start", part: { type: "step-start" } }),
      line({ type: "text", part: { type: "text", text: "First." } }),
      line({ type: "text", part: { type: "text", text: "   " } }),
      line({ type: "step_finish", part: { type: "step-finish", cost: 0.1 } }),
      line({ type: "text", part: { type: "text", text: "Second." } }),
      line({ type: "step_finish", part: { type: "step-finish", cost: 0.0000004 } }),
      line({ type: "error", error: { name: "APIError", data: { message: "Invalid request" } } }),
      line({ type: "error", error: { name: "UnknownError" } }),
      "{not json",
    ].join("\n");
    const parsed = readOpencodeStream(stdout);
    expect(parsed.texts).toEqual(["First.", "Second."]);
    expect(parsed.usd).toBe(0.1);
    expect(parsed.errors).toEqual(["Invalid request", "UnknownError"]);
    expect(parsed.events).toBe(8);
  });

  test("strips only whole migration banner lines and keeps their newlines", () => {
    const text =
      "a\nPerforming one time database migration, may take a few minutes...\nsqlite-migration:done 3\nDatabase migration complete.  \nb\nnot Database migration complete.";
    expect(stripMigrationBanner(text)).toBe("a\n\n\n\nb\nnot Database migration complete.");
  });

  test("finds {env:NAME} references and merges configs deeply", () => {
    expect(configEnvRefs({ provider: { x: { options: { apiKey: "{env:MY_KEY}" } } } })).toEqual([
      "MY_KEY",
    ]);
    expect(
      mergeConfig(
        { agent: { build: { steps: 1, x: 1 } }, a: 1 },
        { agent: { build: { steps: 9 } } },
      ),
    ).toEqual({
      agent: { build: { steps: 9, x: 1 } },
      a: 1,
    });
  });

  test("the permission fence denies every external directory but the workspace", () => {
    const ws = testTempDir("h2-fence-");
    expect(JSON.parse(workspaceFence(ws))).toEqual({
      external_directory: { "*": "deny", [ws]: "allow", [`${ws}/**`]: "allow" },
    });
  });
});

describe("OpenCode channel setup", () => {
  test("a bad source checkout is a ChannelSetupError naming the variable", () => {
    expect(() => new OpencodeChannel({ env: { HARNESS2_OPENCODE_DIR: "/nonexistent" } })).toThrow(
      ChannelSetupError,
    );
    expect(() => new OpencodeChannel({ env: { HARNESS2_OPENCODE_DIR: "/nonexistent" } })).toThrow(
      /HARNESS2_OPENCODE_DIR/,
    );
  });

  test("a source checkout runs through bun with the browser condition", () => {
    const dir = testTempDir("h2-occheckout-");
    mkdirSync(join(dir, "packages/opencode/src"), { recursive: true });
    writeFileSync(join(dir, "packages/opencode/src/index.ts"), "");
    const ch = new OpencodeChannel({ env: { HARNESS2_OPENCODE_DIR: dir, PATH: "/usr/bin" } });
    expect(ch.command.argv.slice(1)).toEqual([
      "run",
      "--cwd",
      join(dir, "packages/opencode"),
      "--conditions=browser",
      "src/index.ts",
    ]);
  });

  test("the provider file is handed over as OPENCODE_CONFIG, never copied into the workspace", () => {
    const root = testTempDir("h2-occfg-");
    const file = join(root, "providers.json");
    writeFileSync(
      file,
      JSON.stringify({ provider: { p: { options: { apiKey: "literal-secret" } } } }),
    );
    const ch = new OpencodeChannel({
      env: { PATH: process.env.PATH, HARNESS2_OPENCODE_CONFIG: file },
    });
    expect(ch.sessionEnv(request(root)).OPENCODE_CONFIG).toBe(file);
  });

  test("an unreadable HARNESS2_OPENCODE_CONFIG fails at construction", () => {
    expect(
      () =>
        new OpencodeChannel({ env: { PATH: "", HARNESS2_OPENCODE_CONFIG: "/nonexistent.json" } }),
    ).toThrow(/HARNESS2_OPENCODE_CONFIG/);
  });

  test("a session's env holds its provider's credentials only, plus its own XDG dirs", () => {
    const root = testTempDir("h2-ocenv-");
    const env = {
      PATH: "/usr/bin",
      HOME: "/home/u",
      LC_ALL: "C.UTF-8",
      ANTHROPIC_API_KEY: "ak",
      OPENAI_API_KEY: "ok",
      AWS_SECRET_ACCESS_KEY: "aws",
      UNRELATED: "x",
      GOOGLE_CLOUD_PROJECT: "proj",
    };
    const ch = new OpencodeChannel({ env });
    const anthropic = ch.sessionEnv(request(root, { model: "anthropic/claude-x" }));
    expect(anthropic.ANTHROPIC_API_KEY).toBe("ak");
    expect(anthropic.OPENAI_API_KEY).toBeUndefined();
    expect(anthropic.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(anthropic.UNRELATED).toBeUndefined();
    // the user's HOME (~/.opencode, ~/.claude instructions and skills) never reaches a session
    expect(anthropic.HOME).toBe(join(root, "session/home"));
    expect(anthropic.OPENCODE_DISABLE_CLAUDE_CODE).toBe("1");
    expect(anthropic.OPENCODE_DISABLE_EXTERNAL_SKILLS).toBe("1");
    expect(anthropic.LC_ALL).toBe("C.UTF-8");
    expect(anthropic.XDG_DATA_HOME).toBe(join(root, "session/xdg/data"));
    expect(anthropic.OPENCODE_DISABLE_MODELS_FETCH).toBe("1");
    expect(JSON.parse(anthropic.OPENCODE_PERMISSION ?? "{}").external_directory["*"]).toBe("deny");
    const vertex = ch.sessionEnv(request(root, { model: "google-vertex/gemini-x" }));
    expect(vertex.ANTHROPIC_API_KEY).toBeUndefined();
    expect(vertex.GOOGLE_VERTEX_PROJECT).toBe("proj");
    expect(vertex.GOOGLE_VERTEX_LOCATION).toBe("global");
    const local = new OpencodeChannel({
      env: {
        ...env,
        OPENCODE_CONFIG_CONTENT: '{"provider":{"p":{"options":{"apiKey":"{env:P_KEY}"}}}}',
        P_KEY: "pk",
      },
    }).sessionEnv(request(root, { model: "p/m" }));
    expect(local.P_KEY).toBe("pk");
    expect(local.OPENCODE_CONFIG_CONTENT).toContain("{env:P_KEY}");
    expect(local.ANTHROPIC_API_KEY).toBeUndefined();
  });

  test("argv: one-line prompt, json format, no title request, variant only with an effort", () => {
    const root = testTempDir("h2-ocargv-");
    const ch = new OpencodeChannel({ env: { PATH: "" } });
    const argv = ch.sessionArgv(request(root, { effort: "high" }));
    expect(argv.slice(1, 3)).toEqual(["run", OPENCODE_PROMPT]);
    expect(OPENCODE_PROMPT).not.toContain("\n");
    expect(argv).toContain("--title");
    expect(argv.slice(-2)).toEqual(["--variant", "high"]);
    expect(ch.sessionArgv(request(root, { effort: "" }))).not.toContain("--variant");
  });
});

describe("OpenCode channel: reading output/answer.md", () => {
  const SECRET = "outside-secret-must-not-be-read";
  const setup = () => {
    const root = testTempDir("h2-ocanswer-");
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "answer.md"), SECRET);
    const ws = join(root, "work");
    mkdirSync(ws);
    return { root, ws, outside };
  };

  test("a regular answer file is read; a missing one is no answer", () => {
    const { ws } = setup();
    expect(readAnswerFile(ws)).toBe("");
    mkdirSync(join(ws, "output"));
    expect(readAnswerFile(ws)).toBe("");
    writeFileSync(join(ws, "output/answer.md"), "THE ANSWER\n");
    expect(readAnswerFile(ws)).toBe("THE ANSWER\n");
  });

  test("answer.md as a symlink to a file outside the workspace is not read", () => {
    const { ws, outside } = setup();
    mkdirSync(join(ws, "output"));
    symlinkSync(join(outside, "answer.md"), join(ws, "output/answer.md"));
    expect(readAnswerFile(ws)).toBe("");
  });

  test("output/ as a symlink to a directory outside the workspace is not read through", () => {
    const { ws, outside } = setup();
    symlinkSync(outside, join(ws, "output"));
    expect(readAnswerFile(ws)).toBe("");
  });

  test("a hard link to another file, a FIFO and a directory are no answer (and never block)", () => {
    const { ws, outside } = setup();
    mkdirSync(join(ws, "output"));
    linkSync(join(outside, "answer.md"), join(ws, "output/answer.md"));
    expect(readAnswerFile(ws)).toBe("");
    rmSync(join(ws, "output/answer.md"));
    expect(Bun.spawnSync(["mkfifo", join(ws, "output/answer.md")]).exitCode).toBe(0);
    expect(readAnswerFile(ws)).toBe("");
    rmSync(join(ws, "output/answer.md"));
    mkdirSync(join(ws, "output/answer.md"));
    expect(readAnswerFile(ws)).toBe("");
  });

  test("a session that symlinks output/answer.md outside gets its text parts, not the file", async () => {
    const { root, outside } = setup();
    // A stand-in OpenCode checkout (run by bun, no model): it plants the symlink, prints one text
    // event and exits 0, as a real session would after a bash tool call.
    const checkout = join(root, "checkout");
    mkdirSync(join(checkout, "packages/opencode/src"), { recursive: true });
    writeFileSync(
      join(checkout, "packages/opencode/src/index.ts"),
      [
        'import { symlinkSync } from "node:fs";',
        'const dir = process.argv[process.argv.indexOf("--dir") + 1];',
        `symlinkSync(${JSON.stringify(join(outside, "answer.md"))}, \`\${dir}/output/answer.md\`);`,
        'console.log(JSON.stringify({ type: "text", part: { type: "text", text: "from the text parts" } }));',
        "",
      ].join("\n"),
    );
    const ch = new OpencodeChannel({
      env: { HARNESS2_OPENCODE_DIR: checkout, PATH: process.env.PATH },
    });
    const result = await ch.run(request(root, { timeoutS: 60 }));
    expect(result.error).toBe("");
    expect(result.text).toBe("from the text parts");
    expect(result.text).not.toContain(SECRET);
  });
});

describe("OpenCode channel: an idle stop names what the CLI logged", () => {
  test("an error the CLI logs only while it is being stopped still reaches the stop's reason", async () => {
    const root = testTempDir("h2-oc-late-log-");
    // A stand-in OpenCode checkout (run by bun, no model): silent, it logs its provider's error
    // in its own log folder only when SIGTERM arrives, as a busy CLI may, then exits.
    const checkout = join(root, "checkout-late-log");
    mkdirSync(join(checkout, "packages/opencode/src"), { recursive: true });
    writeFileSync(
      join(checkout, "packages/opencode/src/index.ts"),
      [
        'import { appendFileSync, mkdirSync } from "node:fs";',
        'const dir = process.env.XDG_DATA_HOME + "/opencode/log";',
        'process.on("SIGTERM", () => {',
        "  mkdirSync(dir, { recursive: true });",
        '  appendFileSync(dir + "/run.log", \'level=ERROR message=failed error.error="upstream is down"\\n\');',
        "  process.exit(0);",
        "});",
        "setInterval(() => {}, 1000);",
        "",
      ].join("\n"),
    );
    const ch = new OpencodeChannel({
      env: {
        HARNESS2_OPENCODE_DIR: checkout,
        PATH: process.env.PATH,
        HARNESS2_SESSION_IDLE_TIMEOUT: "2",
        // Outside the OS sandbox, as executors run: inside it the stop reaches bubblewrap, which
        // ends the CLI without a signal it can handle.
        HARNESS2_IMPROVER_SANDBOX: "off",
      },
      graceS: 5,
    });
    const result = await ch.run(request(root, { timeoutS: 60 }));
    expect(result.error).toStartWith("stopped: no progress: the session printed nothing for 2s");
    expect(result.error).toContain("(the CLI's last error: upstream is down)");
  });
});

type ChatBody = { messages: unknown[]; reasoning_effort?: string };
const bodyOf = (r: RecordedRequest | undefined): ChatBody =>
  (r?.body ?? { messages: [] }) as ChatBody;

describe("OpenCode channel with the real opencode binary", () => {
  let server: ScriptedServer;
  let outside: string;
  const channelEnv = (url: string) =>
    // A model that defines the "high" variant: --variant high must reach the wire.
    scriptedOpencodeEnv(url, { variants: { high: { reasoningEffort: "high" } } });

  /** Seconds the first session took to send its first model request (0 until it ran). */
  let firstRequestS = 0;
  let firstTurnAt = 0;
  const onRequest = (r: RecordedRequest) => {
    if (r.role === "turn" && firstTurnAt === 0) firstTurnAt = Date.now();
  };

  beforeAll(() => {
    outside = testTempDir("h2-outside-");
  });
  afterAll(async () => {
    await server?.stop();
  });

  test(
    "a session edits the harness, is fenced, and output/answer.md wins; cost sums the steps",
    async () => {
      const root = testTempDir("h2-oc1-");
      const req = request(root, { system: "SYSTEM TEXT", effort: "high" });
      mkdirSync(join(req.workspace, "context/harness"), { recursive: true });
      writeFileSync(join(req.workspace, "context/harness/systemprompt.md"), "You are terse.\n");
      const usages = [1000, 2000, 3000, 4000, 5000].map((input) => ({ input, output: 100 }));
      server = startChatServer(
        {
          turns: [
            {
              text: "Editing the prompt.",
              toolCalls: [
                {
                  name: "edit",
                  arguments: {
                    filePath: "context/harness/systemprompt.md",
                    oldString: "You are terse.",
                    newString: "You are terse and check your work.",
                  },
                },
              ],
              usage: usages[0],
            },
            {
              toolCalls: [
                {
                  name: "write",
                  arguments: { filePath: join(outside, "escape.txt"), content: "x" },
                },
              ],
              usage: usages[1],
            },
            {
              toolCalls: [
                { name: "bash", arguments: { command: "env > env.txt", description: "dump env" } },
              ],
              usage: usages[2],
            },
            {
              toolCalls: [
                {
                  name: "write",
                  arguments: { filePath: "output/answer.md", content: "THE ANSWER\n" },
                },
              ],
              usage: usages[3],
            },
            { text: "final message (not the answer)", usage: usages[4] },
          ],
        },
        { onRequest },
      );
      const ch = new OpencodeChannel({ env: channelEnv(server.url) });
      const started = Date.now();
      const result = await ch.run(req);
      firstRequestS = (firstTurnAt - started) / 1000;

      expect(result.error).toBe("");
      expect(result.timedOut).toBe(false);
      expect(result.text).toBe("THE ANSWER\n");
      expect(readFileSync(join(req.workspace, "context/harness/systemprompt.md"), "utf8")).toBe(
        "You are terse and check your work.\n",
      );
      const expected = usages.reduce((sum, u) => sum + stepCost(u.input, u.output), 0);
      expect(result.usd).toBeCloseTo(expected, 9);

      // The write outside the workspace was refused and the refusal went back to the model.
      expect(existsSync(join(outside, "escape.txt"))).toBe(false);
      const turns = server.requests.filter((r) => r.role === "turn");
      expect(turns.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4]);
      const afterEscape = JSON.stringify(bodyOf(turns[2]).messages.at(-1));
      expect(afterEscape).toContain("rule which prevents you");

      // Files the session was given, what it was told, and what it could see.
      expect(readFileSync(join(req.workspace, "MISSION.md"), "utf8")).toBe(
        "SYSTEM TEXT\n\n---\n\nImprove the system prompt.",
      );
      expect(JSON.parse(readFileSync(join(req.workspace, "opencode.json"), "utf8")).agent).toEqual({
        build: { steps: 40 },
      });
      expect(JSON.stringify(bodyOf(turns[0]).messages)).toContain("Read MISSION.md");
      expect(bodyOf(turns[0]).reasoning_effort).toBe("high");
      expect(server.requests.filter((r) => r.role === "aux")).toEqual([]);
      const seen = readFileSync(join(req.workspace, "env.txt"), "utf8");
      expect(seen).toContain(`XDG_DATA_HOME=${join(req.sessionDir, "xdg/data")}`);
      expect(seen).not.toContain("must-not-leak");
      expect(existsSync(join(req.sessionDir, "xdg/data/opencode/opencode.db"))).toBe(true);
    },
    SESSION_TEST_MS,
  );

  test(
    "in its OS sandbox, the session's shell can neither read a planted answer key nor write outside; opted out, it can",
    async () => {
      const key = join(outside, "ANSWER-KEY.txt");
      writeFileSync(key, "PLANTED-ANSWER-KEY-4711\n");
      for (const sandbox of ["bwrap", "off"]) {
        const root = testTempDir(`h2-oc-sandbox-${sandbox}-`);
        const req = request(root);
        const escapeFile = join(outside, `escape-${sandbox}.txt`);
        // Paths the permission fence cannot see in the command (it reads a command's words):
        // only the operating system can stop these.
        const hidden = (p: string) =>
          `__import__('base64').b64decode('${Buffer.from(p).toString("base64")}').decode()`;
        const read = `python3 -c "print(open(${hidden(key)}).read())"; echo read-done`;
        const write = `python3 -c "open(${hidden(escapeFile)}, 'w').write('x')"; echo write-done`;
        await server?.stop();
        server = startChatServer({
          turns: [
            {
              toolCalls: [
                {
                  name: "bash",
                  arguments: { command: read, description: "read" },
                },
              ],
            },
            {
              toolCalls: [
                {
                  name: "bash",
                  arguments: { command: write, description: "write" },
                },
              ],
            },
            {
              toolCalls: [
                { name: "write", arguments: { filePath: "output/answer.md", content: "ok\n" } },
              ],
            },
            { text: "done" },
          ],
        });
        const env = { ...channelEnv(server.url), HARNESS2_IMPROVER_SANDBOX: sandbox };
        const ch = new OpencodeChannel({ env });
        expect(ch.sandbox.mode).toBe(sandbox as "bwrap" | "off");
        const result = await ch.run(req);
        // The session went on after both commands and answered.
        expect(result.error).toBe("");
        expect(result.text).toBe("ok\n");
        const sent = JSON.stringify(server.requests.map((r) => r.body));
        expect(sent).toContain("read-done");
        if (sandbox === "bwrap") {
          expect(sent).not.toContain("PLANTED-ANSWER-KEY-4711");
          expect(existsSync(escapeFile)).toBe(false);
        } else {
          // Unsandboxed, the same shell reads it: the test above proves the sandbox, not chance.
          expect(sent).toContain("PLANTED-ANSWER-KEY-4711");
          expect(existsSync(escapeFile)).toBe(true);
        }
      }
    },
    SESSION_TEST_MS,
  );

  test(
    "a hanging model is killed at the timeout with its spend kept, leaving no process behind; the session had a database of its own",
    async () => {
      const root = testTempDir("h2-oc3-");
      // Long enough to reach the model (~3 s idle): three times what the first session here took
      // to get there (a loaded machine scales it, and unevenly: twice was seen to miss once under
      // a parallel suite), at least 10 s.
      const timeoutS = Math.max(10, Math.ceil(3 * firstRequestS));
      const req = request(root, { timeoutS });
      await server.stop();
      // Turn 0 is a priced step; turn 1 never answers.
      server = startChatServer([
        { toolCalls: [{ name: "read", arguments: { filePath: "MISSION.md" } }] },
        { hang: true },
      ]);
      const env = channelEnv(server.url);
      const ch = new OpencodeChannel({ env, graceS: 2 });
      const result = await ch.run(req);
      expect(result.timedOut).toBe(true);
      expect(result.text).toBe("");
      expect(result.error).toBe(`timeout after ${timeoutS}s`);
      expect(server.requests.some((r) => r.role === "turn" && r.turn === 1)).toBe(true);
      // What the killed session spent before it hung is paid, not dropped.
      expect(result.usd).toBeCloseTo(stepCost(100, 20), 9);
      expect(processesMentioning(req.sessionDir)).toEqual([]);
      expect(zombieChildren()).toEqual([]);

      // Its database, in its own XDG dirs, holds this session and none of the first test's.
      const sessionId = /"sessionID":"([^"]+)"/.exec(
        readFileSync(join(req.sessionDir, "opencode.stdout.jsonl"), "utf8"),
      )?.[1];
      expect(sessionId).toBeDefined();
      const list = await runProcess({
        argv: [OPENCODE_BIN, "session", "list", "--format", "json"],
        env: {
          PATH: env.PATH,
          HOME: env.HOME,
          XDG_DATA_HOME: join(req.sessionDir, "xdg/data"),
          XDG_STATE_HOME: join(req.sessionDir, "xdg/state"),
          XDG_CONFIG_HOME: join(req.sessionDir, "xdg/config"),
          XDG_CACHE_HOME: join(req.sessionDir, "xdg/cache"),
          OPENCODE_DISABLE_MODELS_FETCH: "1",
        },
        cwd: req.workspace,
        timeoutMs: 60_000,
      });
      const sessions = JSON.parse(list.stdout) as { id: string }[];
      expect(sessions.map((s) => s.id)).toEqual([sessionId as string]);
    },
    SESSION_TEST_MS,
  );

  test(
    "a provider answering 200 with an empty stream is stopped after a few empty steps, not paid to the wall clock",
    async () => {
      const root = testTempDir("h2-oc4-");
      const req = request(root, { timeoutS: 300, steps: 10 });
      await server?.stop();
      server = startChatServer([{ malformed: "empty" }]);
      const ch = new OpencodeChannel({ env: channelEnv(server.url), graceS: 2 });
      const result = await ch.run(req);
      expect(result.timedOut).toBe(false);
      expect(result.error).toBe(
        `stopped: the model returned no content for ${EMPTY_STEPS_LIMIT} steps in a row`,
      );
      // OpenCode asks again at once after each unusable reply: the watch stops it within a few.
      const turns = server.requests.filter((r) => r.role === "turn").length;
      expect(turns).toBeGreaterThanOrEqual(EMPTY_STEPS_LIMIT);
      expect(turns).toBeLessThanOrEqual(EMPTY_STEPS_LIMIT + 2);
      expect(processesMentioning(req.sessionDir)).toEqual([]);
    },
    SESSION_TEST_MS,
  );

  test(
    "a provider failing with HTTP 500 is stopped when the session makes no progress, with the provider's error",
    async () => {
      const root = testTempDir("h2-oc5-");
      const req = request(root, { timeoutS: 300 });
      await server?.stop();
      server = startChatServer([{ fail: { status: 500, message: "upstream is down" } }]);
      // OpenCode retries 5xx on its own and prints nothing meanwhile: only its log says why. The
      // idle limit must outlast its start-up to the first (failing) request, which takes longer
      // on a busy machine: three times what the first session took (twice missed once under a
      // loaded suite), at least 6 s.
      const idleS = Math.max(6, Math.ceil(3 * firstRequestS) + 2);
      const env = { ...channelEnv(server.url), HARNESS2_SESSION_IDLE_TIMEOUT: String(idleS) };
      const ch = new OpencodeChannel({ env, graceS: 2 });
      const result = await ch.run(req);
      expect(result.timedOut).toBe(false);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(result.error).toStartWith(
        `stopped: no progress: the session printed nothing for ${idleS}s`,
      );
      expect(result.error).toContain("upstream is down");
      expect(processesMentioning(req.sessionDir)).toEqual([]);
    },
    SESSION_TEST_MS,
  );

  test("a bad HARNESS2_SESSION_IDLE_TIMEOUT is one setup error naming it", () => {
    expect(
      () => new OpencodeChannel({ env: { ...process.env, HARNESS2_SESSION_IDLE_TIMEOUT: "soon" } }),
    ).toThrow(ChannelSetupError);
  });
});
