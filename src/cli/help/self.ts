// How to type harness2 so that a printed hint works exactly as printed (README.md, "Two
// commands"): `harness2` when that name on the user's PATH is this checkout's launcher (a package
// runner's own node_modules/.bin does not count: the shell does not have it), else the launcher's
// path (relative inside the checkout, absolute elsewhere). Never `npx harness2` or `bunx
// harness2` outside the checkout: those would fetch whatever the registry holds under that name.

import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { which } from "../../core/lib/process.ts";

export const LAUNCHER = resolve(import.meta.dir, "../../../bin/harness2");

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function selfCommand(env: Record<string, string | undefined>, cwd: string): string {
  // The checkout's own node_modules/.bin is on PATH only inside a package runner (`npx bun run
  // harness2`, `bunx`): the user's shell, where the hint is typed, does not have it.
  const ownBin = resolve(LAUNCHER, "..", "..", "node_modules", ".bin");
  const path = (env.PATH ?? "")
    .split(":")
    .filter((d) => d !== "" && real(resolve(d)) !== real(ownBin))
    .join(":");
  const onPath = which("harness2", { ...env, PATH: path });
  if (onPath !== null && real(onPath) === real(LAUNCHER)) return "harness2";
  const rel = relative(cwd, LAUNCHER);
  const shown = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : LAUNCHER;
  return /[^\w./-]/.test(shown) ? `'${shown.replaceAll("'", "'\\''")}'` : shown;
}
