// `harness2 show RUN [TASK]` from the outside: sweep and task views, JSON, handle errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SweepDetail } from "../../store/views.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../store/samples.ts";
import { taskName } from "../store/synthetic.ts";
import { type BrowseFixture, browseFixture } from "./browse-fixture.ts";

let fx: BrowseFixture;
beforeAll(() => {
  fx = browseFixture();
});
afterAll(() => fx.cleanup());

const show = (...args: string[]) => runCli(["show", ...args, "--runs", fx.dir]);

/** The shortest prefix of `id` that no other id shares. */
function uniquePrefix(id: string, others: string[]): string {
  for (let n = 5; n <= id.length; n++) {
    if (!others.some((o) => o.startsWith(id.slice(0, n)))) return id.slice(0, n);
  }
  return id;
}

describe("harness2 show RUN", () => {
  test("per task and mode: stages, ledger against 4k/3k, selection, tripwires, library", async () => {
    const r = await show(uniquePrefix(fx.older, [fx.newer]));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toContain("\u001b[");
    const out = r.stdout;
    expect(out).toContain(`sweep    ${fx.older}  failed`);
    expect(out).toContain("tasks    3 ok, 1 failed, 0 running, 0 skipped of 4");
    expect(out).toContain("argv     harness2 run --bench demo --k 2");
    for (const t of [taskName(0, 0), taskName(0, 1), taskName(1, 0), taskName(1, 1)]) {
      expect(out).toContain(`\n${t}  `);
    }
    // Modes by their names (--json keeps the tokens), and no "-" for an unset seed or tag.
    expect(out).toContain("  parallel  ok  R 8/8  P 6/6  $0.15");
    expect(out).toContain("  sequential  ok  R 8/8  P 6/6  $0.15");
    expect(out).toContain("modes parallel,sequential  seed none  tag none");
    expect(out).toContain("stages     inv1 ok $0.02 · dom1 fell back $0.02 · inv2 ok $0.02");
    expect(out).toContain(
      "selection  agg2 (B) — Candidate B delivers the complete report with sources.",
    );
    expect(out).toContain("selection  c2 (B) — ");
    expect(out).toContain(
      'tripwire   grader_verdict at inv1: context/inv1/rollouts/base1.md ["P·ASSED"] blocked — grader verdict marker in evidence',
    );
    expect(out).toContain(`library    + ${taskName(1, 1).replace("/", "__")}`);
    expect(out.match(/tripwire {3}/g)).toHaveLength(2);
    expect(out).toContain(`${taskName(1, 0)}  partial  k=2`);
    // Where failed, partial and fell back meet, a legend says what each means (issue 35).
    expect(out).toMatch(
      /^words {4}partial = a task where not every mode succeeded; failed = ended in an error; fell back = .*\(all: harness2 help concepts\)$/m,
    );
  });

  test("`last` is the newest sweep; its unfinished task shows as interrupted", async () => {
    const r = await show("last");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`sweep    ${fx.newer}  unfinished`);
    expect(r.stdout).toContain(`${taskName(0, 1)}  interrupted  k=1`);
    expect(r.stdout).toContain("selection  agg1 (A) [trivial]");
  });

  test("--json prints the documented shape", async () => {
    const r = await show(fx.older, "--json");
    expect(r.code).toBe(0);
    const d = SweepDetail.parse(JSON.parse(r.stdout));
    expect(d.sweep.id).toBe(fx.older);
    expect(d.sweep.identity).toEqual({
      executorModel: "scripted/exec",
      improverModel: "scripted/improve",
    });
    expect(d.tasks).toHaveLength(4);
    const agg = d.tasks[0]?.modes[0];
    expect([agg?.mode, agg?.R, agg?.expectedR, agg?.P, agg?.expectedP]).toEqual([
      "agg",
      8,
      8,
      6,
      6,
    ]);
    expect(agg?.stages[1]).toMatchObject({ label: "dom1", status: "fell back", attempts: 2 });
    expect(agg?.selection).toMatchObject({
      chosenLabel: "agg2",
      why: expect.stringContaining("Candidate B"),
      fallback: false,
    });
    expect(d.tasks[2]?.modes[0]?.tripwires[0]).toMatchObject({
      kind: "grader_verdict",
      where: "inv1",
      marker: "PASSED",
    });
  });
});

