// A store this user may not read is said so in one line, exit 1 — never "No runs yet" (a folder on
// its way it may not search) nor SQLite's raw "unable to open database file" (a file it may not
// read). Root reads everything, so the commands run as `nobody` (runuser), which needs root and a
// checkout `nobody` may run (skipped otherwise).

import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore } from "../../store/db.ts";
import { type CliResult, runCaptured } from "../helpers/cli.ts";

const ROOT = resolve(import.meta.dir, "../..");
const root = mkdtempSync(join(tmpdir(), "h2-perm-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const asRoot = process.getuid?.() === 0 && Bun.which("runuser") !== null;
/**
 * `nobody` must be able to run this checkout's launcher at all (a checkout inside a private
 * folder, as a fresh clone under `mktemp -d` is, cannot be): otherwise there is nothing to test.
 */
const nobodyCanRun =
  asRoot &&
  Bun.spawnSync([
    "runuser",
    "-u",
    "nobody",
    "--",
    "sh",
    "-c",
    `test -x '${join(ROOT, "bin", "harness2")}' && test -r '${join(ROOT, "src", "cli", "main.ts")}' && test -x '${join(ROOT, "node_modules", ".bin", "bun")}'`,
  ]).exitCode === 0;

async function asNobody(args: string[]): Promise<CliResult> {
  return runCaptured(["runuser", "-u", "nobody", "--", join(ROOT, "bin", "harness2"), ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", HOME: "/tmp" },
  });
}

describe.skipIf(!nobodyCanRun)("a store this user may not read", () => {
  test("a folder on its way it may not search, then a file it may not read: one line each, exit 4 (the environment)", async () => {
    chmodSync(root, 0o755);
    const runs = join(root, "runs");
    mkdirSync(runs);
    openStore(join(runs, "harness2.db")).close();

    chmodSync(runs, 0o700);
    const folder = await asNobody(["runs", "--runs", runs]);
    expect(folder.code).toBe(4);
    expect(folder.stdout).not.toContain("No runs yet");
    expect(folder.stderr).toContain("cannot be reached: permission denied on a folder on its way");
    expect(folder.stderr.trim().split("\n")).toHaveLength(1);

    chmodSync(runs, 0o755);
    chmodSync(join(runs, "harness2.db"), 0o000);
    for (const command of [["runs"], ["show", "last"], ["report", "last"]]) {
      const file = await asNobody([...command, "--runs", runs]);
      expect({ command, code: file.code }).toEqual({ command, code: 4 });
      expect(file.stderr).toContain("cannot be read by this user: permission denied. Fix:");
      expect(file.stderr).not.toContain("unable to open database file");
    }
  }, 60_000);
});
