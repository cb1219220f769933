// The version an agent CLI binary printed, remembered by the binary's identity (its real path,
// inode, size and change times), so `check`, `version` and every later start of the same binary do
// not pay for `--version` again: OpenCode's costs about 2 s of CPU. A binary replaced or touched
// since is asked again. The memory is one small JSON file in the user's cache folder
// (`$XDG_CACHE_HOME/harness2/`, else `~/.cache/harness2/`); one that cannot be read or written is
// no memory at all, never an error. docs/guide/where-things-live.md.

import { readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../core/lib/atomic-write.ts";

/** Entries kept: a machine holds a few installations, not hundreds. */
const KEEP = 32;

/** The cache file for `env`, or null when there is no home to put it in. */
export function versionCacheFile(env: Record<string, string | undefined>): string | null {
  const base = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, ".cache") : "");
  return base === "" ? null : join(base, "harness2", "cli-versions.json");
}

/** What identifies one binary file as it is now; null when it cannot be read. */
function identity(bin: string): string | null {
  try {
    const real = realpathSync(bin);
    const st = statSync(real);
    if (!st.isFile()) return null;
    return [real, st.ino, st.size, st.mtimeMs, st.ctimeMs].join("|");
  } catch {
    return null;
  }
}

function readCache(file: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") out[k] = v;
    return out;
  } catch {
    return {};
  }
}

/**
 * The version of the binary `bin`: remembered when this very file printed one before, else
 * `probe()` (which throws when the binary cannot start) and remembered for next time.
 */
export async function rememberedVersion(
  bin: string,
  env: Record<string, string | undefined>,
  probe: () => Promise<string>,
): Promise<string> {
  const file = versionCacheFile(env);
  const id = identity(bin);
  if (file === null || id === null) return probe();
  const cache = readCache(file);
  const known = cache[id];
  if (known !== undefined && known !== "") return known;
  const version = await probe();
  try {
    // Written after the probe, so a binary that failed to start is never remembered.
    const entries = Object.entries(cache).filter(([k]) => k !== id);
    const kept = Object.fromEntries([...entries.slice(-(KEEP - 1)), [id, version]]);
    writeFileAtomic(file, `${JSON.stringify(kept, null, 2)}\n`, { mkdir: true });
  } catch {
    // No cache folder: the next start asks again.
  }
  return version;
}