describe("harness2 show RUN TASK", () => {
  test("the task in full: stage table, ledger labels, id map, rollouts, improver calls", async () => {
    const r = await show(fx.older, taskName(1, 0));
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out.startsWith(`${taskName(1, 0)}  partial  k=2`)).toBe(true);
    expect(out).toContain("error: agg: tripwire grader_verdict");
    expect(out).toMatch(/\n {2}STAGE +DIM +STATUS +ATTEMPTS +USD +CACHED +ERROR \/ NOTES\n/);
    expect(out).toMatch(
      /\n {2}dom1 +DOM +fell back +2 +\$0\.02 +no +invalid proposal: no always-on file; fell back to the base tree\n/,
    );
    expect(out).toContain("ledger     R: base1 base2 inv1 dom1 inv2 dom2 agg1 agg2");
    expect(out).toContain("P: inv1 dom1 inv2 dom2 agg1 agg2");
    expect(out).toContain("ids A=agg1 B=agg2");
    expect(out).toContain("ids A=c1 B=c2");
    expect(out).toContain("lesson: state the sources");
    expect(out).toMatch(
      /\nrollouts\n {2}LABEL +STATUS +DELIVERED +USD +WALL +RUN ID\n {2}base1 +ok +yes/,
    );
    expect(out).toContain("improver calls");
    expect(out).not.toContain(taskName(1, 1));
  });

  test("--json holds just that task", async () => {
    const r = await show(fx.older, taskName(0, 1), "--json");
    const d = SweepDetail.parse(JSON.parse(r.stdout));
    expect(d.tasks.map((t) => t.task)).toEqual([taskName(0, 1)]);
    expect(d.tasks[0]?.calls).toHaveLength(12);
  });

  test("an unknown task is one line naming the tasks the sweep ran, exit 1", async () => {
    const r = await show(fx.older, "nope");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`no task 'nope' in sweep ${fx.older}`);
    expect(r.stderr).toContain(taskName(0, 0));
  });
});

describe("harness2 show: handles that name no sweep", () => {
  test("unknown: one line, exit 1", async () => {
    const r = await show("swp_zzzzzz");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("no sweep 'swp_zzzzzz'");
  });

  test("ambiguous: one line listing the candidates, exit 1", async () => {
    const r = await show("swp_");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("matches 2 sweeps");
    expect(r.stderr).toContain(fx.older);
    expect(r.stderr).toContain(fx.newer);
  });

  test("no store: one line, exit 1; no RUN at all: usage error, exit 2", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const r = await runCli(["show", "last", "--runs", dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("no store at");
      const u = await runCli(["show"]);
      expect(u.code).toBe(2);
      expect(u.stderr).toContain("RUN");
    } finally {
      cleanup();
    }
  });
});

describe("harness2 show by the sweep's flags", () => {
  test("--bench and --k pick the newest sweep that ran them", async () => {
    const r = await show("--bench", "demo", "--k", "2");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`sweep    ${fx.older}  failed`);
    const newest = await show("--bench", "demo");
    expect(newest.stdout).toContain(`sweep    ${fx.newer}  unfinished`);
  });

  test("--mode keeps only sweeps that ran that mode", async () => {
    const r = await show("--bench", "demo", "--mode", "sequential", "--json");
    expect(r.code).toBe(0);
    expect(SweepDetail.parse(JSON.parse(r.stdout)).sweep.id).toBe(fx.older);
  });

  test("with flags, the one argument is TASK", async () => {
    const r = await show("--bench", "demo", "--k", "2", taskName(1, 0));
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`${taskName(1, 0)}  partial  k=2`)).toBe(true);
    expect(r.stdout).toContain(`sweep ${fx.older}`);
  });

  test("flags no sweep matches: one line naming them, exit 1 (as judge and report)", async () => {
    const r = await show("--bench", "demo", "--k", "1", "--mode", "sequential");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("no sweep matches --bench demo --k 1 --mode sequential in");
    const other = await show("--bench", "lab");
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("no sweep matches --bench lab in");
  });

  test("RUN and flags together, several k, or a bad mode: usage error, exit 2", async () => {
    const both = await show(fx.older, taskName(0, 0), "--bench", "demo");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("either by RUN or by its flags, not both");
    const ks = await show("--bench", "demo", "--k", "1,2");
    expect(ks.code).toBe(2);
    expect(ks.stderr).toContain("give a single --k");
    const mode = await show("--bench", "demo", "--mode", "diagonal");
    expect(mode.code).toBe(2);
    expect(mode.stderr.trim().split("\n")).toHaveLength(1);
    expect(mode.stderr).toContain("--mode");
  });
});
