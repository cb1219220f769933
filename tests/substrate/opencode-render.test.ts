// The OpenCode trajectory renderer on a stream recorded from the real binary (docs/architecture.md
// "Agent CLIs offline" shapes) and on hand-made events for the malformed cases the original crashed
// on (docs/differences.md H16).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readOpencodeStream } from "../../src/agent-cli/opencode-stream.ts";
import { StepWatch } from "../../src/agent-cli/opencode-watch.ts";
import { countStream } from "../../src/benchmarks/lab/lab-metrics.ts";
import {
  capTrajectory,
  clipText,
  middleTruncationMarker,
  truncationMarker,
} from "../../src/core/evidence/clip.ts";
import { GRADER_VERDICT_MARKERS } from "../../src/core/safety/markers.ts";
import { forbiddenWordsIn } from "../../src/core/seams/bench-prompts.ts";
import { renderTrajectory, renderTrajectoryFile } from "../../src/substrate/opencode/render.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-render-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const RECORDED = readFileSync(join(import.meta.dir, "fixtures/opencode-stream.jsonl"), "utf8");
/** Six recorded steps of 100 input / 20 output tokens, 0.00014 USD each (docs/architecture.md "Agent CLIs offline"). */
const RECORDED_USAGE =
  "[HARNESS] session usage | steps=6 tokens in=600 cached=0 out=120 reasoning=0 usd=0.000840";
const line = (o: unknown) => JSON.stringify(o);
const render = (events: unknown[], obsTrunc = 50_000, maxChars = 0) =>
  renderTrajectory(events.map(line).join("\n"), { obsTrunc, maxChars });

describe("renderTrajectory on a recorded opencode stream", () => {
  test("renders thinking, text, tool calls, observations and tool errors in order", () => {
    const out = renderTrajectory(RECORDED, { obsTrunc: 50_000, maxChars: 0 });
    const tags = out
      .split("\n")
      .filter((l) => l.startsWith("["))
      .map((l) => l.slice(0, l.indexOf("]") + 1));
    expect(tags).toEqual([
      "[THINKING]",
      "[ASSISTANT]",
      "[ACTION]",
      "[OBSERVATION]",
      "[ACTION]",
      "[OBSERVATION ERROR]",
      "[ACTION]",
      "[OBSERVATION]",
      "[ACTION]",
      "[OBSERVATION ERROR]",
      "[ACTION]",
      "[OBSERVATION]",
      "[ASSISTANT]",
      "[HARNESS]",
    ]);
    expect(out.startsWith("[THINKING] I should read the notes first.\n")).toBe(true);
    expect(out).toContain('[ACTION] read({"filePath":"notes.txt"})');
    expect(out).toContain('[ACTION] write({"filePath":"/etc/forbidden.txt","content":"x"})');
    expect(out).toContain("[OBSERVATION ERROR] The user has specified a rule which prevents you");
    // A non-zero shell exit is visible; `{}` arguments are rendered (the original dropped them).
    expect(out).toContain("[OBSERVATION] notes.txt | exit_code=3");
    expect(out).toContain("[ACTION] todowrite({})");
    // The last content line, then the session's token usage summed over its step_finish events.
    expect(out.endsWith(`[ASSISTANT] Saved output/answer.md.\n${RECORDED_USAGE}`)).toBe(true);
    // step_start carries nothing; step_finish only feeds the usage line.
    expect(out.replace(RECORDED_USAGE, "")).not.toContain("step");
  });

  test("clips observations at obs_trunc and arguments at 400 with explicit markers", () => {
    const long = "x".repeat(1000);
    const out = render(
      [
        {
          type: "tool_use",
          part: {
            type: "tool",
            tool: "write",
            callID: "c1",
            state: { status: "completed", input: { content: long }, output: "y".repeat(700) },
          },
        },
      ],
      500,
    );
    const [action, obs] = out.split("\n");
    const args = JSON.stringify({ content: long });
    expect(action).toBe(
      `[ACTION] write(${args.slice(0, 400)}${truncationMarker(args.length - 400)})`,
    );
    expect(obs).toBe(`[OBSERVATION] ${"y".repeat(500)}${truncationMarker(200)}`);
    expect(truncationMarker(200)).toBe("…(+200 chars — render truncation)");
  });
});

