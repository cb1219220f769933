// A real store on disk, filled through the store's own writer from scripted events, for the
// browser and home tests (and the tmux test, which browses it from a real terminal).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { HarnessEvent } from "../../src/core/events/registry.ts";
import { StoreWriter } from "../../store/writer.ts";
import { Script, T0 } from "./script.ts";

export type StoreFixture = { dir: string; runsDir: string; dbPath: string; cleanup(): void };

export function storeWith(
  events: HarnessEvent[],
  dir = mkdtempSync(join(tmpdir(), "h2-tui-")),
): StoreFixture {
  const runsDir = join(dir, "runs");
  const dbPath = join(runsDir, "harness2.db");
  mkdirSync(runsDir, { recursive: true });
  const errors: Error[] = [];
  const writer = StoreWriter.open(dbPath, { onError: (err) => errors.push(err) });
  for (const e of events) writer.emit(e);
  writer.close();
  if (errors.length > 0) throw new Error(`fixture events not recorded: ${errors[0]?.message}`);
  return { dir, runsDir, dbPath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const UNFINISHED = "swp_20261130_unfinished";
export const JUDGED = "swp_20261130_judged";

/**
 * Two sweeps: an older one, judged and finished; a newer one left unfinished mid-task, whose
 * ledger-1 has a fallen-back dom1 (with a tripwire) and a fallback selection in sequential mode.
 */
export function browseScenario(root: string): HarnessEvent[] {
  const judged = new Script(JUDGED, T0, root)
    .sweepStarted([{ domain: "acct", tasks: ["ledger-0"] }], { ks: [2] })
    .task("acct", "ledger-0")
    .sweepFinished("ok")
    .judged("acct", "ledger-0", { score: 0.75 });
  const open = new Script(UNFINISHED, T0 + 3_600_000, root).sweepStarted(
    [{ domain: "acct", tasks: ["ledger-1", "ledger-2"] }],
    { ks: [2] },
  );
  open.task("acct", "ledger-1", {
    of: 2,
    fellBack: ["dom1"],
    tripwireAt: "dom1",
    fallbackIn: "seq",
    status: "partial",
  });
  open.taskStarted("acct", "ledger-2", { index: 2, of: 2 });
  return [...judged.events, ...open.events];
}

/** Harness folders for ledger-1's base and dom1 under `root`, so a real diff can be taken. */
export function writeHarnesses(root: string): void {
  const put = (rel: string, text: string) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  put("ledger-1/harnesses/base/AGENTS.md", "Sum every amount.\n");
  put("ledger-1/harnesses/dom1/AGENTS.md", "Sum every amount, refunds included.\n");
}
