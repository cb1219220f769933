// `harness2 show` says what went wrong inside a task that reads ok (issue 16 §4): a failed
// reflection (with its reason, in the sweep view too), a selection that fell back, in the same
// words as the live view and the headless lines (src/core/events/outcome.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { Script } from "../tui/script.ts";
import { storeWith } from "../tui/store-fixture.ts";

const events = new Script()
  .sweepStarted(
    [
      { domain: "acct", tasks: ["ledger-1"] },
      { domain: "law", tasks: ["brief-1"] },
    ],
    { ks: [2] },
  )
  .task("acct", "ledger-1", { reflectionFailsIn: "agg", fallbackIn: "seq" })
  .task("law", "brief-1")
  .sweepFinished("ok").events;
const store = storeWith(events);
afterAll(() => store.cleanup());

describe("show names a task's problems", () => {
  test("the sweep view: a warning line under the task, and the failed reflection's reason", async () => {
    const r = await runCli(["show", "last", "--runs", store.runsDir]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    const title = lines.findIndex((l) => l.startsWith("ledger-1  ok"));
    expect(lines[title + 1]).toBe(
      "  ⚠ parallel reflection failed (no lesson stored), sequential selection fell back",
    );
    expect(r.stdout).toContain("reflection failed — reflection reply unusable: no LESSON block");
    const clean = lines.findIndex((l) => l.startsWith("brief-1  ok"));
    expect(lines[clean + 1]).not.toContain("⚠");
  });

  test("the task view leads with the same line", async () => {
    const r = await runCli(["show", "last", "ledger-1", "--runs", store.runsDir]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[1]).toBe(
      "  ⚠ parallel reflection failed (no lesson stored), sequential selection fell back",
    );
  });

  test("runs counts the task with problems, in the table and the JSON", async () => {
    const r = await runCli(["runs", "--json", "--runs", store.runsDir]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sweeps[0].tasks).toMatchObject({ ok: 2, withProblems: 1 });
  });
});
