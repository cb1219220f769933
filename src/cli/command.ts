// The shape of one harness2 subcommand and the strict argv parser every command goes through.
// Parsing never prints: a bad command line becomes a UsageError that main turns into one line.

import { parseArgs } from "node:util";
import { Harness2Error } from "../core/lib/errors.ts";
import { colorWanted } from "../core/lib/format.ts";

type OptionCommon = {
  short?: string;
  /** Shown in `harness2 help <cmd>`. */
  description: string;
  /** Value name in help, e.g. "N" or "DIR"; a DIR, FILE or PATH value may never be empty. */
  valueName?: string;
};

/**
 * One option of a command, the single source of its parsing, its type and its help line: a
 * flag (`boolean`), free text (`string`, optionally repeated), a whole number in a range (`int`)
 * or one of a fixed set of words (`choice`, listed in help). `int` and `choice` values are
 * checked while the command line is parsed, so a command never sees a bad one.
 */
export type OptionSpec =
  | (OptionCommon & { type: "boolean" })
  | (OptionCommon & { type: "string"; multiple?: boolean })
  | (OptionCommon & { type: "int"; min: number; max?: number })
  | (OptionCommon & {
      type: "choice";
      choices: readonly string[];
      /** A value that is not a choice but means something elsewhere: the line to print for it. */
      hints?: Readonly<Record<string, string>>;
    });

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The typed value of one option: what `parseCommandArgs` puts in `opts`. */
export type OptionValue<S> = S extends { type: "boolean" }
  ? boolean
  : S extends { type: "int" }
    ? number | undefined
    : S extends { type: "choice"; choices: readonly (infer C)[] }
      ? C | undefined
      : S extends { multiple: true }
        ? string[]
        : string | undefined;

export type OptionValues<O extends OptionSpecs> = { -readonly [K in keyof O]: OptionValue<O[K]> };

/** The command line as a command receives it: typed options, and the positional arguments. */
export type ParsedArgs<O extends OptionSpecs = OptionSpecs> = {
  opts: OptionValues<O>;
  positionals: string[];
};

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is an interactive terminal (the TUI is only ever used when it is). */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  name: string;
  summary: string;
  /** Positional part of the usage line, e.g. "[RUN] [TASK]". */
  args?: string;
  /** Longer help text printed under the usage line. */
  help?: string;
  options: O;
  /** Inclusive bounds on the number of positional arguments. */
  positionals?: { min: number; max: number };
  run(args: ParsedArgs<O>, io: CliIO): Promise<number>;
}

/** A command whose `run` sees its own options typed; the registry holds it as a plain Command. */
export function defineCommand<const O extends OptionSpecs>(cmd: Command<O>): Command {
  return cmd as unknown as Command;
}

/**
 * Whether output may be coloured (core/lib/format colorWanted: NO_COLOR never, FORCE_COLOR even
 * without a terminal, else only on one). Every command decides colour through this.
 */
export function colorFor(io: Pick<CliIO, "isTTY" | "env">): boolean {
  return colorWanted(io.env, io.isTTY);
}

/** A mistake in the command line. main prints its message on one line and exits 2. */
export class UsageError extends Harness2Error {
  static override readonly errorKind = "usage";
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export function parseCommandArgs(cmd: Command, argv: string[]): ParsedArgs {
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string; multiple?: boolean }
  > = {};
  for (const [name, spec] of Object.entries(cmd.options)) {
    // node:util refuses an explicit `short: undefined`, so only set the keys a spec has.
    options[name] = {
      type: spec.type === "boolean" ? "boolean" : "string",
      ...(spec.short === undefined ? {} : { short: spec.short }),
      ...(spec.type === "string" && spec.multiple !== undefined ? { multiple: spec.multiple } : {}),
    };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinOptionValues(cmd, argv),
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new UsageError(describeParseError(cmd, err), cmd.name);
  }
  const bounds = cmd.positionals ?? { min: 0, max: 0 };
  const n = parsed.positionals.length;
  if (n < bounds.min) {
    throw new UsageError(`'${cmd.name}' needs ${cmd.args ?? "an argument"}`, cmd.name);
  }
  if (n > bounds.max) {
    const extra = parsed.positionals[bounds.max];
    throw new UsageError(`unexpected argument '${extra}' for '${cmd.name}'`, cmd.name);
  }
  refuseEmptyValues(cmd, parsed.values, parsed.positionals);
  return { opts: typedValues(cmd, parsed.values), positionals: parsed.positionals };
}

type RawValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** Every option's typed value: booleans false when absent, ints and choices checked here. */
function typedValues(cmd: Command, values: RawValues): OptionValues<OptionSpecs> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(cmd.options)) {
    const raw = values[name];
    if (spec.type === "boolean") {
      out[name] = raw === true;
    } else if (spec.type === "string" && spec.multiple === true) {
      out[name] = Array.isArray(raw) ? raw.map(String) : raw === undefined ? [] : [String(raw)];
    } else if (typeof raw !== "string") {
      out[name] = undefined;
    } else if (spec.type === "int") {
      out[name] = wholeNumber(raw, name, spec, cmd.name);
    } else if (spec.type === "choice") {
      out[name] = oneOf(raw, name, spec, cmd.name);
    } else {
      out[name] = raw;
    }
  }
  return out as OptionValues<OptionSpecs>;
}

function oneOf(
  raw: string,
  name: string,
  spec: Extract<OptionSpec, { type: "choice" }>,
  command: string,
): string {
  if (spec.choices.includes(raw)) return raw;
  const hint = spec.hints?.[raw];
  if (hint !== undefined) throw new UsageError(hint, command);
  throw new UsageError(`--${name} must be ${inWords(spec.choices)}, got '${raw}'`, command);
}

/** "a, b or c". */
function inWords(choices: readonly string[]): string {
  return choices.length < 2
    ? (choices[0] ?? "")
    : `${choices.slice(0, -1).join(", ")} or ${choices[choices.length - 1]}`;
}

/** What a path-like value name asks for, in words; other value names are not paths. */
const PATH_VALUE_WORDS: Record<string, string> = {
  DIR: "a directory",
  FILE: "a file",
  PATH: "a path",
};

/**
 * An empty value for a path option (`--output ""`, `--runs=`) would silently mean the current
 * directory (or the default), so it is a usage error naming the option. An empty positional is
 * never meaningful either (`validate ""` would validate the current directory).
 */
function refuseEmptyValues(cmd: Command, values: RawValues, positionals: readonly string[]): void {
  for (const [name, spec] of Object.entries(cmd.options)) {
    const what = spec.valueName === undefined ? undefined : PATH_VALUE_WORDS[spec.valueName];
    if (what === undefined) continue;
    const given = values[name];
    const list = Array.isArray(given) ? given : [given];
    if (list.some((v) => v === "")) {
      throw new UsageError(`--${name} needs ${what}, got an empty value`, cmd.name);
    }
  }
  const names = (cmd.args ?? "")
    .split(/\s+/)
    .filter((t) => t !== "")
    .map((t) => t.replace(/[[\]…]|\.\.\./g, ""));
  positionals.forEach((value, i) => {
    if (value !== "") return;
    const name = names[Math.min(i, names.length - 1)] ?? "an argument";
    const what = PATH_VALUE_WORDS[name];
    const wanted = what === undefined ? name : `${what} (${name})`;
    throw new UsageError(`'${cmd.name}' needs ${wanted}, got an empty value`, cmd.name);
  });
}

/** "--k N: candidates per mode (default 2)": the flag, its value and what it allows. */
function optionUsage(cmd: Command, name: string): string {
  const spec = cmd.options[name];
  if (spec === undefined) return `--${name}`;
  return `--${name} ${valueLabel(spec)}: ${spec.description}`;
}

/** The long name of `token` (`--k`, `--k=3`, `-k`) when it is one of `cmd`'s options. */
function optionName(cmd: Command, token: string): string | undefined {
  if (token.startsWith("--")) {
    const name = token.slice(2).split("=")[0] ?? "";
    return name in cmd.options ? name : undefined;
  }
  if (/^-[^-]$/.test(token)) {
    return Object.entries(cmd.options).find(([, spec]) => spec.short === token.slice(1))?.[0];
  }
  return undefined;
}

