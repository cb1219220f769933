// How a finished run ends (issue 35): the verdict line and the next commands, from the events.
import { describe, expect, test } from "bun:test";
import { SweepTally } from "../../src/cli/sweep/sweep-tally.ts";
import { verdictLines } from "../../src/cli/sweep/sweep-verdict.ts";
import type { HarnessEvent } from "../../src/core/events/registry.ts";

const sweep = "swp_test";
function sink(events: object[]): SweepTally {
  const s = new SweepTally();
  for (const e of events) s.emit({ ts: 1, sweep, ...e } as HarnessEvent);
  return s;
}
const finished = (status: string, ok: number, failed: number, skipped: number) => ({
  type: "sweep.finished",
  status,
  tasksOk: ok,
  tasksFailed: failed,
  tasksSkipped: skipped,
  usd: 1.5,
  wallS: 3,
});
const lesson = (domain: string, mode: string, restored = false) => ({
  type: "library.added",
  domain,
  task: "t1",
  mode,
  k: 1,
  entry: "e",
  cue: "c",
  lesson: "l",
  confidence: "high",
  path: "/x",
  ...(restored ? { restored } : {}),
});

describe("the verdict a run ends with", () => {
  test("counts, lessons, spend and the commands to judge, report, export and show", () => {
    const lines = verdictLines({
      events: sink([lesson("finance", "agg"), lesson("finance", "seq"), finished("ok", 2, 0, 1)]),
      sweep,
      self: "harness2",
      runsFlag: " --runs /r",
    });
    expect(lines).toContain(
      "Verdict: 2 tasks adapted, 0 failed, 1 already done; 2 lessons stored in the library; $1.50 spent.",
    );
    expect(lines.join("\n")).toContain("harness2 judge swp_test --bases --runs /r");
    expect(lines.join("\n")).toContain("harness2 report swp_test --runs /r");
    expect(lines.join("\n")).toContain(
      "harness2 harness export ./adapted-harness --domain finance --mode sequential --runs /r",
    );
  });

  test("a failed task is named with show; restored lessons are not counted as new", () => {
    const lines = verdictLines({
      events: sink([
        lesson("finance", "agg", true),
        {
          type: "task.finished",
          domain: "finance",
          task: "t9",
          k: 1,
          status: "failed",
          modes: {},
          usd: 0,
          wallS: 1,
          error: "x",
        },
        finished("failed", 0, 1, 0),
      ]),
      sweep,
      self: "harness2",
      runsFlag: "",
    });
    expect(lines.join("\n")).toContain("0 lessons stored");
    expect(lines.join("\n")).toContain("harness2 show swp_test   what went wrong in t9");
    expect(lines.join("\n")).toContain("--domain finance");
  });

  test("an interrupted or unfinished sweep has no verdict (its own line says how to resume)", () => {
    expect(
      verdictLines({
        events: sink([finished("interrupted", 1, 0, 0)]),
        sweep,
        self: "h",
        runsFlag: "",
      }),
    ).toEqual([]);
    expect(verdictLines({ events: sink([]), sweep, self: "h", runsFlag: "" })).toEqual([]);
  });
});

describe("the sweep's tally", () => {
  test("keeps only what the ending reads, however many events pass through it", () => {
    const s = new SweepTally();
    const event = (e: object) => s.emit({ ts: 1, sweep, ...e } as HarnessEvent);
    event({ type: "task.started", domain: "d", task: "t1", k: 1 });
    for (let i = 0; i < 10_000; i++) {
      event({ type: "stage.started", domain: "d", task: "t1", k: 1, mode: "agg", stage: "inv1" });
    }
    event({ type: "task.skipped", domain: "d", task: "t2", k: 1, reason: "done" });
    expect(s.seen).toBe(10_002);
    expect(s.held()).toBe(2);
    expect(s.ofType("task.started").map((e) => e.task)).toEqual(["t1"]);
    expect(s.ofType("task.skipped").map((e) => e.task)).toEqual(["t2"]);
    expect(s.ofType("sweep.finished")).toEqual([]);
  });
});
