// `harness2 harness export DIR --domain D`: take the result home. The adopted harness of a
// domain's latest task (or of --task T) in one mode, rendered into DIR exactly as the executor
// installs it for a rollout (OpenCode: AGENTS.md, .opencode/ skills, agents and plugins, scripts/,
// opencode.json; Codex: AGENTS.md, .agents/, scripts/, .codex/), plus the domain's lessons
// (harness2-lessons.md) and where it came from (harness2-export.json). `--diff` prints it
// against the starting harness the method recorded for that task.

import {
  closeSync,
  existsSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { domainsWithEntries, latestAdoptedEntry } from "../../../store/export-queries.ts";
import { reflectionDir } from "../../core/adoption/reflection.ts";
import { treeDiff } from "../../core/harness/diff.ts";
import { readTree } from "../../core/harness/tree.ts";
import { dirExists, lstatOrNull } from "../../core/lib/safe-fs.ts";
import { ownedTempDir, removeTreeSoon } from "../../core/lib/temp-dirs.ts";
import { MODE_NAMES, modeToken } from "../../core/run/naming.ts";
import { DEFAULT_SOLVER_STEPS } from "../../core/seams/executor.ts";
import {
  type CliIO,
  defineCommand,
  type OptionSpecs,
  type ParsedArgs,
  UsageError,
} from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { mergeInto } from "../runs/harness-into.ts";
import { browseLocation, openForBrowsing, RUNS_OPTION, readStore } from "../runs/run-handle.ts";

const OPTIONS = {
  domain: { type: "string", valueName: "D", description: "The domain (required)" },
  mode: {
    type: "string",
    valueName: "M",
    description: "parallel (default) or sequential",
  },
  task: { type: "string", valueName: "T", description: "This task's harness, not the latest" },
  model: {
    type: "string",
    valueName: "ID",
    description:
      "provider/model to name in opencode.json (default: none, the project's own choice)",
  },
  into: {
    type: "string",
    valueName: "PROJECT",
    description:
      "merge into this existing project folder instead of a new DIR: AGENTS.md gets a marked section, no file of yours is overwritten",
  },
  steps: {
    type: "int",
    min: 1,
    valueName: "N",
    description: `agent step cap (default ${DEFAULT_SOLVER_STEPS})`,
  },
  diff: { type: "boolean", description: "Print the harness against the starting harness" },
  json: {
    type: "boolean",
    description:
      "print what was exported as one JSON object (where, which harness, the files; with --diff, the diff)",
  },
  runs: RUNS_OPTION,
} as const satisfies OptionSpecs;

const harness = defineCommand({
  name: "harness",
  summary: "Export a domain's adopted harness as a ready-to-use OpenCode or Codex configuration",
  args: "export DIR",
  help: [
    "Writes the adopted harness of the domain's latest task (or --task T) in one mode into DIR,",
    "which must be new or empty, exactly as the executor installs it for a rollout: for OpenCode",
    "AGENTS.md, .opencode/ (skills, agents, plugins), scripts/ and opencode.json naming --model",
    "(default $HARNESS2_SOLVER_MODEL); for Codex AGENTS.md, .agents/, scripts/ and .codex/. Beside",
    "them: harness2-lessons.md (every lesson of the domain's library) and harness2-export.json",
    "(the sweep, task and library entry it came from). Copy DIR's contents into your project.",
    "--diff also prints the harness against the starting harness the method recorded.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 1, max: 2 },
  run: async (args, io) => {
    const { domain, mode, task, project, dest, model, steps } = exportRequest(args, io);
    const { entry, source } = await adoptedEntry(args, io, { domain, mode, task });

    const codex = entry.substrate === "cx" || entry.substrate === "codex";
    const surface = codex
      ? (await import("../../substrate/codex/surface.ts")).CODEX_SURFACE
      : (await import("../../substrate/opencode/surface.ts")).OPENCODE_SURFACE;
    let files: string[];
    if (codex) {
      const { materialiseCodex } = await import("../../substrate/codex/materialise.ts");
      files = (await materialiseCodex(source, dest)).files;
    } else {
      const { materialise } = await import("../../substrate/opencode/materialise.ts");
      // No absolute path of this machine goes into an export: the working folder is the project's.
      const template = { workingDirectory: "the project's root folder" };
      files = (await materialise(source, dest, { model: model ?? "", steps, template })).files;
      writeFileSync(join(dest, "opencode.json"), exportedConfig(model, steps));
    }

    const lessons = lessonsOf(entry.path, domain);
    // What --json prints: where it went and which files.
    let report: Record<string, unknown> = {};
    const provenance = `${JSON.stringify({ ...entry, exportedFrom: source, files }, null, 2)}\n`;
    const what = `the ${MODE_NAMES[mode]} harness of ${entry.task} (${domain}, sweep ${entry.sweep})`;
    if (project !== null) {
      try {
        const merged = mergeInto(project, dest, {
          "lessons.md": lessons,
          "export.json": provenance,
        });
        const kept = merged.kept.length > 0 ? `; kept your ${merged.kept.join(", ")}` : "";
        const same =
          merged.unchanged.length > 0 ? `, ${merged.unchanged.length} already there` : "";
        report = {
          into: project,
          written: merged.written,
          unchanged: merged.unchanged,
          kept: merged.kept,
        };
        if (!args.opts.json) {
          io.stdout(
            `Merged ${what} into ${project}: ${merged.written.length} file(s) written${same}${kept}; AGENTS.md holds it between harness2 markers, .harness2/ the lessons and provenance\n`,
          );
        }
      } finally {
        void removeTreeSoon(dest);
      }
    } else {
      writeFileSync(join(dest, "harness2-lessons.md"), lessons);
      writeFileSync(join(dest, "harness2-export.json"), provenance);
      report = { dir: dest, files: [...files, "harness2-lessons.md", "harness2-export.json"] };
      if (!args.opts.json) {
        io.stdout(
          `Exported ${what} to ${dest}: ${files.length} file(s), harness2-lessons.md, harness2-export.json\n`,
        );
      }
    }
    const summary = {
      domain,
      mode: MODE_NAMES[mode],
      task: entry.task,
      sweep: entry.sweep,
      substrate: codex ? "cx" : "oc",
      ...report,
    };

    if (args.opts.diff) {
      const base = join(reflectionDir(entry.modeDir, { mode, k: entry.k }), "base_harness");
      if (entry.modeDir === "" || !dirExists(base) || lstatOrNull(base)?.isSymbolicLink()) {
        io.stderr("harness2 harness: no starting harness was recorded for that task; no diff\n");
        return EXIT.failed;
      }
      const diff = treeDiff(readTree(surface, base), readTree(surface, source), "base", "adopted");
      if (args.opts.json) io.stdout(`${JSON.stringify({ ...summary, diff })}\n`);
      else io.stdout(diff.trim() === "" ? "(the adopted harness is the starting harness)\n" : diff);
      return EXIT.ok;
    }
    if (args.opts.json) io.stdout(`${JSON.stringify(summary)}\n`);
    return EXIT.ok;
  },
});

export default harness;

/**
 * The opencode.json of an export: what the harness sets (its step cap) and the model only when
 * asked; none of the rollout's own settings or its workspace fence, whose paths are this machine's.
 */
function exportedConfig(model: string | undefined, steps: number): string {
  const config = {
    $schema: "https://opencode.ai/config.json",
    ...(model === undefined ? {} : { model }),
    agent: { build: { steps } },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * Every lesson of the entry's library (its INDEX.md order is the stream order), as one file. Only
 * an entry that is a real folder and an EXPERIENCE.md that is a regular file are read: a link is
 * skipped, never followed.
 */
function lessonsOf(entryDir: string, domain: string): string {
  const harnesses = dirname(entryDir);
  const parts = [`# Lessons learned by harness2 in ${domain}\n`];
  const names = dirExists(harnesses) ? readdirSync(harnesses).sort() : [basename(entryDir)];
  for (const name of names) {
    if (lstatOrNull(join(harnesses, name))?.isDirectory() !== true) continue;
    const text = readRegularNoFollow(join(harnesses, name, "EXPERIENCE.md"));
    if (text !== null) parts.push(text.trim(), "");
  }
  return `${parts.join("\n")}\n`;
}

/** A regular file's text, opened without following a link at its path; null for anything else. */
function readRegularNoFollow(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, "utf8") : null;
  } finally {
    closeSync(fd);
  }
}

type HarnessArgs = ParsedArgs<typeof OPTIONS>;

/** The export the command line asks for, each bad part refused as a usage error (exit 2). */
function exportRequest(args: HarnessArgs, io: CliIO) {
  const [verb, out] = args.positionals as [string, string | undefined];
  if (verb !== "export") {
    throw new UsageError(`unknown action '${verb}' (the one action is 'export DIR')`, "harness");
  }
  const into = args.opts.into;
  if ((out === undefined) === (into === undefined)) {
    throw new UsageError(
      "'export' needs either a new directory (export DIR) or an existing project (export --into PROJECT)",
      "harness",
    );
  }
  if (out?.trim() === "" || into?.trim() === "")
    throw new UsageError("'export' needs a directory, got an empty value", "harness");
  const domain = args.opts.domain;
  if (domain === undefined || domain === "") {
    throw new UsageError("--domain D is required: the domain whose harness to export", "harness");
  }
  let mode: "agg" | "seq";
  try {
    mode = modeToken(args.opts.mode ?? "parallel");
  } catch (err) {
    throw new UsageError((err as Error).message, "harness");
  }
  const project = into === undefined ? null : resolve(io.cwd, into);
  if (project !== null && lstatOrNull(project)?.isDirectory() !== true) {
    throw new UsageError(
      `--into ${project} is not an existing folder: name your project's folder`,
      "harness",
    );
  }
  const dest = project === null ? resolve(io.cwd, out as string) : ownedTempDir("export");
  if (project === null && existsSync(dest) && (!dirExists(dest) || readdirSync(dest).length > 0)) {
    throw new UsageError(
      `${dest} is not a new or empty directory: choose another DIR, or merge with --into ${out}`,
      "harness",
    );
  }
  const model = args.opts.model;
  if (model !== undefined && !model.includes("/")) {
    throw new UsageError(
      `--model names the model opencode.json uses: pass --model provider/model, got '${model}'`,
      "harness",
    );
  }
  const steps = args.opts.steps ?? DEFAULT_SOLVER_STEPS;
  const task = args.opts.task;
  return { domain, mode, task, project, dest, model, steps };
}

/** The newest adopted library entry the request names, and its harness folder, checked on disk. */
async function adoptedEntry(
  args: HarnessArgs,
  io: CliIO,
  want: { domain: string; mode: "agg" | "seq"; task: string | undefined },
) {
  const { domain, mode, task } = want;
  const loc = browseLocation(args, io);
  const db = await openForBrowsing(loc);
  if (db === null) throw new CliError(`no store at ${loc.dbPath}: run a sweep first (demo or run)`);
  const { entry, known } = readStore(loc, () => {
    try {
      return {
        entry: latestAdoptedEntry(db, { domain, mode, task }),
        known: domainsWithEntries(db),
      };
    } finally {
      db.close();
    }
  });
  if (entry === null) {
    const which =
      task === undefined ? `domain '${domain}'` : `task '${task}' of domain '${domain}'`;
    const have = known.length > 0 ? ` (domains with an adopted harness: ${known.join(", ")})` : "";
    throw new CliError(
      `no adopted harness of ${which} in ${MODE_NAMES[mode]} mode in ${loc.dbPath}${have}`,
    );
  }
  const source = join(entry.path, "harness");
  if (!dirExists(source)) {
    throw new CliError(
      `the library entry ${entry.path} recorded for ${entry.task} is gone from disk`,
    );
  }
  // The library's own folders are never links: one would export whatever it points at.
  const linked = [entry.path, source].find((p) => lstatOrNull(p)?.isSymbolicLink());
  if (linked !== undefined) {
    throw new CliError(
      `${linked} is a symbolic link, not the library's own folder: nothing was exported; restore the entry or export another task (--task)`,
    );
  }
  return { entry, source };
}
