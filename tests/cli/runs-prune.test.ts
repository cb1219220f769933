// `harness2 runs` filters, and removing sweeps never silently (issue 16 §8): --status/--bench
// narrow the list; --delete RUN and --prune list what would go and exit 1 without --yes; with
// --yes the records leave the store (files stay), a rerun that skipped everything is what
// --prune removes (and `show` of it points at the sweep holding the work), and a bad --status is a
// usage error.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { runCli } from "../helpers/cli.ts";
import { Script, T0 } from "../tui/script.ts";
import { storeWith } from "../tui/store-fixture.ts";

const WORK = "swp_20261130_work";
const RERUN = "swp_20261130_rerun";
const work = new Script(WORK, T0)
  .sweepStarted([{ domain: "acct", tasks: ["ledger-1"] }], { ks: [2] })
  .task("acct", "ledger-1")
  .sweepFinished("ok").events;
const rerun = new Script(RERUN, T0 + 3_600_000).sweepStarted(
  [{ domain: "acct", tasks: ["ledger-1"] }],
  { ks: [2] },
);
rerun.push({
  type: "task.skipped",
  ts: T0 + 3_600_500,
  sweep: RERUN,
  domain: "acct",
  task: "ledger-1",
  k: 2,
  reason: "every requested mode is finished and intact",
} as HarnessEvent);
const store = storeWith([...work, ...rerun.sweepFinished("ok").events]);
afterAll(() => store.cleanup());
const runs = (...args: string[]) => runCli(["runs", ...args, "--runs", store.runsDir]);
const ids = async (...args: string[]) =>
  JSON.parse((await runs("--json", ...args)).stdout).sweeps.map((s: { id: string }) => s.id);

describe("runs filters", () => {
  test("--status and --bench narrow the list; no match is one line, exit 0", async () => {
    expect(await ids()).toEqual([RERUN, WORK]);
    expect(await ids("--status", "ok", "--bench", "demo")).toEqual([RERUN, WORK]);
    expect(await ids("--status", "failed")).toEqual([]);
    const none = await runs("--bench", "lab");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`No sweep in ${store.dbPath} matches --bench lab.\n`);
  });

  test("a --status that is not a status is a usage error", async () => {
    const r = await runs("--status", "done");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--status must be one of running, ok, failed, interrupted, unfinished, got 'done'",
    );
  });
});

describe("a rerun that skipped everything points at its results", () => {
  test("show names the sweep that holds the work, in the header and on the task", async () => {
    const r = await runCli(["show", RERUN, "--runs", store.runsDir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `results +every task was skipped; the work is recorded in ${WORK} \\(show that\\)`,
      ),
    );
    expect(r.stdout).toContain(
      `skipped: every requested mode is finished and intact; its results are in sweep ${WORK}`,
    );
    const json = JSON.parse(
      (await runCli(["show", RERUN, "--json", "--runs", store.runsDir])).stdout,
    );
    expect(json.tasks[0].resultsIn).toBe(WORK);
  });
});

describe("removing sweeps", () => {
  test("without --yes nothing is removed: the list of what would go, and exit 1", async () => {
    const r = await runs("--delete", WORK);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `Would remove 1 sweep(s): ${WORK}; 1 task(s) with results of their own leave the store`,
    );
    expect(r.stderr).toContain("nothing removed: add --yes to remove them");
    expect(await ids()).toEqual([RERUN, WORK]);
  });

  test("--prune --yes removes the rerun that recorded no work, keeps the one that did", async () => {
    const dry = await runs("--prune");
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain(
      `Would remove 1 sweep(s): ${RERUN}. The files they wrote stay on disk.`,
    );
    const r = await runs("--prune", "--yes");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Removed 1 sweep(s): ${RERUN} from ${store.dbPath}.`);
    expect(await ids()).toEqual([WORK]);
    const db = new Database(store.dbPath, { readonly: true });
    const left = db.query("SELECT COUNT(*) AS n FROM events WHERE sweep_id = ?").get(RERUN);
    db.close();
    expect(left).toEqual({ n: 0 });
    const again = await runs("--prune", "--yes");
    expect(again.stdout).toBe("Nothing to prune: every sweep recorded work of its own.\n");
  });

  test("--delete RUN --yes removes that sweep; an unknown RUN is one line, exit 1", async () => {
    const bad = await runs("--delete", "swp_nope", "--yes");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("no sweep 'swp_nope'");
    const r = await runs("--delete", WORK.slice(0, 16), "--yes");
    expect(r.code).toBe(0);
    expect(await ids()).toEqual([]);
    const both = await runs("--delete", "last", "--prune");
    expect(both.code).toBe(2);
  });
});
