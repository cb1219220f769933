// Temporary folders for tests: the test preload's global afterAll removes them all once every
// file of the process has run (bun test ends without the exit hook a script would run), so
// workspaces, homes and scratch files leave nothing in the OS temp dir behind them.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** A fresh folder under the OS temp dir named `prefix` + six random characters. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder testTempDir made in this process (tests/preload.ts calls it). */
export function removeTestTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
