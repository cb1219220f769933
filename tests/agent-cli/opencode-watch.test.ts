// The OpenCode step watch on synthetic event streams: when a session counts as a runaway and what
// it says, without starting any process.
import { describe, expect, test } from "bun:test";
import { readOpencodeStream } from "../../src/agent-cli/opencode-stream.ts";
import {
  EMPTY_STEPS_LIMIT,
  STEP_CAP_MARGIN,
  StepWatch,
} from "../../src/agent-cli/opencode-watch.ts";

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const stepFinish = line({ type: "step_finish", part: { type: "step-finish", reason: "unknown" } });
const text = (t: string) => line({ type: "text", part: { type: "text", text: t } });
const tool = line({ type: "tool_use", part: { type: "tool", tool: "read" } });
const error = (m: string) =>
  line({ type: "error", error: { name: "APIError", data: { message: m } } });

function watch(cap: number, opts = {}) {
  const stops: string[] = [];
  const w = new StepWatch(cap, (r) => stops.push(r), opts);
  return { w, stops };
}

describe("StepWatch", () => {
  test("steps without content in a row stop the session once, saying so", () => {
    const { w, stops } = watch(100);
    for (let i = 0; i < EMPTY_STEPS_LIMIT - 1; i++) w.feed(stepFinish);
    expect(stops).toEqual([]);
    w.feed(stepFinish + stepFinish);
    expect(stops).toEqual([
      `the model returned no content for ${EMPTY_STEPS_LIMIT} steps in a row`,
    ]);
    expect(w.stopReason).toBe(stops[0] as string);
  });

  test("content in a step resets the count; lines may arrive in pieces", () => {
    const { w, stops } = watch(100);
    for (let i = 0; i < 20; i++) {
      const chunk = (i % 3 === 0 ? text("working") : tool) + stepFinish;
      w.feed(chunk.slice(0, 7));
      w.feed(chunk.slice(7));
    }
    expect(stops).toEqual([]);
    expect(w.steps).toBe(20);
  });

  test("a session past its step cap plus the margin is stopped", () => {
    const { w, stops } = watch(3);
    for (let i = 0; i < 3 + STEP_CAP_MARGIN; i++) w.feed(tool + stepFinish);
    expect(stops).toEqual([]);
    w.feed(tool + stepFinish);
    expect(stops).toEqual([`the session took ${4 + STEP_CAP_MARGIN} steps, past its cap of 3`]);
  });

  test("error events in a row stop it, naming the CLI's last error", () => {
    const { w, stops } = watch(100);
    for (let i = 0; i < EMPTY_STEPS_LIMIT; i++) w.feed(error(`HTTP 500 try ${i}`));
    expect(stops[0]).toBe(
      `the provider failed ${EMPTY_STEPS_LIMIT} times in a row: HTTP 500 try ${EMPTY_STEPS_LIMIT - 1}`,
    );
  });

  test("silence past the idle limit stops it with the CLI's logged error", async () => {
    const reason = await new Promise<string>((resolve) => {
      new StepWatch(100, resolve, { idleS: 0.05, lastLogged: () => "AI_APICallError: 429" });
    });
    expect(reason).toBe(
      "no progress: the session printed nothing for 0.05s (the CLI's last error: AI_APICallError: 429)",
    );
  });

  test("an idle limit longer than a timer can hold still waits (it used to fire at once)", async () => {
    const stops: string[] = [];
    const w = new StepWatch(100, (r) => stops.push(r), { idleS: 3_000_000 });
    await Bun.sleep(100);
    w.done();
    expect(stops).toEqual([]);
  });

  test("what it reads as the stream arrives is what the stream's file says, chunks cut anywhere", () => {
    const cost = (c: unknown) =>
      line({ type: "step_finish", part: { type: "step-finish", cost: c } });
    const stream =
      "Performing one time database migration\n" +
      text("prix: 12 € — fini ✓") +
      tool +
      cost(0.0012345) +
      error("HTTP 500") +
      line({ type: "text", part: { type: "text", text: "   " } }) +
      cost("free") +
      "not json {\n" +
      JSON.stringify({ type: "text", part: { type: "text", text: "last, unterminated" } });
    const bytes = Buffer.from(stream, "utf8");
    for (const size of [1, 2, 3, 7, 64, bytes.length]) {
      const w = new StepWatch(100, () => {});
      for (let at = 0; at < bytes.length; at += size) w.feed(bytes.subarray(at, at + size));
      w.done();
      expect(w.parsed()).toEqual(readOpencodeStream(stream));
    }
    expect(readOpencodeStream(stream).texts).toEqual(["prix: 12 € — fini ✓", "last, unterminated"]);
  });

  test("a 20 MB event in 64 KB chunks is one whole event, and the lines around it stay whole", () => {
    const big = "x".repeat(20 * 1024 * 1024);
    const stream = text("before") + text(big) + text("after") + stepFinish;
    const bytes = Buffer.from(stream, "utf8");
    const w = new StepWatch(100, () => {});
    for (let at = 0; at < bytes.length; at += 65_536) w.feed(bytes.subarray(at, at + 65_536));
    w.done();
    const run = w.parsed();
    expect(run.texts.length).toBe(3);
    expect(run.texts[0]).toBe("before");
    expect(run.texts[1]?.length).toBe(big.length);
    expect(run.texts[2]).toBe("after");
    expect(w.steps).toBe(1);
  });
});
