// What every bench script reports with: minimum and median of its runs, and the load average
// beside them (a figure is only comparable with one measured on a similarly quiet machine).
import { readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

export const min = (xs: number[]) => Math.min(...xs);
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

/** Files and folders under `dir` (what a demo left in its runs folder). */
export function census(dir: string): { files: number; dirs: number } {
  let files = 0;
  let dirs = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        dirs++;
        walk(join(d, e.name));
      } else files++;
    }
  };
  walk(dir);
  return { files, dirs };
}
