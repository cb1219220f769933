// The real Proposer over the real OpencodeChannel and the REAL opencode binary, against the
// scripted chat server: the harvest, the cache, and retries of a hanging model. Three OpenCode
// sessions in all (one edit, then two short timed-out attempts), run one after another.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../../fixtures/servers/chat-server.ts";
import type { RecordedRequest, ScriptedServer } from "../../../fixtures/servers/script.ts";
import { OpencodeChannel } from "../../../src/channels/opencode-channel.ts";
import { RecordingSink } from "../../../src/core/events/sink.ts";
import { Limiter } from "../../../src/core/lib/limiter.ts";
import { Proposer } from "../../../src/core/proposer/proposer.ts";
import {
  type Channel,
  type ChannelRequest,
  type ChannelResult,
  ProposerError,
} from "../../../src/core/seams/channel.ts";
import { ChannelSpec } from "../../../src/core/seams/channel-spec.ts";
import { SESSION_TEST_MS, scriptedOpencodeEnv, stepCost } from "../../helpers/opencode.ts";
import { processesMentioning, zombieChildren } from "../../helpers/procs.ts";

/**
 * Seconds per attempt of the hanging call: twice what the edit session (run first) took to ask
 * for its turn 1, at least 8 s. Idle, OpenCode asks ~3–4 s after it starts, so the two attempts
 * cost ~20 s; on a loaded 2-core machine start-up alone can take 30 s, and a fixed short timeout
 * would then kill each session before it reached the model. Run alone, the test allows 30 s.
 */
let hangTimeoutS = 30;
const MIN_HANG_TIMEOUT_S = 8;
const ONE_STEP = stepCost(100, 20);

/** Delegates to the real channel and counts the sessions it was asked to run. */
class CountingChannel implements Channel {
  readonly kind: string;
  runs = 0;
  constructor(private readonly inner: Channel) {
    this.kind = inner.kind;
  }
  run(req: ChannelRequest): Promise<ChannelResult> {
    this.runs++;
    return this.inner.run(req);
  }
}

let root: string;
let runs: string;
let evidence: string;
let server: ScriptedServer | undefined;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-prop-oc-"));
  runs = join(root, "runs");
  evidence = join(runs, "ns", "task", "context", "inv1");
  mkdirSync(join(evidence, "harness"), { recursive: true });
  writeFileSync(join(evidence, "harness", "systemprompt.md"), "You are terse.\n");
  writeFileSync(join(evidence, "task.md"), "Add up the numbers.\n");
});

afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

function proposerFor(
  url: string,
  tmpRoot: string,
  over: { timeout?: number; sink?: RecordingSink } = {},
) {
  const channel = new CountingChannel(
    new OpencodeChannel({ env: scriptedOpencodeEnv(url), graceS: 2 }),
  );
  const proposer = new Proposer({
    channel,
    spec: ChannelSpec.parse({
      kind: "opencode",
      model: "local/mock-model",
      steps: 10,
      timeout: over.timeout ?? 120,
    }),
    auditDir: join(runs, "audit"),
    runsRoot: runs,
    attempts: 2,
    backoffS: 0,
    tmpRoot,
    limiter: new Limiter(1),
    ...(over.sink ? { sink: over.sink } : {}),
  });
  return { channel, proposer };
}

const turnRequests = (s: ScriptedServer, turn: number) =>
  s.requests.filter((r) => r.role === "turn" && r.turn === turn).length;

