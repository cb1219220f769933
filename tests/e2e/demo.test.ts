// `harness2 demo` from the outside: budget identity, chosen totals, resume with zero new work,
// the library prefix, tampering that forces exactly one task to re-run, and a process killed
// mid-sweep that resumes to the same results. Real python3 executions, the real proposer loop.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, runCli } from "../helpers/cli.ts";

type DemoJson = {
  sweep: string;
  tasks: { ok: number; skipped: number; failed: number };
  executions: number;
  improverCalls: number;
  chosen: { task: string; mode: string; label: string; answer: string }[];
};

const WANT: Record<string, string> = { "ledger-1": "Total: 85.15", "ledger-2": "Total: 20.25" };

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-e2e-demo-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function demo(runs: string, ...extra: string[]) {
  const r = await runCli(["demo", "--no-tui", "--runs", runs, ...extra]);
  const out = join(runs, "demo", "demo.json");
  const report = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as DemoJson) : null;
  return { ...r, report };
}

/**
 * The first k=2 demo of this file, run once: its own test checks it, and the kill -9 test takes
 * its report as the whole plan a resume must complete. Both only read it.
 */
let firstK2: ReturnType<typeof demo> | undefined;
const k2Demo = () => {
  firstK2 ??= demo(join(root, "k2"), "--k", "2");
  return firstK2;
};

function summary(runs: string, k: number, task: string) {
  const path = join(runs, "demo", "runs", `demo-oc-agg${k}`, task, "summary.json");
  return JSON.parse(readFileSync(path, "utf8"));
}

describe("harness2 demo, k=1", () => {
  let runs: string;
  test("both modes reach R=4k/P=3k, pick the right totals, and exit 0", async () => {
    runs = join(root, "k1");
    const r = await demo(runs, "--k", "1");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Local demo: 2 task(s) completed, 0 skipped, 0 failed");
    const report = r.report as DemoJson;
    // per task: 1 base + (2 stage + 1 final) per mode = 7 executions; 3 sessions per mode, no
    // selector session at k=1, one reflection per mode
    expect(report.executions).toBe(14);
    expect(report.improverCalls).toBe(2 * (3 + 3 + 2));
    for (const c of report.chosen) expect(c.answer).toBe(WANT[c.task] as string);
    for (const task of ["ledger-1", "ledger-2"]) {
      const s = summary(runs, 1, task);
      expect(s.status).toBe("ok");
      for (const mode of ["agg", "seq"]) {
        expect(s.modes[mode].ledger).toMatchObject({ R: 4, expectedR: 4, P: 3, expectedP: 3 });
        expect(s.selections[mode]).toMatchObject({ ok: true, trivial: true, fallback: false });
      }
    }
  });

  test("running it again executes nothing, calls no improver and skips every task", async () => {
    const r = await demo(runs, "--k", "1");
    expect(r.code).toBe(0);
    expect(r.report).toMatchObject({
      executions: 0,
      improverCalls: 0,
      tasks: { ok: 0, skipped: 2, failed: 0 },
    });
    for (const c of (r.report as DemoJson).chosen) expect(c.answer).toBe(WANT[c.task] as string);
  });

  test("a harness changed after selection re-runs only that task; a deleted answer likewise", async () => {
    const s1 = summary(runs, 1, "ledger-1");
    const chosen = s1.selections.agg.chosenLabel as string;
    const harness = join(runs, "demo", "runs", "demo-oc-agg1", "ledger-1", "harnesses", chosen);
    writeFileSync(join(harness, "guardrails.md"), "tampered after selection\n");
    const r = await demo(runs, "--k", "1");
    expect(r.code).toBe(0);
    expect(r.report?.tasks).toEqual({ ok: 1, skipped: 1, failed: 0 });
    expect(r.stdout).toMatch(/ledger-2 k=1: skipped/);

    const s2 = summary(runs, 1, "ledger-2");
    rmSync(join(s2.selections.seq.chosenRunDir, "output", "answer.txt"));
    const again = await demo(runs, "--k", "1");
    expect(again.code).toBe(0);
    expect(again.report?.tasks).toEqual({ ok: 1, skipped: 1, failed: 0 });
    expect(again.stdout).toMatch(/ledger-1 k=1: skipped/);
    for (const c of (again.report as DemoJson).chosen)
      expect(c.answer).toBe(WANT[c.task] as string);
  });
});

