// The offline path to "my own tasks", followed as printed: `harness2 init`, then `harness2
// serve-model` (the shipped scripted solver and improver), its env lines, a k=1 sweep with the REAL
// opencode binary, `judge --bases` and `report`: the base harness leaves the refunds out (1 of 4
// lines right) and the adopted one, holding the improvers' rule, gets all four — a delta of +0.75.
// Then SIGTERM stops the servers and the command exits 0.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, runCli } from "../helpers/cli.ts";

const root = mkdtempSync(join(tmpdir(), "h2-e2e-serve-"));
let server: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => {
  server?.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0] ?? "";
}

describe("harness2 serve-model with harness2 init's task", () => {
  test("init → serve-model → run --k 1 → judge --bases → report shows +0.750; SIGTERM ends it with 0", async () => {
    const init = await runCli(["init", "my-tasks"], { cwd: root });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("serve-model prints the env lines");
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
    const runs = join(root, "runs");
    const run = await runCli(
      ["run", "--bench", "tasks", "--tasks", "my-tasks", "--k", "1", "--no-tui", "--runs", runs],
      { cwd: root, env },
    );
    if (run.code !== 0) console.error(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    // The run ends with its verdict and the commands that come next, and they work as printed.
    expect(run.stdout).toContain(
      "Verdict: 1 task adapted, 0 failed, 0 already done; 1 lesson stored",
    );
    const exportLine = run.stdout.split("\n").find((l) => l.includes(" harness export "));
    const exportArgs = (exportLine ?? "").trim().split(/\s+/).slice(1, 8);
    expect(exportArgs.slice(0, 3)).toEqual(["harness", "export", "./adapted-harness"]);
    const exported = await runCli(exportArgs, { cwd: root, env });
    expect(exported.code).toBe(0);
    expect(existsSync(join(root, "adapted-harness", "AGENTS.md"))).toBe(true);
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
    const cell = (JSON.parse(report.stdout) as { summaries: { delta: { mean: number } }[] })
      .summaries[0];
    expect(cell?.delta.mean).toBeCloseTo(0.75, 9);
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 600_000);
});
