// A store with two synthetic sweeps for the `runs` / `show` tests: an older finished one with a
// tripwire (ids A) and a newer one killed mid-task (id B).

import { join } from "node:path";
import { newSweepId } from "../../store/ids.ts";
import { StoreWriter } from "../../store/writer.ts";
import { tempDir } from "../store/samples.ts";
import { sweepEvents } from "../store/synthetic.ts";

export type BrowseFixture = {
  dir: string;
  dbPath: string;
  older: string;
  newer: string;
  cleanup: () => void;
};

export function browseFixture(): BrowseFixture {
  const { dir, cleanup } = tempDir("h2-browse-");
  const dbPath = join(dir, "harness2.db");
  const t0 = Date.UTC(2026, 10, 29, 8, 0, 0);
  const older = newSweepId(t0);
  const newer = newSweepId(t0 + 3_600_000);
  const w = StoreWriter.open(dbPath);
  for (const ev of sweepEvents({ sweep: older, t0, domains: 2, tasksPerDomain: 2, tripEvery: 3 })) {
    w.emit(ev);
  }
  for (const ev of sweepEvents({
    sweep: newer,
    t0: t0 + 3_600_000,
    k: 1,
    modes: ["agg"],
    domains: 1,
    tasksPerDomain: 3,
    stopInTask: 2,
  })) {
    w.emit(ev);
  }
  w.close();
  return { dir, dbPath, older, newer, cleanup };
}
