#!/usr/bin/env bun
// The one harness2 executable: resolves the subcommand, parses its flags strictly, runs it, and
// turns every error into one line plus a documented exit code. No stack trace for a user mistake.

import pkg from "../../package.json" with { type: "json" };
import { type CliIO, formatCommandHelp, parseCommandArgs, UsageError } from "./command.ts";
import { formatError } from "./errors.ts";
import { EXIT } from "./exit-codes.ts";
import { selfCommand } from "./help/self.ts";
import { COMMANDS, findCommand } from "./registry.ts";
import { holdEarlySignals, releaseEarlySignals } from "./sweep/early-signals.ts";

/** Commands that release the early hold themselves, once their own signal listener is in place. */
const TAKES_SIGNALS: ReadonlySet<string> = new Set(["run", "demo", "worker"]);

export function mainHelp(): string {
  const width = Math.max(4, ...COMMANDS.map((c) => c.name.length));
  const lines = [
    `harness2 ${pkg.version} — recursive agent harnessing (Harness²)`,
    "",
    "Usage: harness2 <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${"help".padEnd(width)}  Show help for a command: harness2 help <command>`,
    `  ${"".padEnd(width)}  harness2 help concepts: the method's words (INV, AGG, R/P, kept base, …)`,
    "",
    "Options:",
    "  -h, --help     Show this help",
    "  -V, --version  Print the versions of harness2, its store, Bun, OpenCode and Codex",
    "                 (--version --json: the same as one JSON object)",
  ];
  return `${lines.join("\n")}\n`;
}

export async function main(argv: string[], given: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  // harness2.toml (working folder, then the user's config folder) under the environment's own
  // variables: every command and module sees the merged settings (src/core/run/config-file.ts).
  let io = given;
  if (first !== "--help" && first !== "-h") {
    const { ConfigFileError, readConfigFiles, rememberLoaded } = await import(
      "../core/run/config-file.ts"
    );
    try {
      const files = readConfigFiles(given.env, given.cwd);
      rememberLoaded(files);
      if (Object.keys(files.values).length > 0) {
        io = { ...given, env: { ...files.values, ...given.env } };
        // Modules that read process.env directly see the same values.
        for (const [k, v] of Object.entries(files.values)) process.env[k] ??= v;
      }
    } catch (err) {
      if (!(err instanceof ConfigFileError)) throw err;
      given.stderr(`harness2: ${err.message}\n`);
      return EXIT.failed;
    }
  }
  if (first === undefined && io.isTTY) {
    // In a terminal, no subcommand opens the TUI home; elsewhere it prints the help.
    const { runHomeScreen } = await import("./runs/home.ts");
    return runHomeScreen(io, { run: (next) => main(next, io), help: mainHelp });
  }
  if (first === undefined || first === "--help" || first === "-h") {
    io.stdout(mainHelp());
    return EXIT.ok;
  }
  if (first === "--version" || first === "-V") {
    const extra = rest.filter((a) => a !== "--json");
    if (extra.length > 0) {
      return usageFailure(io, new UsageError(`--version takes only --json, not '${extra[0]}'`));
    }
    const { formatVersion, versionReport } = await import("./version.ts");
    const report = await versionReport(io.env);
    io.stdout(rest.includes("--json") ? `${JSON.stringify(report)}\n` : formatVersion(report));
    return EXIT.ok;
  }
  if (first === "help") {
    const topic = rest[0];
    if (topic === "--help" || topic === "-h" || topic === "help") {
      io.stdout(helpHelp());
      return EXIT.ok;
    }
    if (topic === undefined) {
      io.stdout(mainHelp());
      return EXIT.ok;
    }
    if (topic === "concepts") {
      const { conceptsText, GLOSSARY_FILE } = await import("./help/concepts.ts");
      const text = conceptsText(process.stdout.columns);
      if (text === null) {
        io.stderr(
          `harness2: the glossary is read from ${GLOSSARY_FILE}, which is missing or has no Glossary table; reinstall harness2\n`,
        );
        return EXIT.failed;
      }
      io.stdout(text);
      return EXIT.ok;
    }
    const entry = findCommand(topic);
    if (!entry) return usageFailure(io, new UsageError(`unknown command '${topic}'`));
    io.stdout(formatCommandHelp(await entry.load()));
    return EXIT.ok;
  }
  if (first.startsWith("-")) {
    return usageFailure(io, new UsageError(`unknown option '${first}'`));
  }
  const entry = findCommand(first);
  if (!entry) return usageFailure(io, new UsageError(`unknown command '${first}'`));
  const cmd = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(formatCommandHelp(cmd));
    return EXIT.ok;
  }
  try {
    const args = parseCommandArgs(cmd, rest);
    // A sweep's session (or the worker) takes signals over itself; the rest start without the hold.
    if (!TAKES_SIGNALS.has(cmd.name)) releaseEarlySignals();
    return await cmd.run(args, io);
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(io, err);
    const { message, code } = formatError(err);
    io.stderr(`harness2 ${cmd.name}: ${message}\n`);
    return code;
  }
}