const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/;

/**
 * node:util refuses `--k -1` as "ambiguous" (the value looks like an option), so a negative
 * number after a string option is joined to it (`--k=-1`) and reaches the option's own range
 * check, which names the allowed values. A string option followed by another option (`--k
 * --no-tui`) is a missing value, said in those words. Everything after `--` is left alone.
 */
function joinOptionValues(cmd: Command, argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const name = token.includes("=") ? undefined : optionName(cmd, token);
    const next = argv[i + 1];
    if (name === undefined || cmd.options[name]?.type === "boolean" || next === undefined) {
      out.push(token);
      continue;
    }
    if (NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
      continue;
    }
    if (next.startsWith("-") && next !== "-") {
      const why =
        optionName(cmd, next) === undefined
          ? `write --${name}=${next} if '${next}' is the value`
          : `'${next}' is another option`;
      throw new UsageError(
        `option '--${name}' needs a value (${optionUsage(cmd, name)}); ${why}`,
        cmd.name,
      );
    }
    out.push(token);
  }
  return out;
}

function describeParseError(cmd: Command, err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  // node:util messages are multi-line and mention "strict"; keep the first sentence, reworded.
  const unknown = raw.match(/Unknown option '([^']+)'/);
  if (unknown) return `unknown option '${unknown[1]}'`;
  const missing = raw.match(/Option '([^']+)' argument missing/);
  if (missing) {
    // "-k, --k <value>" → "--k"
    const flag = missing[1]?.split(",").pop()?.trim().split(" ")[0] ?? "";
    const name = optionName(cmd, flag);
    return `option '${flag}' needs a value${name === undefined ? "" : ` (${optionUsage(cmd, name)})`}`;
  }
  const noValue = raw.match(/Option '([^']+)' does not take an argument/);
  if (noValue) return `option '${noValue[1]}' does not take a value`;
  return raw.split("\n")[0] ?? raw;
}

/** A whole number within `bounds`, or a UsageError naming the option and what it allows. */
function wholeNumber(
  raw: string,
  name: string,
  bounds: { min: number; max?: number },
  command: string,
): number {
  if (!/^-?\d+$/.test(raw.trim())) {
    throw new UsageError(`--${name} takes a whole number, got '${raw}'`, command);
  }
  const n = Number.parseInt(raw, 10);
  // Past 2^53 a number is no longer exact (and SQLite refuses it): out of range like any other.
  const max = Math.min(bounds.max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const range =
    bounds.max === undefined ? `at least ${bounds.min}` : `${bounds.min}..${bounds.max}`;
  if (n > max && bounds.max === undefined) {
    throw new UsageError(`--${name} must be at most ${max}, got ${raw.trim()}`, command);
  }
  if (n < bounds.min || n > max || !Number.isSafeInteger(n)) {
    throw new UsageError(`--${name} must be ${range}, got ${raw.trim()}`, command);
  }
  return n;
}

/** How an option's value is named in help: its choices, else its value name. */
function valueLabel(spec: OptionSpec): string {
  if (spec.type === "choice") return spec.choices.join("|");
  return spec.valueName ?? "VALUE";
}

export function formatCommandHelp(cmd: Command): string {
  const lines = [`Usage: harness2 ${cmd.name}${cmd.args ? ` ${cmd.args}` : ""} [options]`, ""];
  lines.push(cmd.summary);
  if (cmd.help) lines.push("", cmd.help.trimEnd());
  const opts = Object.entries(cmd.options);
  if (opts.length > 0) {
    lines.push("", "Options:");
    const rows = opts.map(([name, spec]) => {
      const flag = `${spec.short ? `-${spec.short}, ` : ""}--${name}${
        spec.type === "boolean" ? "" : ` ${valueLabel(spec)}`
      }`;
      return [flag, spec.description] as const;
    });
    const width = Math.max(...rows.map(([f]) => f.length));
    for (const [flag, desc] of rows) lines.push(`  ${flag.padEnd(width)}  ${desc}`);
  }
  return `${lines.join("\n")}\n`;
}
