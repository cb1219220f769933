// Headless paths start fast: `demo --no-tui`, `demo --json` and the read-only commands without a
// terminal load no Ink or React module at all (the UI is imported only when it is shown).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN } from "../helpers/cli.ts";

const ROOT = mkdtempSync(join(tmpdir(), "h2-headless-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
const PRELOAD = join(import.meta.dir, "..", "helpers", "report-ink.ts");

async function uiModules(args: string[]): Promise<{ code: number; loaded: number }> {
  const proc = Bun.spawn([process.execPath, "--preload", PRELOAD, MAIN, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const m = /ui-modules-loaded (\d+)/.exec(err);
  if (m === null) throw new Error(`no report from the preload: ${err}`);
  return { code, loaded: Number(m[1]) };
}

test(
  "demo --no-tui / --json, runs, show and report --json load no Ink or React",
  async () => {
    const runs = join(ROOT, "runs");
    for (const args of [
      ["demo", "--no-tui", "--k", "1", "--runs", runs],
      ["demo", "--json", "--k", "1", "--runs", join(ROOT, "runs2")],
      ["runs", "--runs", runs],
      ["show", "last", "--runs", runs],
      ["report", "last", "--json", "--runs", runs],
    ]) {
      expect({ args, ...(await uiModules(args)) }).toEqual({ args, code: 0, loaded: 0 });
    }
  },
  { timeout: 120_000 },
);
