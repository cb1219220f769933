// The end of `harness2 demo` tells its story (issue 16 §1): each task and mode's base answer
// against the adopted one, checked by the demo's scorer only now; the adopted harness's change
// against the base; each lesson with the later task that read it; and next commands that work
// exactly as printed (they are run here as printed, --runs included). A rerun that skips every
// task shows the same payoff.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";

const CHECKOUT = join(import.meta.dir, "../..");
const ROOT = mkdtempSync(join(tmpdir(), "h2-demo-payoff-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** The payoff block: from "Before → after" to the end of stdout. */
const payoffOf = (stdout: string) => stdout.slice(stdout.indexOf("Before → after"));

describe("the demo's payoff", () => {
  test(
    "before/after per task and mode, the fix as a diff, the lesson and who read it, working hints",
    async () => {
      const runs = join(ROOT, "runs");
      const r = await runCli(["demo", "--no-tui", "--k", "1", "--runs", runs]);
      expect(r.code).toBe(0);
      const p = payoffOf(r.stdout);
      for (const [task, base, fixed] of [
        ["ledger-1", "105.25", "85.15"],
        ["ledger-2", "35.50", "20.25"],
      ]) {
        for (const mode of ["parallel", "sequential"]) {
          expect(p).toMatch(
            new RegExp(`${task} +${mode} +base Total: ${base} ✗ +→ +\\w+ Total: ${fixed} ✓`),
          );
        }
      }
      expect(p).toContain("What the improvers changed (ledger-1 parallel, ");
      expect(p).toContain("--- base/scripts/summarize.py");
      expect(p).toContain("-            if amount > 0:");
      expect(p).toContain("+            total += amount");
      expect(p).toMatch(/ledger-1 parallel: "a ledger holds refunds .*\(read by ledger-2\)/);
      expect(p).toMatch(/ledger-1 sequential: ".*\(read by ledger-2\)/);
      expect(p).toMatch(/ledger-2 parallel: ".*\(no later task yet\)/);

      // The hints, run exactly as printed by a shell with the same PATH in the same directory
      // (`harness2` when the launcher is on that PATH, as under `bun run`, else bin/harness2).
      const hint = (cmd: string) => {
        const line = p
          .split("\n")
          .find((l) => /^ {2}\S*harness2 /.test(l) && l.includes(`harness2 ${cmd} `));
        expect(line).toBeDefined();
        return (line as string).trim().split(/ {3}/)[0] as string;
      };
      const shell = async (command: string) => {
        const proc = Bun.spawn(["sh", "-c", command], {
          cwd: CHECKOUT,
          env: { ...process.env, NO_COLOR: "1" },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
        return { stdout, code };
      };
      const judge = hint("judge");
      expect(judge).toContain(`--runs ${runs}`);
      const judged = await shell(judge);
      expect(judged.code).toBe(0);
      const next = judged.stdout.split("\n").find((l) => l.startsWith("next: "));
      const report = await shell((next as string).slice("next: ".length));
      expect(report.code).toBe(0);
      expect(report.stdout).toMatch(/parallel k=1 .*\+1\.000/);
      expect((await shell(hint("show"))).code).toBe(0);

      // demo.json carries the same payoff.
      const json = JSON.parse(readFileSync(join(runs, "demo", "demo.json"), "utf8"));
      expect(json.payoff.rows).toHaveLength(4);
      expect(json.payoff.lessons[0].readBy).toEqual(["ledger-2"]);

      // A rerun executes nothing and still tells the same story.
      const again = await runCli(["demo", "--no-tui", "--k", "1", "--runs", runs]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("0 task(s) completed, 2 skipped");
      const p2 = payoffOf(again.stdout);
      expect(p2.slice(0, p2.indexOf("Next:"))).toBe(p.slice(0, p.indexOf("Next:")));
    },
    { timeout: 120_000 },
  );
});