describe("Proposer over the real OpenCode channel", () => {
  test(
    "the scripted edit comes back harvested; the same call again is a cache hit with no session",
    async () => {
      let turn1At = 0;
      const onRequest = (r: RecordedRequest) => {
        if (r.role === "turn" && r.turn === 1 && turn1At === 0) turn1At = Date.now();
      };
      server = startChatServer(
        [
          {
            text: "Editing the prompt.",
            toolCalls: [
              {
                name: "edit",
                arguments: {
                  filePath: "context/harness/systemprompt.md",
                  oldString: "You are terse.",
                  newString: "You are terse and re-add every total.",
                },
              },
            ],
          },
          { text: "<notes>- systemprompt.md: re-add totals</notes>" },
        ],
        { onRequest },
      );
      const tmpRoot = mkdtempSync(join(root, "edit-"));
      const { channel, proposer } = proposerFor(server.url, tmpRoot);
      const call = () =>
        proposer.call("Improve the harness.", evidence, "edit", { harvest: "context/harness" });

      const started = Date.now();
      const fresh = await call();
      expect(turn1At).toBeGreaterThan(0);
      hangTimeoutS = Math.max(MIN_HANG_TIMEOUT_S, Math.ceil((2 * (turn1At - started)) / 1000));
      expect(fresh.cached).toBe(false);
      expect(fresh.attempts).toBe(1);
      expect(fresh.text).toContain("<notes>- systemprompt.md: re-add totals</notes>");
      expect(fresh.usd).toBeCloseTo(2 * ONE_STEP, 9);
      expect(fresh.workspace).not.toBeNull();
      const harvested = join(fresh.workspace as string, "systemprompt.md");
      expect(readFileSync(harvested, "utf8")).toBe("You are terse and re-add every total.\n");
      // The session edited a copy: the evidence itself is untouched.
      expect(readFileSync(join(evidence, "harness", "systemprompt.md"), "utf8")).toBe(
        "You are terse.\n",
      );
      expect(channel.runs).toBe(1);
      const requestsAfterFresh = server.requests.length;
      expect(turnRequests(server, 0)).toBe(1);
      expect(processesMentioning(tmpRoot)).toEqual([]);

      const again = await call();
      expect(again.cached).toBe(true);
      expect(again.attempts).toBe(0);
      expect(again.usd).toBe(0);
      expect(again.text).toBe(fresh.text);
      expect(again.workspace).toBe(fresh.workspace);
      expect(readFileSync(harvested, "utf8")).toBe("You are terse and re-add every total.\n");
      // No session was started and nothing reached the model.
      expect(channel.runs).toBe(1);
      expect(server.requests.length).toBe(requestsAfterFresh);
    },
    SESSION_TEST_MS,
  );
  test(
    "a hanging model: both attempts time out, no process is left, and their spend is counted",
    async () => {
      await server?.stop();
      // Turn 0 completes (a priced step), turn 1 never answers: each attempt spends one step.
      server = startChatServer([
        { toolCalls: [{ name: "read", arguments: { filePath: "MISSION.md" } }] },
        { hang: true },
      ]);
      const tmpRoot = mkdtempSync(join(root, "hang-"));
      const sink = new RecordingSink();
      const { channel, proposer } = proposerFor(server.url, tmpRoot, {
        timeout: hangTimeoutS,
        sink,
      });
      const started = Date.now();
      const err = await proposer
        .call("Improve the harness.", evidence, "hang", { harvest: "context/harness" })
        .then(
          () => null,
          (e: unknown) => e,
        );
      const wallS = (Date.now() - started) / 1000;

      expect(err).toBeInstanceOf(ProposerError);
      const pe = err as ProposerError;
      expect(pe.attempts).toBe(2);
      expect(pe.message).toContain(`timeout after ${hangTimeoutS}s`);
      expect(channel.runs).toBe(2);
      // Each attempt was a fresh session that reached the model and then hung on turn 1.
      expect(turnRequests(server, 0)).toBe(2);
      expect(turnRequests(server, 1)).toBe(2);
      // The spend of the two killed sessions (one priced step each) is counted, not dropped.
      expect(pe.usd).toBeCloseTo(2 * ONE_STEP, 9);
      const [event] = sink.ofType("proposer.call");
      expect(event?.attempts).toBe(2);
      expect(event?.usd).toBeCloseTo(2 * ONE_STEP, 9);
      expect(event?.cached).toBe(false);
      // Killed at the timeout (plus the 2 s grace), not left to OpenCode's own retries.
      expect(wallS).toBeLessThan(2 * (hangTimeoutS + 2) + 20);
      expect(processesMentioning(tmpRoot)).toEqual([]);
      expect(zombieChildren()).toEqual([]);
      // A failed call is never served from the cache: its meta says so.
      const meta = readdirSync(join(runs, "audit")).filter(
        (n) => n.startsWith("hang.") && n.endsWith(".meta.json"),
      );
      expect(meta.length).toBe(1);
      const m = JSON.parse(readFileSync(join(runs, "audit", meta[0] as string), "utf8"));
      expect(m.ok).toBe(false);
      expect(m.cost_usd).toBeCloseTo(2 * ONE_STEP, 9);
    },
    SESSION_TEST_MS,
  );
});
