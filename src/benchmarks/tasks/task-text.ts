// Reading a task's task.md: its text, or what is wrong with it, in words a task author can act on.

import { readFileSync } from "node:fs";

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A task.md's text, or what is wrong with it: a file that cannot be read says why (permission
 * denied is not an encoding problem), and one that can is checked to be UTF-8.
 */
export function readInstructions(
  path: string,
  read: (p: string) => Uint8Array = readFileSync,
): { text: string } | { problem: string; fix: string } {
  let bytes: Uint8Array;
  try {
    bytes = read(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EACCES" || e.code === "EPERM") {
      return {
        problem: "cannot be read: permission denied",
        fix: "make it readable (chmod u+r task.md)",
      };
    }
    return {
      problem: `cannot be read (${e.code ?? e.message})`,
      fix: "check the file and its disk",
    };
  }
  try {
    return { text: UTF8.decode(bytes) };
  } catch {
    return { problem: "is not valid UTF-8 text", fix: "save it as UTF-8" };
  }
}
