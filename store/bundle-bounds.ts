// What `harness2 import` accepts from a file it did not write (docs/differences.md X41): an
// imported sweep is data, read within bounds. The file must be a regular file no larger than
// BUNDLE_MAX_BYTES (a device or a FIFO is refused before a byte is read, so `/dev/zero` cannot grow
// memory and a FIFO cannot block); every number in it must be finite and within the range a sweep
// can produce; every domain and task name must be a safe path segment, because the store's views,
// the library and the runs folder build paths from them.

import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from "node:fs";

/** The largest bundle import reads: far above any sweep harness2 writes (a k=5 LAB sweep is ~40 MB). */
export const BUNDLE_MAX_BYTES = 256 * 1024 * 1024;

/** The most one event may say was spent, in dollars; more is not a record of a real sweep. */
export const MAX_EVENT_USD = 1_000_000;

const MAX_NAME = 200;

/** Why a file cannot be read as a bundle, said in one line; null when it was read. */
export type BoundedRead = { text: string } | { problem: string };

/**
 * The file's text, read through one descriptor: opened without blocking (a FIFO with no writer
 * opens at once), checked to be a regular file within `maxBytes` on that same descriptor, then
 * read whole. A file that grows while being read is cut at `maxBytes + 1` and refused.
 */
export function readBounded(path: string, maxBytes = BUNDLE_MAX_BYTES): BoundedRead {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (err) {
    return { problem: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      return {
        problem: `${path} is not a regular file: import reads a file harness2 export wrote`,
      };
    }
    if (st.size > maxBytes) {
      return {
        problem: `${path} is ${mb(st.size)}, over import's limit of ${mb(maxBytes)}: it is not a sweep harness2 exported`,
      };
    }
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let got = 0;
    for (;;) {
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
      if (got === buf.length) {
        return { problem: `${path} grew past import's limit of ${mb(maxBytes)} while being read` };
      }
    }
    return { text: buf.subarray(0, got).toString("utf8") };
  } catch (err) {
    return { problem: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}` };
  } finally {
    closeSync(fd);
  }
}

const mb = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MB`;

/**
 * Why a name cannot be a domain (one path segment) or a task (segments joined by `/`); null when
 * it can. Refused: empty, longer than 200 characters, a control character or a backslash, a
 * leading `-`, and an empty, `.` or `..` segment.
 */
export function nameProblem(name: string, kind: "domain" | "task"): string | null {
  if (name === "" || name.length > MAX_NAME) return `is empty or longer than ${MAX_NAME}`;
  if (/[\u0000-\u001f\u007f\\]/.test(name)) return "holds a control character or a backslash";
  if (name.startsWith("-")) return "starts with '-'";
  if (kind === "domain" && name.includes("/")) return "holds '/' (a domain is one folder name)";
  for (const seg of name.split("/")) {
    if (seg === "" || seg === "." || seg === "..") return "has an empty, '.' or '..' part";
  }
  return null;
}

/**
 * The first thing in an event that import refuses, said as "<where> <what>"; null when there is
 * none. Every number must be finite and a safe integer's size at most; every `usd` within
 * [0, MAX_EVENT_USD]; every `domain` and `task` (and the sweep's task list) a safe name.
 */
export function eventProblem(event: unknown): string | null {
  const walk = (v: unknown, at: string, key: string): string | null => {
    if (typeof v === "number") {
      if (key === "usd" && !(v >= 0 && v <= MAX_EVENT_USD)) {
        return `${at} is $${v}, outside 0..${MAX_EVENT_USD}`;
      }
      if (!Number.isFinite(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER) {
        return `${at} is ${v}, not a number a sweep records`;
      }
      return null;
    }
    if (typeof v === "string") {
      if (key === "domain" || key === "task") {
        const p = nameProblem(v, key);
        return p === null ? null : `${at} ${JSON.stringify(v.slice(0, 60))} ${p}`;
      }
      return null;
    }
    if (Array.isArray(v)) {
      // `domains: [{ domain, tasks: [...] }]`: the task list's entries are task names.
      const itemKey = key === "tasks" ? "task" : "";
      for (let i = 0; i < v.length; i++) {
        const p = walk(v[i], `${at}[${i}]`, itemKey);
        if (p !== null) return p;
      }
      return null;
    }
    if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        const p = walk(x, at === "" ? k : `${at}.${k}`, k);
        if (p !== null) return p;
      }
    }
    return null;
  };
  return walk(event, "", "");
}
