// Temporary folders for tests: the test preload's global afterAll removes them all once every
// file of the process has run (bun test ends without the exit hook a script would run), so
// workspaces, homes and scratch files leave nothing in the OS temp dir behind them.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** A fresh folder under `root` (the OS temp dir) named `prefix` + six random characters. */
export function testTempDir(prefix: string, root = tmpdir()): string {
  const dir = mkdtempSync(join(root, prefix));
  made.push(dir);
  return dir;
}

/**
 * Removes every folder testTempDir made so far in this process (tests/preload.ts calls it once
 * every file has run; a file may call it from its afterAll too).
 */
export function removeTestTempDirs(): void {
  for (const dir of takeTestTempDirs()) rmSync(dir, { recursive: true, force: true });
}

/** The folders made so far, forgotten here: the caller removes them. */
export function takeTestTempDirs(): string[] {
  return made.splice(0);
}
