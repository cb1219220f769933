// The strict argv parser every command goes through: negative numbers reach the option's own range
// check, a missing value is named with what the option takes, and a bad flag never runs anything.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Command, intOpt, parseCommandArgs, UsageError } from "../../src/cli/command.ts";
import { runCli } from "../helpers/cli.ts";

const cmd: Command = {
  name: "try",
  summary: "a command for the parser",
  options: {
    k: { type: "string", valueName: "N", description: "candidates per mode (default 2)" },
    tag: { type: "string", short: "t", valueName: "TAG", description: "a variant" },
    json: { type: "boolean", description: "json" },
  },
  positionals: { min: 0, max: 2 },
  run: async () => 0,
};

function usageMessage(argv: string[]): string {
  try {
    parseCommandArgs(cmd, argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`parsed without a usage error: ${argv.join(" ")}`);
}

describe("parseCommandArgs", () => {
  test("a negative number after a string option is its value, in every spelling", () => {
    expect(parseCommandArgs(cmd, ["--k", "-1"]).values.k).toBe("-1");
    expect(parseCommandArgs(cmd, ["--k=-1"]).values.k).toBe("-1");
    expect(parseCommandArgs(cmd, ["-t", "-3", "--json"]).values).toEqual({ tag: "-3", json: true });
    expect(parseCommandArgs(cmd, ["--tag", "-0.5"]).values.tag).toBe("-0.5");
  });

  test("`harness2 help help` is the help of help, exit 0", async () => {
    const r = await runCli(["help", "help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: harness2 help [COMMAND]");
    expect(r.stderr).toBe("");
  });

  test("the range check then names the flag and the allowed values", () => {
    const args = parseCommandArgs(cmd, ["--k", "-1"]);
    expect(() => intOpt(args, "k", { min: 1, max: 8 }, "try")).toThrow("--k must be 1..8, got -1");
    expect(() => intOpt(args, "k", { min: 0 }, "try")).toThrow("--k must be at least 0, got -1");
  });

  test("an option followed by another option is a missing value, naming what it takes", () => {
    expect(usageMessage(["--k", "--json"])).toBe(
      "option '--k' needs a value (--k N: candidates per mode (default 2)); '--json' is another option",
    );
    expect(usageMessage(["--tag", "-x"])).toBe(
      "option '--tag' needs a value (--tag TAG: a variant); write --tag=-x if '-x' is the value",
    );
  });

  test("an option at the end of the line is a missing value, naming what it takes", () => {
    expect(usageMessage(["--k"])).toBe(
      "option '--k' needs a value (--k N: candidates per mode (default 2))",
    );
  });

  test("after `--` nothing is read as an option", () => {
    expect(parseCommandArgs(cmd, ["--", "--k", "-1"]).positionals).toEqual(["--k", "-1"]);
  });

  test("a value given with = is never split, even when it looks like an option", () => {
    expect(parseCommandArgs(cmd, ["--tag=--json"]).values.tag).toBe("--json");
  });
});

describe("negative and missing values from the command line", () => {
  const root = mkdtempSync(join(tmpdir(), "h2-cmd-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const cases: [string[], string][] = [
    [["demo", "--k", "-1"], "--k must be 1..8, got -1"],
    [["run", "--k", "-1"], "--k must be 1..16, got -1"],
    [["run", "--seed", "-5"], "--seed must be at least 0, got -5"],
    [["runs", "--limit", "-1"], "--limit must be at least 1, got -1"],
    // Beyond 2^53 a number is not exact: a range error, never SQLite's "datatype mismatch".
    [
      ["runs", "--limit", "99999999999999999999"],
      "--limit must be at most 9007199254740991, got 99999999999999999999",
    ],
    [["run", "--seed", "99999999999999999999"], "--seed must be at most 9007199254740991"],
    [
      ["demo", "--k", "--no-tui"],
      "option '--k' needs a value (--k N: candidates per mode (default 2)); '--no-tui' is another option",
    ],
  ];
  for (const [argv, message] of cases) {
    test(`${argv.join(" ")}: one line naming the flag and what it allows, exit 2`, async () => {
      const runs = join(root, argv.join("_"));
      const r = await runCli([...argv, "--runs", runs]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain("ambiguous");
      expect(existsSync(runs)).toBe(false);
    });
  }
});
