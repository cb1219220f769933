import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { runCli } from "../helpers/cli.ts";

describe("harness2 executable", () => {
  test("--version prints the package version", async () => {
    const r = await runCli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  test("--help lists the commands and exits 0", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: harness2 <command>");
    expect(r.stdout).toContain("help");
  });

  test("no arguments outside a terminal prints the help", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: harness2");
  });

  test("an unknown command is one line on stderr with exit 2", async () => {
    const r = await runCli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stderr).toContain("harness2 --help");
  });

  test("an unknown top-level flag is exit 2", async () => {
    const r = await runCli(["--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
  });

  test("help for an unknown command is exit 2", async () => {
    const r = await runCli(["help", "nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'nope'");
  });
});

describe("error formatting at the CLI edge", () => {
  test("a domain error is its own sentence; a built-in error keeps its class for bug reports", async () => {
    const { formatError } = await import("../../src/cli/errors.ts");
    class SweepLockedError extends Error {
      override name = "SweepLockedError";
    }
    const domain = formatError(new SweepLockedError("namespace x is being run\nby sweep y"));
    expect(domain).toEqual({ message: "namespace x is being run by sweep y", code: 1 });
    expect(formatError(new TypeError("x is undefined")).message).toBe("TypeError: x is undefined");
  });
});
