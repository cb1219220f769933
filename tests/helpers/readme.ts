// The README's recipes, run as printed: the command lines of the ```sh block after a recipe's
// bold title, each with the exit code its comment promises ("exit 3"; else 0), run by bash with
// `harness2` on PATH (this checkout's launcher) in a folder of the test's own.

import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { type CliResult, runCaptured } from "./cli.ts";

const ROOT = resolve(import.meta.dir, "../..");

export type RecipeLine = { command: string; exit: number };

/** The lines of the recipe titled `title` (the README's "**Try it.**" → "Try it"). */
export function recipeLines(title: string): RecipeLine[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf(`**${title}.**`);
  if (at < 0) throw new Error(`README.md has no recipe "${title}"`);
  const start = readme.indexOf("```sh\n", at) + "```sh\n".length;
  const block = readme.slice(start, readme.indexOf("\n```", start));
  return block
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const hash = l.search(/\s#\s/);
      const comment = hash < 0 ? "" : l.slice(hash);
      const exit = Number(comment.match(/exit (\d+)/)?.[1] ?? 0);
      return { command: (hash < 0 ? l : l.slice(0, hash)).trim(), exit };
    });
}

/** A folder whose `harness2` is this checkout's launcher, to put first on PATH. */
export function launcherDir(scratch: string): string {
  const dir = join(scratch, "bin");
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(ROOT, "bin", "harness2"), join(dir, "harness2"));
  return dir;
}

/**
 * Runs one recipe line with bash in `cwd`: the parent's environment without its HARNESS2_*
 * settings (a user's shell has none), `extra` on top, `harness2` from `bin` first on PATH.
 */
export async function runLine(
  command: string,
  opts: { cwd: string; bin: string; env?: Record<string, string> },
): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("HARNESS2_")) env[k] = v;
  }
  return runCaptured(["bash", "-c", command], {
    cwd: opts.cwd,
    env: { ...env, NO_COLOR: "1", PATH: `${opts.bin}:${env.PATH ?? ""}`, ...opts.env },
  });
}