/** `harness2 help --help`: README promises every command accepts --help, help included. */
function helpHelp(): string {
  return [
    "Usage: harness2 help [COMMAND]",
    "",
    "Show the list of commands, or the usage and options of COMMAND.",
    "The same as 'harness2 COMMAND --help'.",
    "",
  ].join("\n");
}

function usageFailure(io: CliIO, err: UsageError): number {
  const self = selfCommand(io.env, io.cwd);
  const hint = err.command ? `${self} help ${err.command}` : `${self} --help`;
  io.stderr(`harness2: ${err.message} (see '${hint}')\n`);
  return EXIT.usage;
}

/**
 * Writes to one of the process's streams, going quiet once its reader has gone (EPIPE:
 * `harness2 runs | head -1`, `| true`). Bun reports a closed pipe as an 'error' event on the
 * stream, which would otherwise end the process with a stack trace; here it is the reader's
 * choice to stop reading, so nothing more is written and `onClosed` runs once.
 */
function quietWhenClosed(
  stream: NodeJS.WriteStream,
  onClosed: () => void = () => {},
): (text: string) => void {
  let closed = false;
  const close = (err: unknown): boolean => {
    const code = (err as { code?: unknown } | null)?.code;
    if (code !== "EPIPE" && code !== "ERR_STREAM_DESTROYED") return false;
    if (!closed) {
      closed = true;
      onClosed();
    }
    return true;
  };
  stream.on("error", (err) => {
    if (!close(err)) throw err;
  });
  return (text) => {
    if (closed) return;
    try {
      stream.write(text);
    } catch (err) {
      if (!close(err)) throw err;
    }
  };
}

/**
 * A closed stdout during a sweep is treated like a closed terminal: an interrupt. The sweep
 * session listens for SIGINT/SIGTERM while it runs; emitting SIGTERM to those listeners (no signal
 * is sent) asks for its graceful stop, so no new task starts, finished work is kept and the same
 * command resumes, and the command exits 130. Letting the sweep run on unseen would spend model
 * time for a reader who has gone, which is what SIGPIPE's default (end the writer) avoids. Outside
 * a sweep nobody listens, and the command finishes quietly with its own exit code.
 */
function stdoutClosed(): void {
  // A closed stdout is not a signal: the early hold (early-signals.ts) does not turn it into one.
  releaseEarlySignals();
  if (process.listenerCount("SIGTERM") > 0) process.emit("SIGTERM");
}

if (import.meta.main) {
  holdEarlySignals();
  const io: CliIO = {
    stdout: quietWhenClosed(process.stdout, stdoutClosed),
    stderr: quietWhenClosed(process.stderr),
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
  const code = await main(process.argv.slice(2), io);
  process.exitCode = code;
}
