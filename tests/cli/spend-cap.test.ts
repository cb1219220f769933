// `--max-usd` (issue 34): the cap stops a sweep once the experiment's recorded spend reaches it,
// running calls finish, the sweep is recorded as stopped by the cap (exit 3), the same cap again
// is refused, and a higher cap resumes it to the same result as an uncapped run without paying
// twice for anything. The demo's scripted improver is priced with HARNESS2_DEMO_CALL_USD.

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpendMeter, taskKey } from "../../src/cli/spend/spend-cap.ts";
import { MAIN, runCli } from "../helpers/cli.ts";

const root = mkdtempSync(join(tmpdir(), "h2-cap-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = { HARNESS2_DEMO_CALL_USD: "0.01" };
const demo = (runs: string, ...extra: string[]) =>
  runCli(["demo", "--no-tui", "--k", "2", "--runs", runs, ...extra], { env });

function paid(runs: string): { calls: number; usd: number } {
  const db = new Database(join(runs, "harness2.db"), { readonly: true });
  try {
    const row = db
      // A call the stop reached before its session started is recorded too (attempts 0, $0):
      // it paid nothing, so only calls that ran a session count.
      .query(
        "SELECT COUNT(*) AS n, COALESCE(SUM(usd), 0) AS usd FROM proposer_calls WHERE cached = 0 AND attempts > 0",
      )
      .get() as { n: number; usd: number };
    return { calls: row.n, usd: Math.round(row.usd * 1e4) / 1e4 };
  } finally {
    db.close();
  }
}
const chosen = (runs: string) =>
  JSON.parse(readFileSync(join(runs, "demo", "demo.json"), "utf8")).chosen as unknown[];

/**
 * One uncapped demo, run once for the whole file: what every capped run below must come back to
 * (the calls it paid and the candidates it chose). The tests only read it.
 */
let uncapped: Promise<{ plan: { calls: number; usd: number }; chosen: unknown[] }> | undefined;
function wholeRun() {
  uncapped ??= (async () => {
    const whole = join(root, "whole");
    const r = await demo(whole);
    if (r.code !== 0) throw new Error(`the uncapped demo failed (${r.code}): ${r.stderr}`);
    return { plan: paid(whole), chosen: chosen(whole) };
  })();
  return uncapped;
}

describe("the spending cap", () => {
  test("stops at the cap, refuses the same cap, and a higher one resumes to the uncapped result", async () => {
    const whole = await wholeRun();
    const plan = whole.plan;
    expect(plan.calls).toBeGreaterThan(10);

    const runs = join(root, "capped");
    const capped = await demo(runs, "--max-usd", "0.05");
    expect(capped.code).toBe(3);
    expect(capped.stderr).toContain("spending cap $0.05 reached");
    expect(capped.stdout).toContain("stopped by the spending cap");
    // The resume it suggests asks for a higher cap, not the one just reached.
    expect(capped.stdout).toMatch(/e\.g\. twice it: .* --max-usd 0\.1$/m);
    // Headless lines say how far the experiment is from its cap as it grows.
    expect(capped.stdout).toMatch(/^sweep .* · \$0 of the \$0\.05 cap \(0%\)$/m);
    const first = paid(runs);
    // The cap is reached at the 5th call; calls already running then may finish, no new one starts.
    expect(first.calls).toBeGreaterThanOrEqual(5);
    expect(first.calls).toBeLessThan(plan.calls);
    const listed = await runCli(["runs", "--runs", runs, "--json"]);
    const sweep = JSON.parse(listed.stdout).sweeps[0];
    expect(sweep).toMatchObject({ status: "interrupted", stopReason: "budget" });
    expect((await runCli(["runs", "--runs", runs])).stdout).toContain("interrupted (spending cap)");
    const shown = (await runCli(["show", "last", "--runs", runs])).stdout;
    expect(shown).toMatch(
      /^spend {4}\$[\d.]+ {2}\(experiment: \$[\d.]+ of the \$0\.05 cap \(\d+%\)\)$/m,
    );

    const again = await demo(runs, "--max-usd", "0.05");
    expect(again.code).toBe(3);
    expect(again.stderr.trim().split("\n")).toHaveLength(1);
    expect(again.stderr).toContain("already reached");
    expect(paid(runs)).toEqual(first);

    const resumed = await demo(runs, "--max-usd", "10");
    expect(resumed.code).toBe(0);
    // The resume counts what the capped run spent: it starts there, not at $0.
    const startLine = resumed.stdout.split("\n").find((l) => l.startsWith("sweep "));
    expect(startLine).toContain(` · $${first.usd.toFixed(2)} of the $10.00 cap (0%)`);
    expect(resumed.stdout).toMatch(/k=2: ok .* · \$[\d.]+ of the \$10\.00 cap \(\d+%\)$/m);
    // Nothing recorded is paid for twice: the two runs together paid what one uncapped run did.
    expect(paid(runs)).toEqual(plan);
    expect(chosen(runs)).toEqual(whole.chosen);

    // The stopped sweep and the ones after it are linked both ways (issue 35).
    const all = JSON.parse((await runCli(["runs", "--runs", runs, "--json"])).stdout).sweeps as {
      id: string;
      resumes: string | null;
      resumedBy: string | null;
    }[];
    // (The refused run with the same cap recorded no sweep.)
    expect(all).toHaveLength(2);
    const [newest, oldest] = all;
    expect(oldest).toMatchObject({ resumes: null, resumedBy: newest?.id });
    expect(newest).toMatchObject({ resumes: oldest?.id, resumedBy: null });
    const table = (await runCli(["runs", "--runs", runs])).stdout;
    expect(table).toMatch(/interrupted \(spending cap\) → resumed by swp_\w+/);
    const detail = (await runCli(["show", oldest?.id ?? "", "--runs", runs])).stdout;
    expect(detail).toContain(`→ resumed by ${newest?.id}`);
    expect((await runCli(["show", "last", "--runs", runs])).stdout).toContain(
      `(after ${oldest?.id})`,
    );
  }, 120_000);

  test("a bad cap or demo price is one line and nothing runs", async () => {
    const runs = join(root, "bad");
    for (const value of ["0", "-1", "ten", "1e400", ""]) {
      const r = await runCli(["demo", "--no-tui", "--runs", runs, `--max-usd=${value}`]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    const price = await runCli(["demo", "--no-tui", "--runs", runs], {
      env: { HARNESS2_DEMO_CALL_USD: "cheap" },
    });
    expect(price.code).toBe(1);
    expect(price.stderr).toContain("HARNESS2_DEMO_CALL_USD=cheap is not an amount of dollars");
    expect((await runCli(["run", "--bench", "tasks", "--max-usd", "x"])).code).toBe(2);
    const perTask = await runCli(["demo", "--no-tui", "--runs", runs, "--max-usd-per-task", "0"]);
    expect(perTask.code).toBe(2);
    expect(perTask.stderr).toContain("--max-usd-per-task must be a positive amount of dollars");
    const tokens = await runCli(["run", "--bench", "tasks", "--max-tokens", "0"]);
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toContain("--max-tokens");
  });

  test("a per-task cap stops the sweep at the task that reaches it; a higher one resumes", async () => {
    const whole = await wholeRun();
    const plan = whole.plan;

    const runs = join(root, "per-task");
    const capped = await demo(runs, "--max-usd-per-task", "0.1");
    expect(capped.code).toBe(3);
    expect(capped.stderr).toMatch(
      /per-task cap \$0\.10 reached by ledger-1 k=2 \(\$0\.1\d recorded for it\)/,
    );
    expect(capped.stdout).toMatch(/e\.g\. twice it: .* --max-usd-per-task 0\.2$/m);
    expect(paid(runs).calls).toBeLessThan(plan.calls);

    const resumed = await demo(runs, "--max-usd-per-task", "1");
    expect(resumed.code).toBe(0);
    expect(paid(runs)).toEqual(plan);
    expect(chosen(runs)).toEqual(whole.chosen);
  }, 120_000);
});

/** A capped demo killed with SIGKILL after its `n`-th accepted proposal line. */
async function killCappedDemoAfter(n: number, runs: string): Promise<void> {
  const proc = Bun.spawn(
    [process.execPath, MAIN, "demo", "--no-tui", "--k", "2", "--runs", runs, "--max-usd", "10"],
    { stdout: "pipe", stderr: "ignore", env: { ...process.env, ...env, NO_COLOR: "1" } },
  );
  const reader = proc.stdout.getReader();
  let seen = "";
  while ((seen.match(/: accepted/g) ?? []).length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  proc.kill("SIGKILL");
  await proc.exited;
}

describe("kill -9 under a cap", () => {
  test("at random points, the experiment is never charged twice for a call", async () => {
    const whole = await wholeRun();
    const plan = whole.plan;
    // Three kill points drawn at random among the plan's accepted proposals (logged when it fails).
    const points = [0, 1, 2].map(() => 1 + Math.floor(Math.random() * 20));
    for (const [i, n] of points.entries()) {
      const runs = join(root, `kill-capped-${i}`);
      await killCappedDemoAfter(n, runs);
      const resumed = await demo(runs, "--max-usd", "10");
      if (resumed.code !== 0) console.error(`killed after ${n} accepted:`, resumed.stderr);
      expect(resumed.code).toBe(0);
      // A call recorded before the kill is served from cache on resume, never paid again; a call
      // cut off was never recorded, so it is paid once, by the resume.
      const both = paid(runs);
      expect({ n, calls: both.calls <= plan.calls, usd: both.usd <= plan.usd }).toEqual({
        n,
        calls: true,
        usd: true,
      });
      expect(chosen(runs)).toEqual(whole.chosen);
    }
  }, 240_000);
});

describe("the spend meter", () => {
  const call = (task: string, usd: number) =>
    ({
      type: "proposer.call",
      ts: 0,
      sweep: "s",
      domain: "d",
      task,
      mode: "agg",
      k: 2,
      label: "inv1",
      purpose: "stage",
      attempts: 1,
      channel: "x",
      model: "m",
      cached: false,
      wallS: 1,
      usd,
      error: "",
      auditPath: "",
    }) as const;

  test("a task an earlier run brought to its cap trips at its first new paid call, not at another's", () => {
    const reached: string[] = [];
    const meter = new SpendMeter(
      { usd: null, perTask: 0.5, tokens: null },
      { usd: 0, tokens: 0, byTask: new Map([[taskKey({ domain: "d", task: "a", k: 2 }), 0.5]]) },
      (why) => reached.push(why),
    );
    meter.sink.emit(call("b", 0.2));
    expect(reached).toEqual([]);
    meter.sink.emit({ ...call("a", 0), cached: true });
    expect(reached).toEqual([]);
    meter.sink.emit(call("a", 0.01));
    expect(reached).toEqual(["per-task cap $0.50 reached by a k=2 ($0.51 recorded for it)"]);
    meter.sink.emit(call("b", 0.4));
    // Once is enough: the sweep is already stopping.
    expect(reached).toHaveLength(1);
    expect(meter.spent.usd).toBeCloseTo(0.61, 9);
  });
});
