// Every regular file under a folder, for tests that check what a run left on disk.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Absolute paths of every file below `dir`, depth first, names sorted. */
export function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}
