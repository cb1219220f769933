// A reader that stops reading (`harness2 runs | true`, `harness2 demo --json | head -1`): no stack
// trace, no EPIPE line. A command that only prints finishes quietly; a sweep stops like an
// interrupt (exit 130) and the same command resumes it.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, runCli } from "../helpers/cli.ts";

/** Real python3 executions in a demo: a generous limit, not a timing check. */
const SLOW = 90_000;

type Closed = { code: number | null; stderr: string; firstLine: string };

/**
 * Runs the CLI with stdout on a pipe whose reading end is closed: at once (`| true`), or after
 * the first line (`| head -1`). stderr is collected whole.
 */
function runWithClosedStdout(
  args: string[],
  opts: { after: "start" | "first-line"; env?: Record<string, string | undefined> },
): Promise<Closed> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, NO_COLOR: "1", ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let out = "";
    let firstLine = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.on("error", () => {});
    if (opts.after === "start") {
      child.stdout.destroy();
    } else {
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        out += chunk;
        const nl = out.indexOf("\n");
        if (nl >= 0 && firstLine === "") {
          firstLine = out.slice(0, nl);
          child.stdout.destroy();
        }
      });
    }
    child.on("error", fail);
    child.on("close", (code) => done({ code, stderr, firstLine }));
  });
}

const noTrace = (stderr: string) => {
  expect(stderr).not.toContain("EPIPE");
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toContain("Bun v");
};

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "h2-closed-stdout-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a command that only prints", () => {
  test("`runs | true` with no store: exit 0, nothing on stderr", async () => {
    const r = await runWithClosedStdout(["runs", "--runs", join(root, "none")], {
      after: "start",
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  test("`help | true`: exit 0, nothing on stderr", async () => {
    const r = await runWithClosedStdout(["--help"], { after: "start" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("a sweep whose stdout closes stops like an interrupt and resumes", () => {
  test(
    "`demo --json | head -1`: exit 130, one line on stderr, and the same command resumes",
    async () => {
      const runs = join(root, "json");
      const r = await runWithClosedStdout(["demo", "--runs", runs, "--json"], {
        after: "first-line",
      });
      expect(JSON.parse(r.firstLine)).toMatchObject({ type: "sweep.started" });
      noTrace(r.stderr);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("finished work is kept (the same command resumes)");
      expect(r.code).toBe(130);

      const listing = await runCli(["runs", "--runs", runs, "--json"]);
      const sweeps = (JSON.parse(listing.stdout) as { sweeps: { status: string }[] }).sweeps;
      expect(sweeps.map((s) => s.status)).toEqual(["interrupted"]);

      const again = await runCli(["demo", "--runs", runs, "--no-tui"]);
      expect(again.stderr).toBe("");
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("0 failed");
    },
    SLOW,
  );

  test(
    "`demo --no-tui 2>err | head -1`: exit 130, no stack trace in err",
    async () => {
      const r = await runWithClosedStdout(["demo", "--runs", join(root, "lines"), "--no-tui"], {
        after: "first-line",
      });
      // The demo's first line is its legend for someone new; the sweep's lines follow.
      expect(r.firstLine).toMatch(/^How to read this: /);
      noTrace(r.stderr);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.code).toBe(130);
    },
    SLOW,
  );
});
