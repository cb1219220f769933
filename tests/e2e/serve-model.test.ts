// The offline path to "my own tasks", followed as printed: `harness2 init`, then `harness2
// serve-model` (the shipped scripted solver and improver), its env lines, then the README's "Your
// tasks" block line by line (tests/helpers/readme.ts) — check, dry run, a capped k=1 sweep with the
// REAL opencode binary, `judge --bases` and `report`, the export into a project: the base harness
// leaves the refunds out (1 of 4 lines right) and the adopted one, holding the improvers' rule,
// gets all four — a delta of +0.75. Then SIGTERM stops the servers and the command exits 0.
// This is also the tasks × OpenCode cell (solver and improvers both the real opencode binary): a
// marker planted in the task's answer key reaches no evidence folder, and every rollout and
// improver session is paid in the ledger.

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstLine, MAIN, runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";
import { launcherDir, recipeLines, runLine } from "../helpers/readme.ts";

/** Planted in the answer key only: it must never reach an evidence folder. */
const SECRET = "answer-key-marker-must-not-leak";

const root = mkdtempSync(join(tmpdir(), "h2-e2e-serve-"));
let server: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => {
  server?.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 serve-model with harness2 init's task, through the README's recipe", () => {
  test("init → serve-model → the README's Your tasks block as printed (+0.750, merged into a project); SIGTERM ends it with 0", async () => {
    const init = await runCli(["init", "my-tasks"], { cwd: root });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("serve-model prints the env lines");
    // A comment line in the answer key: the check still runs, and the marker is in tests/.
    appendFileSync(
      join(root, "my-tasks", "reports", "expense-summary", "tests", "check"),
      `# ${SECRET}\n`,
    );
    server = Bun.spawn([process.execPath, MAIN, "serve-model", "--json"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const served = JSON.parse(await firstLine(server.stdout as ReadableStream<Uint8Array>)) as {
      env: Record<string, string>;
    };
    const env = { ...served.env, HARNESS2_BACKOFF_S: "0" };
    const bin = launcherDir(root);
    const printed: Record<string, string> = {};
    for (const line of recipeLines("Your tasks")) {
      const r = await runLine(line.command, { cwd: root, bin, env });
      if (r.code !== line.exit) console.error(line.command, r.stdout, r.stderr);
      expect({ command: line.command, code: r.code }).toEqual({
        command: line.command,
        code: line.exit,
      });
      printed[line.command] = r.stdout;
    }
    const output = (start: string) =>
      Object.entries(printed).find(([c]) => c.startsWith(start))?.[1] ?? "";
    // The run ends with its verdict and the commands that come next, and they work as printed.
    const run = output("harness2 run --bench tasks --tasks my-tasks --k 1");
    expect(run).toContain("Verdict: 1 task adapted, 0 failed, 0 already done; 1 lesson stored");
    const exportLine = run.split("\n").find((l) => l.includes(" harness export "));
    // "  harness2 harness export … --domain reports   what it does": the command, then its words.
    const exportArgs = ((exportLine ?? "").trim().split(/\s{3,}/)[0] ?? "").split(/\s+/).slice(1);
    expect(exportArgs.slice(0, 3)).toEqual(["harness", "export", "./adapted-harness"]);
    const exported = await runCli(exportArgs, { cwd: root, env });
    expect(exported.code).toBe(0);
    expect(existsSync(join(root, "adapted-harness", "AGENTS.md"))).toBe(true);
    // The README's judge and report: the base at 0.250, the pick at 1.000, a delta of +0.750.
    const judged = output("harness2 judge last --bases");
    expect(judged).toMatch(/base reports\/expense-summary k=1 base1: 0\.250/);
    expect(judged).toContain("+0.750");
    const runs = join(root, "runs");
    const json = await runCli(["report", "last", "--json", "--runs", runs], { cwd: root, env });
    const cell = (JSON.parse(json.stdout) as { summaries: { delta: { mean: number } }[] })
      .summaries[0];
    expect(cell?.delta.mean).toBeCloseTo(0.75, 9);
    // The answer key never reached an evidence folder (what every session was shown).
    const evidence = allFiles(runs).filter((p) => /\/(context|selection|reflection)\//.test(p));
    expect(evidence.length).toBeGreaterThan(0);
    for (const p of evidence) {
      expect(p).not.toContain("/tests/");
      expect(readFileSync(p, "latin1")).not.toContain(SECRET);
    }
    // Every rollout ran (none reused) and was paid; the improver sessions were paid too.
    const db = new Database(join(runs, "harness2.db"), { readonly: true });
    try {
      const rollouts = db
        .query("SELECT usd, cached FROM ledger_entries WHERE kind = 'rollout'")
        .all() as { usd: number; cached: number }[];
      expect(rollouts.length).toBeGreaterThan(1);
      for (const e of rollouts) expect([e.cached, e.usd > 0]).toEqual([0, true]);
      const sessions = db
        .query("SELECT COUNT(*) AS n, SUM(usd) AS usd FROM ledger_entries WHERE kind = 'session'")
        .get() as { n: number; usd: number };
      expect(sessions.n).toBeGreaterThan(0);
      expect(sessions.usd).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    // Taken home: merged into the project's own folder.
    expect(readFileSync(join(root, "my-project", "AGENTS.md"), "utf8")).toContain(
      "Add every amount with its sign",
    );
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 600_000);
});
