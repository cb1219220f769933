// What every bench script reports with: minimum and median of its runs, and the load average
// beside them (a figure is only comparable with one measured on a similarly quiet machine).
import { loadavg } from "node:os";

export const min = (xs: number[]) => Math.min(...xs);
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
