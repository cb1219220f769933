// The offline path to "my own tasks" on Codex, followed as printed: `harness2 init`, `harness2
// serve-model --substrate cx` (scripted Responses servers for the solver and the improvers), its
// env lines, then the README's "Your tasks" block with `--substrate cx` on check and run, as the
// README says: a capped k=1 sweep where every session is the REAL codex binary, `judge --bases`
// and `report` (+0.750, as on OpenCode), and `harness export --into` the project. Then SIGTERM
// stops the servers and the command exits 0.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstLine, MAIN, runCli } from "../helpers/cli.ts";
import { launcherDir, recipeLines, runLine } from "../helpers/readme.ts";

const root = mkdtempSync(join(tmpdir(), "h2-e2e-serve-cx-"));
let server: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => {
  server?.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

describe("harness2 serve-model --substrate cx with harness2 init's task", () => {
  test("init → serve-model --substrate cx → the README recipe on Codex: +0.750, merged into a project", async () => {
    expect((await runCli(["init", "my-tasks"], { cwd: root })).code).toBe(0);
    const help = await runCli(["serve-model", "--help"]);
    expect(help.stdout).toContain("--substrate oc|cx");
    server = Bun.spawn([process.execPath, MAIN, "serve-model", "--substrate", "cx", "--json"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const served = JSON.parse(await firstLine(server.stdout as ReadableStream<Uint8Array>)) as {
      env: Record<string, string>;
    };
    expect(served.env.HARNESS2_IMPROVER_CHANNEL).toBe("codex");
    const env = { ...served.env, HARNESS2_BACKOFF_S: "0" };
    // The README's "Your tasks" block, with `--substrate cx` added to check and run as it says.
    const bin = launcherDir(root);
    const printed: Record<string, string> = {};
    for (const line of recipeLines("Your tasks")) {
      const command = /^harness2 (check|run) /.test(line.command)
        ? `${line.command} --substrate cx`
        : line.command;
      const r = await runLine(command, { cwd: root, bin, env });
      if (r.code !== line.exit) console.error(command, r.stdout, r.stderr);
      expect({ command, code: r.code }).toEqual({ command, code: line.exit });
      printed[command] = r.stdout;
    }
    const output = (start: string) =>
      Object.entries(printed).find(([c]) => c.startsWith(start))?.[1] ?? "";
    expect(output("harness2 check")).toContain("codex improvers: improver-model, priced from");
    expect(output("harness2 run --bench tasks --tasks my-tasks --k 1")).toContain(
      "Verdict: 1 task adapted, 0 failed, 0 already done; 1 lesson stored",
    );
    const runs = join(root, "runs");
    const judged = await runCli(["judge", "last", "--bases", "--json", "--runs", runs], {
      cwd: root,
      env,
    });
    expect(judged.code).toBe(0);
    const rows = (JSON.parse(judged.stdout) as { rows: { kind: string; score: number }[] }).rows;
    expect(rows.map((r) => [r.kind, r.score])).toEqual([
      ["pick", 1],
      ["base", 0.25],
    ]);
    const report = await runCli(["report", "last", "--json", "--runs", runs], { cwd: root, env });
    const summary = (JSON.parse(report.stdout) as { summaries: { delta: { mean: number } }[] })
      .summaries[0];
    expect(summary?.delta.mean).toBeCloseTo(0.75, 9);

    // The adopted Codex harness was merged into the project the recipe made.
    const agents = readFileSync(join(root, "my-project", "AGENTS.md"), "utf8");
    expect(agents).toContain("- Add every amount with its sign");
    expect(agents).not.toContain(root);

    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 600_000);
});
