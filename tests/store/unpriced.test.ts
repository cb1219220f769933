// A rollout whose executor could not price it (a Codex model without a price) is stored as unpriced
// and the report says its cost is unknown, instead of counting it as free.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { describeEvent, lineText } from "../../src/core/events/describe.ts";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { summarise } from "../../src/judge/report.ts";
import { openStore } from "../../store/db.ts";
import { newSweepId } from "../../store/ids.ts";
import { unpricedRollouts } from "../../store/report-queries.ts";
import { StoreWriter } from "../../store/writer.ts";
import { tempDir } from "./samples.ts";
import { sweepEvents } from "./synthetic.ts";

test("unpriced rollouts are stored, counted once per sweep, described and warned about", () => {
  const { dir, cleanup } = tempDir();
  const db = openStore(join(dir, "harness2.db"));
  try {
    const T0 = Date.UTC(2026, 11, 1, 8, 0, 0);
    const sweep = newSweepId(T0);
    const events: HarnessEvent[] = [
      ...sweepEvents({ sweep, t0: T0, domains: 1, tasksPerDomain: 1 }),
    ];
    // Two of the sweep's finished rollouts had no price: the executor said so.
    let marked = 0;
    const changed = events.map((e) => {
      if (e.type !== "rollout.finished" || marked >= 2) return e;
      marked++;
      return { ...e, usd: 0, priced: false };
    });
    expect(marked).toBe(2);
    const w = new StoreWriter(db);
    for (const ev of changed) w.emit(ev);
    w.close();
    expect(unpricedRollouts(db, [sweep])).toBe(2);
    expect(unpricedRollouts(db, [])).toBe(0);

    const unpriced = changed.find((e) => e.type === "rollout.finished" && e.priced === false);
    const described = describeEvent(unpriced as HarnessEvent);
    expect(described === null ? "" : lineText(described)).toContain("cost unknown");

    const report = summarise({
      picks: [],
      bases: [],
      bench: "tasks",
      substrate: "cx",
      seed: null,
      tag: "",
      sweeps: [sweep],
      unpricedRollouts: 2,
    });
    expect(report.warnings.join("\n")).toContain(
      "2 rollout(s) ran on an executor model without a price",
    );
  } finally {
    db.close();
    cleanup();
  }
});
