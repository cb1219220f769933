// Starts tests/store/child.ts as its own process and waits on the lines it prints (readiness
// signals, never sleeps).

import type { Subprocess } from "bun";

const CHILD = `${import.meta.dir}/child.ts`;

export type Child = {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Resolves with the first printed line matching `re` (rejects if the child exits first). */
  waitFor(re: RegExp): Promise<string>;
  stderr(): Promise<string>;
};

export function spawnChild(args: string[]): Child {
  const proc = Bun.spawn([process.execPath, CHILD, ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let partial = "";
  let ended = false;
  const pump = async () => {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    partial += decoder.decode(value, { stream: true });
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  };
  let seen = 0;
  return {
    proc,
    async waitFor(re) {
      for (;;) {
        while (seen < lines.length) {
          const line = lines[seen++] as string;
          if (re.test(line)) return line;
        }
        if (ended) {
          const err = await new Response(proc.stderr).text();
          throw new Error(`child ended without printing ${re}: ${err}`);
        }
        await pump();
      }
    },
    stderr: () => new Response(proc.stderr).text(),
  };
}
