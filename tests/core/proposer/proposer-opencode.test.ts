// The real Proposer over the real OpencodeChannel and the REAL opencode binary, against the
// scripted chat server: the harvest and the cache, in one OpenCode session. What the proposer does
// with a session that fails or times out (retries, the spend of every attempt, never cached) is
// tested through the channel seam in proposer.test.ts; that the real binary is killed at its
// timeout with its spend kept is tested once, in tests/channels/opencode-channel.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatServer } from "../../../fixtures/servers/chat-server.ts";
import type { ScriptedServer } from "../../../fixtures/servers/script.ts";
import { OpencodeChannel } from "../../../src/channels/opencode-channel.ts";
import { Limiter } from "../../../src/core/lib/limiter.ts";
import { Proposer } from "../../../src/core/proposer/proposer.ts";
import type { Channel, ChannelRequest, ChannelResult } from "../../../src/core/seams/channel.ts";
import { ChannelSpec } from "../../../src/core/seams/channel-spec.ts";
import { SESSION_TEST_MS, scriptedOpencodeEnv, stepCost } from "../../helpers/opencode.ts";
import { processesMentioning } from "../../helpers/procs.ts";

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

function proposerFor(url: string, tmpRoot: string) {
  const channel = new CountingChannel(
    new OpencodeChannel({ env: scriptedOpencodeEnv(url), graceS: 2 }),
  );
  const proposer = new Proposer({
    channel,
    spec: ChannelSpec.parse({
      kind: "opencode",
      model: "local/mock-model",
      steps: 10,
      timeout: 120,
    }),
    auditDir: join(runs, "audit"),
    runsRoot: runs,
    attempts: 2,
    backoffS: 0,
    tmpRoot,
    limiter: new Limiter(1),
  });
  return { channel, proposer };
}

const turnRequests = (s: ScriptedServer, turn: number) =>
  s.requests.filter((r) => r.role === "turn" && r.turn === turn).length;

describe("Proposer over the real OpenCode channel", () => {
  test(
    "the scripted edit comes back harvested; the same call again is a cache hit with no session",
    async () => {
      server = startChatServer([
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
      ]);
      const tmpRoot = mkdtempSync(join(root, "edit-"));
      const { channel, proposer } = proposerFor(server.url, tmpRoot);
      const call = () =>
        proposer.call("Improve the harness.", evidence, "edit", { harvest: "context/harness" });

      const fresh = await call();
      expect(fresh.cached).toBe(false);
      expect(fresh.attempts).toBe(1);
      // No output/answer.md: the reply is the session's text parts, joined.
      expect(fresh.text).toBe(
        "Editing the prompt.\n\n<notes>- systemprompt.md: re-add totals</notes>",
      );
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
});
