// What every bench script reports with: minimum and median of its runs, and the load average
// beside them (a figure is only comparable with one measured on a similarly quiet machine).
import { readdirSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
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

/**
 * The machine a bench ran on, for its first line: cores, CPU model, memory and Bun, with the load
 * average at that moment.
 */
export function machine(): string {
  const list = cpus();
  const model = list[0]?.model.trim() || "unknown CPU";
  const gib = Math.round(totalmem() / 2 ** 30);
  return `machine: ${list.length} cores (${model}), ${gib} GiB, bun ${Bun.version}; load average ${load()}`;
}

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
