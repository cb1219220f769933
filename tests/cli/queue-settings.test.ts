// The pure parts of the fleet (docs/guide/many-machines.md): the queue's settings from the
// environment, when a domain is handed on before pg-boss expires it, what of the planner's
// command line a domain job carries, and how a job's child learns its worker.

import { describe, expect, test } from "bun:test";
import {
  domainKey,
  handOnAfterS,
  isOpen,
  MAX_EXPIRE_S,
  queueSettings,
} from "../../src/cli/queue/domain-queue.ts";
import { jobArgv } from "../../src/cli/queue/plan.ts";
import { workerOf } from "../../src/cli/queue/worker-env.ts";

describe("queueSettings", () => {
  test("defaults: a 30 s heartbeat, 5 retries, pg-boss's 24 h limit, a 2 s poll", () => {
    expect(queueSettings({})).toEqual({ heartbeatS: 30, retries: 5, expireS: 86_400, pollS: 2 });
  });

  test("each variable sets its value; an expiry past 24 h is held at 24 h", () => {
    const s = queueSettings({
      HARNESS2_QUEUE_HEARTBEAT_S: "10",
      HARNESS2_QUEUE_RETRIES: "0",
      HARNESS2_QUEUE_EXPIRE_S: "999999",
      HARNESS2_QUEUE_POLL_S: "1",
    });
    expect(s).toEqual({ heartbeatS: 10, retries: 0, expireS: MAX_EXPIRE_S, pollS: 1 });
    expect(queueSettings({ HARNESS2_QUEUE_EXPIRE_S: " " }).expireS).toBe(MAX_EXPIRE_S);
  });

  test.each([
    ["HARNESS2_QUEUE_HEARTBEAT_S", "9", "≥ 10"],
    ["HARNESS2_QUEUE_RETRIES", "-1", "≥ 0"],
    ["HARNESS2_QUEUE_EXPIRE_S", "59", "≥ 60"],
    ["HARNESS2_QUEUE_POLL_S", "1.5", "≥ 1"],
    ["HARNESS2_QUEUE_POLL_S", "often", "≥ 1"],
  ])("%s=%s is refused in one line naming the bound", (name, value, bound) => {
    expect(() => queueSettings({ [name]: value })).toThrow(
      `${name}=${value} is not an integer ${bound}. Fix: set ${name} to one`,
    );
  });
});

describe("handOnAfterS", () => {
  test("hands a domain on a twentieth of the limit (at least a minute) before it", () => {
    expect(handOnAfterS(86_400)).toBe(86_400 - 4_320);
    expect(handOnAfterS(600)).toBe(540);
    expect(handOnAfterS(60)).toBe(30);
    for (const s of [60, 61, 600, 3_600, 86_400]) expect(handOnAfterS(s)).toBeLessThan(s);
  });
});

describe("jobArgv", () => {
  test("drops the planner's own flags and keeps the sweep's", () => {
    expect(
      jobArgv([
        "run",
        "--bench",
        "tasks",
        "--tasks",
        "/data/t",
        "--queue",
        "--only-domains",
        "a,b",
        "--runs=/x",
        "--workers",
        "3",
        "--k",
        "2",
        "--no-tui",
        "--json",
        "--dry-run",
      ]),
    ).toEqual(["run", "--bench", "tasks", "--tasks", "/data/t", "--k", "2"]);
  });
});

test("domainKey and isOpen: one key per cell and domain; created, retry and active are open", () => {
  expect(domainKey("demo/oc", "tax")).toBe("demo/oc#tax");
  expect(["created", "retry", "active"].every(isOpen)).toBe(true);
  expect(["completed", "failed", "cancelled"].some(isOpen)).toBe(false);
});

test("workerOf: a child knows its worker only when both the worker and the plan are set", () => {
  expect(workerOf({ HARNESS2_WORKER: "w1", HARNESS2_PLAN: "pln_1" })).toEqual({
    worker: { name: "w1", plan: "pln_1" },
  });
  expect(workerOf({ HARNESS2_WORKER: "w1" })).toEqual({});
  expect(workerOf({ HARNESS2_WORKER: "", HARNESS2_PLAN: "pln_1" })).toEqual({});
});
