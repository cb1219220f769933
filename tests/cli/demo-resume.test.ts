// The audit's case from outside, with the real demo: run, delete a finished task's summary.json,
// run again — nothing re-runs (the store decides resume) and the export is written again.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "../core/fakes.ts";
import { runCli } from "../helpers/cli.ts";

afterAll(removeTempDirs);

test("harness2 demo: a deleted summary.json does not make a finished task run again", async () => {
  const runs = tempDir("demo-resume");
  const argv = ["demo", "--k", "1", "--no-tui", "--runs", runs];
  const first = await runCli(argv);
  expect(first.code).toBe(0);
  expect(first.stdout).toContain("Local demo: 2 task(s) completed, 0 skipped, 0 failed;");
  const summary = join(runs, "demo", "runs", "demo-oc-agg1", "ledger-1", "summary.json");
  const before = JSON.parse(readFileSync(summary, "utf8"));
  rmSync(summary);

  const second = await runCli(argv);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain(
    "Local demo: 0 task(s) completed, 2 skipped, 0 failed; 0 execution(s), 0 improver call(s).",
  );
  expect(second.stdout).toContain("ledger-1 k=1: skipped (finished and intact)");
  expect(existsSync(summary)).toBe(true);
  const after = JSON.parse(readFileSync(summary, "utf8"));
  expect(after.status).toBe("ok");
  for (const mode of ["agg", "seq"]) {
    expect(after.selections[mode].chosenLabel).toBe(before.selections[mode].chosenLabel);
    expect(after.selections[mode].outputDigest).toBe(before.selections[mode].outputDigest);
  }
}, 180_000);
