import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { checkoutCommit } from "../../src/cli/version.ts";
import { SCHEMA_VERSION } from "../../store/schema.ts";
import { runCli } from "../helpers/cli.ts";

describe("harness2 executable", () => {
  test("--version names harness2, its commit and store schema, Bun, OpenCode and Codex", async () => {
    const r = await runCli(["--version"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      new RegExp(
        `^harness2 ${pkg.version.replaceAll(".", "\\.")} \\(commit [0-9a-f]{7}, store schema ${SCHEMA_VERSION}\\)$`,
      ),
    );
    expect(lines[1]).toStartWith(`bun      ${Bun.version}`);
    expect(lines[2]).toStartWith(`opencode ${pkg.dependencies["opencode-ai"]}`);
    expect(lines[3]).toStartWith(`codex    ${pkg.dependencies["@openai/codex"]}`);
    const json = await runCli(["--version", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      harness2: pkg.version,
      commit: checkoutCommit(),
      storeSchema: SCHEMA_VERSION,
      bun: Bun.version,
      opencode: { version: pkg.dependencies["opencode-ai"], source: expect.any(String) },
      codex: { version: pkg.dependencies["@openai/codex"], source: expect.any(String) },
    });
    const bad = await runCli(["--version", "--verbose"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--version takes only --json, not '--verbose'");
  }, 60_000);

  test("an executable that cannot run is named in --version, not fatal", async () => {
    const r = await runCli(["--version", "--json"], {
      env: { HARNESS2_CODEX_BIN: "/nonexistent/codex" },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).codex.missing).toContain("HARNESS2_CODEX_BIN=/nonexistent/codex");
  }, 60_000);

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
    expect(domain).toEqual({ message: "namespace x is being run by sweep y", fix: "", code: 1 });
    // An unexpected built-in error is a bug (exit 70), named by its class for the report.
    expect(formatError(new TypeError("x is undefined"))).toEqual({
      message: "TypeError: x is undefined",
      fix: "",
      code: 70,
    });
  });

  test("each kind of the one error family has its exit code, and its fix ends the line", async () => {
    const { formatError, CliError } = await import("../../src/cli/errors.ts");
    const { SpawnError } = await import("../../src/core/lib/spawn-error.ts");
    const { UsageError } = await import("../../src/cli/command.ts");
    const { InterruptedError } = await import("../../src/core/lib/interrupt.ts");
    const { InvalidEventError } = await import("../../store/writer.ts");
    const { StorePlaceError } = await import("../../store/store-errors.ts");
    expect(formatError(new UsageError("bad flag")).code).toBe(2);
    expect(formatError(new CliError("no such sweep")).code).toBe(1);
    expect(formatError(new SpawnError("opencode", "ENOENT")).code).toBe(4);
    expect(formatError(new InterruptedError("stopped")).code).toBe(130);
    expect(formatError(new CliError("the cap is reached", { kind: "capped" })).code).toBe(3);
    expect(new InvalidEventError("x", "y").name).toBe("InvalidEventError");
    expect(formatError(new InvalidEventError("x", "y")).code).toBe(70);
    const place = new StorePlaceError("/r", "/r is a file", "choose a directory", "runs");
    expect(place.name).toBe("StorePlaceError");
    expect(place.message).toBe("/r is a file");
    expect(formatError(place)).toEqual({
      message: "/r is a file. Fix: choose a directory",
      fix: "choose a directory",
      code: 4,
    });
  });
});

describe("the commit --version names", () => {
  test("is read from a worktree's .git file, its HEAD and its common folder's refs", () => {
    const root = mkdtempSync(join(tmpdir(), "h2-version-"));
    try {
      const common = join(root, "main.git");
      const own = join(common, "worktrees", "wt");
      mkdirSync(join(common, "refs", "heads"), { recursive: true });
      mkdirSync(own, { recursive: true });
      mkdirSync(join(root, "wt"));
      writeFileSync(join(root, "wt", ".git"), `gitdir: ${own}\n`);
      writeFileSync(join(own, "HEAD"), "ref: refs/heads/topic\n");
      writeFileSync(join(own, "commondir"), "../..\n");
      writeFileSync(join(common, "packed-refs"), `${"ab12cd3".padEnd(40, "0")} refs/heads/topic\n`);
      expect(checkoutCommit(join(root, "wt"))).toBe("ab12cd3");
      writeFileSync(join(root, "wt", ".git"), "not a pointer\n");
      expect(checkoutCommit(join(root, "wt"))).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
