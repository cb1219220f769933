// What is left running after a test: live processes that mention a path (a session's own
// directory is in its command line or environment), and zombie children of the test process.

import { readdirSync, readFileSync } from "node:fs";

/** The state letter and parent pid of a process from /proc, or null when it is gone. */
function statOf(pid: string): { state: string; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: state ?? "", ppid: Number(ppid) };
  } catch {
    return null;
  }
}

/** Live (non-zombie) processes other than this one whose command line or environment holds `needle`. */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const st = statOf(entry);
    if (st === null || st.state === "Z") continue;
    try {
      const seen =
        readFileSync(`/proc/${entry}/cmdline`, "utf8") +
        readFileSync(`/proc/${entry}/environ`, "utf8");
      if (seen.includes(needle)) out.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Zombie children of this test process (a reaped child leaves none). */
export function zombieChildren(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const st = statOf(entry);
    if (st !== null && st.state === "Z" && st.ppid === process.pid) out.push(Number(entry));
  }
  return out;
}
