// The OpenCode trajectory renderer on a stream recorded from the real binary (spec/06 §2 shapes)
// and on hand-made events for the malformed cases the original crashed on (spec/01 §10.16).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  capTrajectory,
  clipText,
  middleTruncationMarker,
  renderTrajectory,
  renderTrajectoryFile,
  truncationMarker,
} from "../../src/substrate/opencode/render.ts";

/** Every temporary directory of this file lives here and is removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), "h2-render-test-"));
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const RECORDED = readFileSync(join(import.meta.dir, "fixtures/opencode-stream.jsonl"), "utf8");
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
    ]);
    expect(out.startsWith("[THINKING] I should read the notes first.\n")).toBe(true);
    expect(out).toContain('[ACTION] read({"filePath":"notes.txt"})');
    expect(out).toContain('[ACTION] write({"filePath":"/etc/forbidden.txt","content":"x"})');
    expect(out).toContain("[OBSERVATION ERROR] The user has specified a rule which prevents you");
    // A non-zero shell exit is visible; `{}` arguments are rendered (the original dropped them).
    expect(out).toContain("[OBSERVATION] notes.txt | exit_code=3");
    expect(out).toContain("[ACTION] todowrite({})");
    expect(out.endsWith("[ASSISTANT] Saved output/answer.md.")).toBe(true);
    // step_start / step_finish carry no trajectory content.
    expect(out).not.toContain("step");
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
