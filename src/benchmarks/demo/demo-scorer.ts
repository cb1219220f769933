// The demo's scorer, used only by the judge (src/judge) after selection: a deliverable scores 1
// when its total equals the signed sum of the task's source ledger, else 0. Never seen by the method.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Scorer } from "../../core/seams/benchmark.ts";
import { DEMO_DOMAIN, DEMO_FIXTURES, demoFixtureTask, ledgerTotal } from "./demo-adapter.ts";

export class DemoScorer implements Scorer {
  async score(runDir: string, taskId: string): Promise<Record<string, unknown> | null> {
    const fixture = demoFixtureTask(taskId);
    if (fixture === null) return null; // an unknown task is ungraded, never a zero
    const ledger = join(DEMO_FIXTURES, "tasks", DEMO_DOMAIN, fixture, "ledger.csv");
    if (!existsSync(ledger)) return null; // an unknown task is ungraded, never a zero
    const want = `Total: ${ledgerTotal(readFileSync(ledger, "utf8"))}`;
    const answer = join(runDir, "output", "answer.txt");
    const got = existsSync(answer) ? readFileSync(answer, "utf8").trim() : "";
    const passed = got === want ? 1 : 0;
    return { score: passed, passed, total: 1, expected: want, got };
  }
}
