// The strict argv parser every command goes through: negative numbers reach the option's own range
// check, a missing value is named with what the option takes, and a bad flag never runs anything.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Command,
  defineCommand,
  formatCommandHelp,
  parseCommandArgs,
  UsageError,
} from "../../src/cli/command.ts";
import runCommand from "../../src/cli/commands/run.ts";
import { runCli } from "../helpers/cli.ts";

const cmd: Command = {
  name: "try",
  summary: "a command for the parser",
  options: {
    k: { type: "string", valueName: "N", description: "candidates per mode (default 2)" },
    n: { type: "int", min: 1, max: 8, valueName: "N", description: "a bounded count" },
    seed: { type: "int", min: 0, valueName: "N", description: "an unbounded one" },
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
    expect(parseCommandArgs(cmd, ["--k", "-1"]).opts.k).toBe("-1");
    expect(parseCommandArgs(cmd, ["--k=-1"]).opts.k).toBe("-1");
    expect(parseCommandArgs(cmd, ["-t", "-3", "--json"]).opts).toEqual({
      k: undefined,
      n: undefined,
      seed: undefined,
      tag: "-3",
      json: true,
    });
    expect(parseCommandArgs(cmd, ["--tag", "-0.5"]).opts.tag).toBe("-0.5");
  });

  test("`harness2 help help` is the help of help, exit 0", async () => {
    const r = await runCli(["help", "help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: harness2 help [COMMAND]");
    expect(r.stderr).toBe("");
  });

  test("the range check then names the flag and the allowed values", () => {
    expect(usageMessage(["--n", "-1"])).toBe("--n must be 1..8, got -1");
    expect(usageMessage(["--seed", "-1"])).toBe("--seed must be at least 0, got -1");
    expect(usageMessage(["--n", "2.5"])).toBe("--n takes a whole number, got '2.5'");
    expect(usageMessage(["--seed", "99999999999999999999"])).toBe(
      `--seed must be at most ${Number.MAX_SAFE_INTEGER}, got 99999999999999999999`,
    );
    expect(parseCommandArgs(cmd, ["--n", "8"]).opts.n).toBe(8);
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
    expect(parseCommandArgs(cmd, ["--tag=--json"]).opts.tag).toBe("--json");
  });
});

describe("one schema per command: parsing, types and help", () => {
  const typed = defineCommand({
    name: "typed",
    summary: "typed options",
    options: {
      sub: {
        type: "choice",
        choices: ["oc", "cx"],
        hints: { demo: "the demo has its own command" },
        description: "a framework",
      },
      many: { type: "string", multiple: true, valueName: "X", description: "repeatable" },
      flag: { type: "boolean", description: "a flag" },
    },
    run: async (args) => {
      // The types come from the schema: these lines only compile because they do.
      const sub: "oc" | "cx" | undefined = args.opts.sub;
      const many: string[] = args.opts.many;
      const flag: boolean = args.opts.flag;
      return sub === undefined && many.length === 0 && !flag ? 0 : 1;
    },
  });
  const message = (argv: string[]) => {
    try {
      parseCommandArgs(typed, argv);
    } catch (err) {
      return (err as Error).message;
    }
    return "";
  };

  test("a choice is checked while parsing; a hinted value gets its own line", () => {
    expect(parseCommandArgs(typed, ["--sub", "cx"]).opts.sub).toBe("cx");
    expect(message(["--sub", "zz"])).toBe("--sub must be oc or cx, got 'zz'");
    expect(message(["--sub", "demo"])).toBe("the demo has its own command");
  });

  test("absent values: booleans false, repeated strings empty, the rest undefined", async () => {
    const args = parseCommandArgs(typed, []);
    expect(args.opts as unknown).toEqual({ sub: undefined, many: [], flag: false });
    expect(await typed.run(args, {} as never)).toBe(0);
    const repeated = parseCommandArgs(typed, ["--many", "a", "--many", "b"]);
    expect(repeated.opts.many as unknown).toEqual(["a", "b"]);
  });

  test("help lists a choice's values and an int's value name", () => {
    const help = formatCommandHelp(typed);
    expect(help).toContain("--sub oc|cx");
    expect(help).toContain("--many X");
    expect(formatCommandHelp(cmd)).toContain("--n N");
    // The drift that started this: run's help offered only oc for --substrate.
    expect(formatCommandHelp(runCommand)).toContain("--substrate oc|cx");
    expect(formatCommandHelp(runCommand)).toContain("--bench tasks|jb|lab|wb");
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