describe("renderTrajectory on malformed and unusual events", () => {
  test("error events: object data, string data, bare name, string error, type-only", () => {
    const out = render([
      { type: "error", error: { name: "APIError", data: { message: "Invalid request: bad" } } },
      { type: "error", error: { name: "UnknownError", data: "provider exploded" } },
      { type: "error", error: { name: "TimeoutError" } },
      { type: "error", error: "plain string error" },
      { type: "error", sessionID: "s" },
    ]);
    expect(out.split("\n")).toEqual([
      "[ERROR] Invalid request: bad",
      "[ERROR] provider exploded",
      "[ERROR] TimeoutError",
      "[ERROR] plain string error",
      '[ERROR] {"type":"error","sessionID":"s"}',
    ]);
  });

  test("never crashes on list-valued types, string toolInvocation, junk lines", () => {
    const text = [
      line({ type: ["text", "x"], part: { type: ["text"], text: "hidden" } }),
      line({ type: "tool_use", part: { type: "tool-invocation", toolInvocation: "oops" } }),
      "not json",
      "{broken",
      "[1,2]",
      line(null),
      line({ type: "text", part: { type: "text", text: "   " } }),
      line({ type: "text", part: { type: "text", text: "visible" } }),
    ].join("\n");
    expect(renderTrajectory(text, { obsTrunc: 50_000, maxChars: 0 })).toBe(
      "[ACTION] tool()\n[ASSISTANT] visible",
    );
  });

  test("repeated states of one tool call render once, at the first position, latest state", () => {
    const call = (status: string, extra: Record<string, unknown>) => ({
      type: "tool_use",
      part: {
        type: "tool",
        tool: "bash",
        callID: "call_7",
        state: { status, input: { command: "make" }, ...extra },
      },
    });
    const out = render([
      call("running", {}),
      { type: "text", part: { type: "text", text: "waiting" } },
      call("completed", { output: "built" }),
    ]);
    expect(out.split("\n")).toEqual([
      '[ACTION] bash({"command":"make"})',
      "[OBSERVATION] built",
      "[ASSISTANT] waiting",
    ]);
  });

  test("non-string outputs render as JSON; empty and missing outputs say so", () => {
    const tool = (id: string, state: Record<string, unknown>) => ({
      type: "tool_use",
      part: { type: "tool", tool: "t", callID: id, state },
    });
    const out = render([
      tool("a", { status: "completed", input: {}, output: { rows: [1, 2] } }),
      tool("b", { status: "completed", input: { q: 1 }, output: "" }),
      tool("c", { status: "running", input: { q: 2 } }),
      tool("d", { status: "error", input: { q: 3 } }),
    ]);
    expect(out.split("\n")).toEqual([
      "[ACTION] t({})",
      '[OBSERVATION] {"rows":[1,2]}',
      '[ACTION] t({"q":1})',
      "[OBSERVATION] (empty output)",
      '[ACTION] t({"q":2})',
      "[OBSERVATION] (no output: the call was still running when the event stream ended)",
      '[ACTION] t({"q":3})',
      "[OBSERVATION ERROR] (no error text)",
    ]);
  });

  test("an empty stream and an unreadable file render as one explanatory line", async () => {
    expect(renderTrajectory("", { obsTrunc: 50_000, maxChars: 0 })).toBe(
      "(no parseable events in trajectory)",
    );
    const missing = join(mkdtempSync(join(SCRATCH, "h2-render-")), "nope.jsonl");
    expect(await renderTrajectoryFile(missing, { obsTrunc: 50_000, maxChars: 0 })).toMatch(
      /^\(failed to read trajectory: .*nope\.jsonl/,
    );
  });

  test("NUL characters are removed and a surrogate pair is never split by a clip", () => {
    expect(clipText("a\0b", 10)).toBe("ab");
    const clipped = clipText("ab😀cd", 3);
    expect(clipped.startsWith("ab…")).toBe(true);
    expect(clipped).toBe(`ab${truncationMarker(4)}`);
  });
});

describe("token usage (docs/differences.md H16)", () => {
  const finish = (id: string, tokens: unknown, cost?: unknown) => ({
    type: "step_finish",
    part: {
      id,
      type: "step-finish",
      reason: "stop",
      tokens,
      ...(cost === undefined ? {} : { cost }),
    },
  });
  const text = (t: string) => ({ type: "text", part: { type: "text", text: t } });
  const tokens = (input: number, output: number, reasoning: number, read: number) => ({
    total: input + output,
    input,
    output,
    reasoning,
    cache: { write: 0, read },
  });

  test("one line at the end sums every step's tokens and cost", () => {
    const out = render([
      text("first"),
      finish("p1", tokens(1000, 50, 10, 400), 0.0021),
      text("second"),
      finish("p2", tokens(2000, 70, 0, 1500), 0.0035),
    ]);
    expect(out.split("\n")).toEqual([
      "[ASSISTANT] first",
      "[ASSISTANT] second",
      "[HARNESS] session usage | steps=2 tokens in=3000 cached=1900 out=120 reasoning=10 usd=0.005600",
    ]);
  });

  test("a repeated step_finish counts once; missing fields count nothing; no cost, no usd", () => {
    const out = render([
      finish("p1", tokens(10, 1, 0, 0)),
      finish("p1", tokens(10, 1, 0, 0)),
      finish("p2", { input: 5 }),
      finish("p3", "junk", "0.5"),
      text("done"),
    ]);
    expect(out.split("\n")).toEqual([
      "[ASSISTANT] done",
      "[HARNESS] session usage | steps=3 tokens in=15 cached=0 out=1 reasoning=0",
    ]);
  });

  test("a stream with no step_finish has no usage line; usage alone still renders", () => {
    expect(render([text("only text")])).toBe("[ASSISTANT] only text");
    expect(render([finish("p1", tokens(7, 3, 0, 0), 0)])).toBe(
      "[HARNESS] session usage | steps=1 tokens in=7 cached=0 out=3 reasoning=0 usd=0.000000",
    );
  });

  test("the usage line survives the middle cut and is never clipped", () => {
    const events: unknown[] = Array.from({ length: 300 }, (_, i) =>
      text(`step ${i} ${"z".repeat(60)}`),
    );
    events.push(finish("p", tokens(123456, 789, 0, 0), 1.5));
    const capped = render(events, 10, 3000);
    expect(capped).toContain("render truncation: the middle");
    expect(
      capped.endsWith(
        "[HARNESS] session usage | steps=1 tokens in=123456 cached=0 out=789 reasoning=0 usd=1.500000",
      ),
    ).toBe(true);
  });

  test("the usage line trips neither the verdict markers nor the forbidden words", () => {
    const out = renderTrajectory(RECORDED, { obsTrunc: 50_000, maxChars: 0 });
    const usage = out.split("\n").at(-1) as string;
    expect(usage).toBe(RECORDED_USAGE);
    for (const marker of GRADER_VERDICT_MARKERS) expect(usage).not.toContain(marker);
    expect(forbiddenWordsIn(usage)).toEqual([]);
  });
});

describe("whole-trajectory cap", () => {
  test("over the cap the beginning AND the end are kept with a middle marker", () => {
    const events = Array.from({ length: 400 }, (_, i) => ({
      type: "text",
      part: { type: "text", text: `step ${String(i).padStart(3, "0")} ${"z".repeat(40)}` },
    }));
    const full = render(events);
    const capped = render(events, 50_000, 5000);
    expect(full.length).toBeGreaterThan(5000);
    expect(capped.startsWith("[ASSISTANT] step 000")).toBe(true);
    expect(capped.endsWith(`[ASSISTANT] step 399 ${"z".repeat(40)}`)).toBe(true);
    const lines = capped.split("\n");
    const marker = lines.find((l) => l.includes("render truncation")) as string;
    const dropped = Number(/\+(\d+) chars/.exec(marker)?.[1]);
    expect(marker).toBe(middleTruncationMarker(dropped, 5000));
    // Only the marker is added: head + tail + the dropped middle is the whole text.
    expect(capped.length - marker.length - 2 + dropped).toBe(full.length);
    // Cut at line boundaries: every kept line is a whole rendered line.
    for (const l of lines) if (l !== marker) expect(l).toMatch(/^\[ASSISTANT\] step \d{3} z{40}$/);
  });

  test("under the cap, or with no cap, the text is unchanged", () => {
    expect(capTrajectory("abc", 3)).toBe("abc");
    expect(capTrajectory("abcdef", 0)).toBe("abcdef");
  });
});

test("a file on disk renders like its text", async () => {
  const dir = mkdtempSync(join(SCRATCH, "h2-render-"));
  const path = join(dir, "s.jsonl");
  writeFileSync(path, RECORDED);
  expect(await renderTrajectoryFile(path, { obsTrunc: 100, maxChars: 0 })).toBe(
    renderTrajectory(RECORDED, { obsTrunc: 100, maxChars: 0 }),
  );
});

describe("one recorded OpenCode stream, one tool-call count (issue 32)", () => {
  test("the trajectory's actions, the stream facts, the step watch and LAB's metrics agree", () => {
    // The recorded stream, plus one call seen twice (running, then completed) that reads a
    // document, and a step reported twice under one id: each counts once everywhere.
    const stream = [
      RECORDED.trimEnd(),
      line({
        type: "tool_use",
        part: { type: "tool", tool: "read", callID: "c9", state: { status: "running", input: {} } },
      }),
      line({
        type: "tool_use",
        part: {
          type: "tool",
          tool: "read",
          callID: "c9",
          state: { status: "completed", input: { filePath: "documents/a.md" }, output: "A" },
        },
      }),
      line({ type: "step_finish", part: { id: "s9", type: "step-finish", tokens: { input: 5 } } }),
      line({ type: "step_finish", part: { id: "s9", type: "step-finish", tokens: { input: 7 } } }),
    ].join("\n");
    const actions = renderTrajectory(stream, { obsTrunc: 50, maxChars: 0 });
    const actionCount = actions.split("\n").filter((l) => l.startsWith("[ACTION]")).length;
    const facts = readOpencodeStream(stream);
    const watch = new StepWatch(100, () => {});
    watch.feed(Buffer.from(stream, "utf8"));
    watch.done();
    const file = join(mkdtempSync(join(SCRATCH, "h2-count-")), "opencode.jsonl");
    writeFileSync(file, stream);
    const metrics = countStream(file);

    // The recorded stream's five calls (docs/architecture.md "Agent CLIs offline") and c9.
    expect(actionCount).toBe(6);
    expect(facts.toolCalls).toBe(6);
    expect(watch.parsed().toolCalls).toBe(6);
    expect(metrics.toolCalls).toBe(6);
    expect(metrics.documentsRead).toBe(1);
    // Six recorded steps of 100 input tokens and the repeated one at its latest usage.
    expect(facts.steps).toBe(7);
    expect(facts.tokens.input).toBe(607);
    expect(metrics.tokens.input).toBe(607);
    expect(actions).toContain("steps=7 tokens in=607");
  });
});