describe("harness2 demo, k=2", () => {
  let runs: string;
  test("R=8/P=6 per mode, a blind pick of the right total, and a library prefix", async () => {
    runs = join(root, "k2");
    const r = await k2Demo();
    expect(r.code).toBe(0);
    const report = r.report as DemoJson;
    expect(report.tasks).toEqual({ ok: 2, skipped: 0, failed: 0 });
    for (const c of report.chosen) expect(c.answer).toBe(WANT[c.task] as string);
    for (const task of ["ledger-1", "ledger-2"]) {
      const s = summary(runs, 2, task);
      for (const mode of ["agg", "seq"]) {
        expect(s.modes[mode].ledger).toMatchObject({ R: 8, P: 6 });
        expect(s.selections[mode]).toMatchObject({ ok: true, fallback: false, trivial: false });
        // the id map decodes the anonymous pick
        const sel = s.selections[mode];
        expect(sel.idMap[sel.chosenId]).toBe(sel.chosenLabel);
      }
    }
    // ledger-1's improvers saw no library; ledger-2's saw ledger-1's lesson and nothing else
    const ctx = (task: string) =>
      join(runs, "demo", "runs", "demo-oc-agg2", task, "context", "inv1");
    expect(existsSync(join(ctx("ledger-1"), "library"))).toBe(false);
    const lib = join(ctx("ledger-2"), "library");
    expect(readFileSync(join(lib, "INDEX.md"), "utf8")).toContain("ledger-1");
    expect(readdirSync(join(lib, "harnesses"))).toEqual(["ledger-1"]);
    // the planted answer key never reached any evidence folder
    const leaked = Bun.spawnSync(["grep", "-rl", "reference_answer", join(runs, "demo", "runs")]);
    expect(leaked.stdout.toString()).not.toContain("context/");
  });

  test("the store answers the same numbers as the summaries", async () => {
    const r = await runCli(["show", "last", "--runs", runs, "--json"]);
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout);
    const text = JSON.stringify(view);
    expect(text).toContain("ledger-1");
    expect(text).toContain("ledger-2");
    const s = summary(runs, 2, "ledger-1");
    expect(text).toContain(s.selections.agg.chosenLabel);
    // every improver call is recorded, with its audit file
    expect(text).toContain("inv1.a1");
    expect(text).toContain("_audit");
  });
});

/** Starts a demo and kills it with SIGKILL once its output matches `when`; what it printed. */
async function killDemoWhen(when: RegExp, runs: string, k: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, MAIN, "demo", "--no-tui", "--k", k, "--runs", runs], {
    stdout: "pipe",
    stderr: "ignore",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const reader = proc.stdout.getReader();
  let seen = "";
  while (!when.test(seen)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  proc.kill("SIGKILL");
  await proc.exited;
  return seen;
}

describe("a demo killed mid-sweep", () => {
  test("resumes to the same final results", async () => {
    const runs = join(root, "killed");
    // wait until the first task has finished, then kill -9 in the middle of the second
    const seen = await killDemoWhen(/ledger-1 k=1: ok/, runs, "1");
    expect(seen).toContain("ledger-1 k=1: ok");

    const r = await demo(runs, "--k", "1");
    expect(r.code).toBe(0);
    expect(r.report?.tasks.failed).toBe(0);
    expect(r.stdout).toMatch(/ledger-1 k=1: skipped/);
    for (const c of (r.report as DemoJson).chosen) expect(c.answer).toBe(WANT[c.task] as string);
    const integrity = await runCli(["runs", "--runs", runs]);
    expect(integrity.code).toBe(0);
  });
});

describe("a demo killed -9 mid-task, twice", () => {
  // Issue 37: a kill -9 redoes only the calls that were in flight. Whatever was recorded before
  // the kill (a rollout's run mark, an improver call's audit meta with ok) is reused or served
  // from cache on resume: the resume executes exactly the rest of the plan, whenever the kill.
  test("the resume executes exactly what was not recorded before the kill", async () => {
    const whole = await k2Demo();
    expect(whole.code).toBe(0);
    const plan = whole.report as DemoJson;
    for (const [i, waitFor] of [/ledger-1 parallel inv1/, /ledger-2 sequential c1/].entries()) {
      const runs = join(root, `kill9-${i}`);
      const seen = await killDemoWhen(waitFor, runs, "2");
      expect(seen).toMatch(waitFor);
      const sweepRuns = join(runs, "demo", "runs");
      const marks = readdirSync(sweepRuns, { recursive: true }).filter((f) =>
        String(f).endsWith(".adapt_complete"),
      ).length;
      const audit = join(sweepRuns, "_audit");
      const answered = readdirSync(audit)
        .filter((f) => f.endsWith(".meta.json"))
        .filter((f) => JSON.parse(readFileSync(join(audit, f), "utf8")).ok === true).length;
      expect(marks).toBeGreaterThan(0);
      expect(answered).toBeGreaterThan(0);

      const resumed = await demo(runs, "--k", "2");
      expect(resumed.code).toBe(0);
      const r = resumed.report as DemoJson;
      expect(r.executions).toBe(plan.executions - marks);
      expect(r.improverCalls).toBe(plan.improverCalls - answered);
      expect(r.chosen).toEqual(plan.chosen);
    }
  }, 120_000);
});

describe("bad input", () => {
  test("a bad --k or --mode is one line and exit 2; nothing runs", async () => {
    const runs = join(root, "bad");
    const k = await runCli(["demo", "--k", "zero", "--runs", runs]);
    expect(k.code).toBe(2);
    expect(k.stderr.trim().split("\n")).toHaveLength(1);
    const m = await runCli(["demo", "--mode", "diagonal", "--runs", runs]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("diagonal");
    expect(existsSync(join(runs, "demo"))).toBe(false);
  });
});
