// Reads a user's task folder (the on-disk format of the `tasks` benchmark, documented in
// fixtures/tasks/README.md) into task entries plus one problem per malformed thing. Reads only;
// never follows a symlink, and never reads an answer key beyond listing its file names.
//
//   <root>/prompts.toml            optional: how the work is described to the improver
//   <root>/harness/                optional: the starting OpenCode harness (else the baseline)
//   <root>/harness-codex/          optional: the starting Codex harness (else the Codex baseline)
//   <root>/<domain>/<task>/task.md       the instructions, as the agent sees them
//   <root>/<domain>/<task>/inputs/       optional: copied into the workspace root
//   <root>/<domain>/<task>/tests/check   optional answer key: run only by the judge
//   <root>/<domain>/<task>/task.toml     optional: domain, timeout, deliverables, check_timeout

import { accessSync, constants, type Dirent, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SurfaceSpec } from "../../core/harness/surface.ts";
import { isTree } from "../../core/harness/tree.ts";
import { Harness2Error } from "../../core/lib/errors.ts";
import { compareCodePoints, dirExists, lstatOrNull, walkFiles } from "../../core/lib/safe-fs.ts";
import { leakMatcher } from "../../core/safety/leak-globs.ts";
import { NAME, NAME_RULE, settingsProblem, TaskSettings } from "./task-settings.ts";
import { readInstructions } from "./task-text.ts";
import { type PromptsFile, parsePromptsToml } from "./tasks-prompts.ts";

export const TASK_LAYOUT = {
  instructions: "task.md",
  settings: "task.toml",
  inputs: "inputs",
  tests: "tests",
  check: "tests/check",
  prompts: "prompts.toml",
  harness: "harness",
  codexHarness: "harness-codex",
} as const;

/** Root folders that hold a starting harness (one per executor), never a domain. */
const HARNESS_FOLDERS: ReadonlySet<string> = new Set([
  TASK_LAYOUT.harness,
  TASK_LAYOUT.codexHarness,
]);

/** Largest task.md: the text is sent whole as the agent's first message. */
export const TASK_MD_MAX_BYTES = 100_000;
/** Default seconds the judge gives `tests/check`. */
export const DEFAULT_CHECK_TIMEOUT_S = 300;

/**
 * Top-level input names OpenCode would treat as configuration or that the workspace owns: an
 * input there would change the agent's instructions or fake a deliverable.
 */
export const RESERVED_INPUT_NAMES: readonly string[] = [
  "AGENTS.md",
  "CLAUDE.md",
  "CONTEXT.md",
  "opencode.json",
  "opencode.jsonc",
  ".opencode",
  ".git",
  "output",
];

/**
 * One malformed thing in a task folder: where, what, and how to fix it. `refuses`: the problem
 * could leak an answer key or escape the workspace, so the whole folder is refused even when
 * malformed tasks are otherwise skipped.
 */
export type TaskProblem = { path: string; problem: string; fix: string; refuses?: boolean };

export function formatProblem(p: TaskProblem): string {
  return `${p.path}: ${p.problem} — fix: ${p.fix}`;
}

export type TaskEntry = {
  /** `<domain folder>/<task folder>`. */
  id: string;
  dir: string;
  domain: string;
  /** task.md, as written. */
  instructions: string;
  inputsDir: string | null;
  /** Absolute path of tests/check, or null when the task has no answer key. */
  checkPath: string | null;
  /** Files of the answer key, relative to tests/ (names only; never read here). */
  answerKeyFiles: string[];
  timeoutS: number | null;
  checkTimeoutS: number;
  deliverables: string[];
};

export type TaskFolder = {
  root: string;
  tasks: TaskEntry[];
  problems: TaskProblem[];
  prompts: PromptsFile;
  /** The root's starting harness for the executor (`harness/`, `harness-codex/`), else null. */
  baseHarness: string | null;
};

/** The task root itself is unusable (missing or not a directory). */
export class TasksRootError extends Harness2Error {
  constructor(
    readonly root: string,
    readonly reason: string,
  ) {
    super(`task folder '${root}' ${reason}`);
  }
}

const byName = (a: Dirent, b: Dirent) => compareCodePoints(a.name, b.name);
const skipped = (name: string) => name.startsWith(".") || name.startsWith("_");

function entries(dir: string): Dirent[] {
  return readdirSync(dir, { withFileTypes: true }).sort(byName);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads the task folder at `root`. The root's `harnessFolder` (`harness/` for OpenCode,
 * `harness-codex/` for Codex) must be a tree of the executor's `surface`; with a null surface it
 * is not looked at (the judge needs only the tasks and their checks). Throws TasksRootError only
 * when `root` is not a directory.
 */
export function readTaskFolder(
  root: string,
  surface: SurfaceSpec | null,
  harnessFolder: string = TASK_LAYOUT.harness,
): TaskFolder {
  if (!dirExists(root)) throw new TasksRootError(root, "does not exist or is not a directory");
  const problems: TaskProblem[] = [];
  const tasks: TaskEntry[] = [];

  const promptsPath = join(root, TASK_LAYOUT.prompts);
  let prompts = parsePromptsToml(null);
  if (lstatOrNull(promptsPath)?.isFile()) {
    const text = utf8OrNull(readFileSync(promptsPath));
    prompts =
      text === null
        ? {
            ...parsePromptsToml(null),
            problems: [{ problem: "is not UTF-8 text", fix: "save it as UTF-8" }],
          }
        : parsePromptsToml(text);
    // A prompts.toml problem refuses the folder, strict or not, as a task.toml one does: a run on
    // the default prompts the user did not ask for would spend money on the wrong instructions.
    for (const p of prompts.problems) problems.push({ path: promptsPath, ...p, refuses: true });
  }

  const harnessPath = join(root, harnessFolder);
  let baseHarness: string | null = null;
  const harnessStat = lstatOrNull(harnessPath);
  if (surface === null) {
    // The judge: the base harness is none of its business.
  } else if (harnessStat?.isDirectory()) {
    if (isTree(surface, harnessPath)) baseHarness = harnessPath;
    else {
      const framework =
        surface.name === "opencode"
          ? "OpenCode"
          : surface.name === "codex"
            ? "Codex"
            : surface.name;
      // Refuses the folder, strict or not: running on the baseline instead of the harness the
      // user put there would spend money on something they did not ask for.
      problems.push({
        path: harnessPath,
        problem: `holds no ${framework} harness (none of its always-on files)`,
        fix: `add ${surface.alwaysOn[0]} (and the other always-on files), or remove the folder to start from the baseline harness`,
        refuses: true,
      });
    }
  } else if (harnessStat) {
    problems.push({
      path: harnessPath,
      problem: "is not a directory",
      fix: "make it a folder holding the starting harness, or remove it",
      refuses: true,
    });
  }

  for (const d of entries(root)) {
    if (skipped(d.name) || HARNESS_FOLDERS.has(d.name)) continue;
    const domainDir = join(root, d.name);
    if (d.isSymbolicLink()) {
      problems.push({
        path: domainDir,
        problem: "is a symlink, which is never followed",
        fix: "replace it with the real folder",
      });
      continue;
    }
    if (!d.isDirectory()) continue; // README.md and other notes at the top level
    if (!NAME.test(d.name)) {
      problems.push({
        path: domainDir,
        problem: `domain folder name is not allowed`,
        fix: `rename it using ${NAME_RULE}`,
      });
      continue;
    }
    let found = 0;
    for (const t of entries(domainDir)) {
      if (skipped(t.name)) continue;
      const taskDir = join(domainDir, t.name);
      if (t.isSymbolicLink()) {
        problems.push({
          path: taskDir,
          problem: "is a symlink, which is never followed",
          fix: "replace it with the real folder",
        });
        continue;
      }
      if (!t.isDirectory()) continue;
      found++;
      if (!NAME.test(t.name)) {
        problems.push({
          path: taskDir,
          problem: "task folder name is not allowed",
          fix: `rename it using ${NAME_RULE}`,
        });
        continue;
      }
      const entry = readTask(taskDir, `${d.name}/${t.name}`, d.name, problems);
      if (entry !== null) tasks.push(entry);
    }
    if (found === 0) {
      problems.push({
        path: domainDir,
        problem: "holds no task folders",
        fix: `add <task>/${TASK_LAYOUT.instructions} folders to it, or start its name with '_' to skip it`,
      });
    }
  }
  if (tasks.length === 0 && problems.length === 0) {
    problems.push({
      path: root,
      problem: "holds no tasks",
      fix: `add <domain>/<task>/${TASK_LAYOUT.instructions} (see fixtures/tasks/README.md)`,
    });
  }
  refuseUnsafeInputs(tasks, problems);
  return { root, tasks, problems, prompts: prompts.file, baseHarness };
}

/** fnmatch-escapes a file name so a leak glob matches it literally. */
function globLiteral(rel: string): string {
  return rel.replace(/[[\]*?]/g, (c) => `[${c}]`);
}

/** Leak globs naming every answer-key file (`tests/<rel>`), matched at any depth. */
export function answerKeyGlobs(tasks: readonly TaskEntry[]): string[] {
  const globs = new Set<string>(["tests/check"]);
  for (const t of tasks) for (const rel of t.answerKeyFiles) globs.add(`tests/${globLiteral(rel)}`);
  return [...globs].sort();
}

/**
 * Input files that must never reach a workspace: one whose path matches an answer-key glob (the
 * evidence drops it, but the executor would still list it, and its trajectory would carry the
 * answer key to the improvers), and one whose name holds a backslash or a `..`/`.` segment
 * (copied, it would land outside its place). Each refuses the folder (docs/differences.md X13).
 */
function refuseUnsafeInputs(tasks: readonly TaskEntry[], problems: TaskProblem[]): void {
  const isAnswerKey = leakMatcher(answerKeyGlobs(tasks));
  for (const t of tasks) {
    if (t.inputsDir === null) continue;
    for (const rel of walkFiles(t.inputsDir)) {
      const path = join(t.inputsDir, rel);
      const segments = rel.split(/[/\\]/);
      if (rel.includes("\\") || segments.some((s) => s === ".." || s === "." || s === "")) {
        problems.push({
          path,
          problem: "has a name with a backslash or a '..' segment, which cannot be copied safely",
          fix: "rename it with plain letters, digits, '.', '_' and '-' (and '/' between folders)",
          refuses: true,
        });
        continue;
      }
      const glob = isAnswerKey(rel);
      if (glob !== null) {
        problems.push({
          path,
          problem: `matches the answer-key path '${glob}' (a file of some task's tests/), so the agent would list it and its trajectory would carry the answer key to the improvers`,
          fix: "rename or move that input, or keep the answer key only in tests/",
          refuses: true,
        });
      }
    }
  }
}

/** One task, or null (with its problems pushed) when it cannot be used. */
function readTask(
  dir: string,
  id: string,
  domainFolder: string,
  problems: TaskProblem[],
): TaskEntry | null {
  const before = problems.length;
  const add = (path: string, problem: string, fix: string) => problems.push({ path, problem, fix });

  const mdPath = join(dir, TASK_LAYOUT.instructions);
  const md = lstatOrNull(mdPath);
  let instructions = "";
  if (!md) add(mdPath, "is missing", "write the task's instructions into task.md");
  else if (!md.isFile()) add(mdPath, "is not a regular file", "make task.md a plain file");
  else if (md.size > TASK_MD_MAX_BYTES) {
    add(
      mdPath,
      `is ${md.size} bytes, over the ${TASK_MD_MAX_BYTES}-byte limit for a first message`,
      "move long material into inputs/ and refer to it from task.md",
    );
  } else {
    const read = readInstructions(mdPath);
    if ("problem" in read) add(mdPath, read.problem, read.fix);
    else if (read.text.trim() === "") add(mdPath, "is empty", "write the task's instructions");
    else instructions = read.text;
  }

  let settings: TaskSettings = {};
  const tomlPath = join(dir, TASK_LAYOUT.settings);
  if (lstatOrNull(tomlPath)?.isFile()) {
    let raw: unknown;
    try {
      raw = Bun.TOML.parse(readFileSync(tomlPath, "utf8"));
    } catch (err) {
      add(tomlPath, `is not valid TOML (${(err as Error).message})`, "fix the syntax");
    }
    if (raw !== undefined) {
      const parsed = TaskSettings.safeParse(raw);
      if (parsed.success) settings = parsed.data;
      else {
        for (const issue of parsed.error.issues) {
          const { problem, fix } = settingsProblem(issue, raw);
          add(tomlPath, problem, fix);
        }
      }
    }
  }

  const inputsPath = join(dir, TASK_LAYOUT.inputs);
  const inputsStat = lstatOrNull(inputsPath);
  let inputsDir: string | null = null;
  if (inputsStat?.isDirectory()) {
    inputsDir = inputsPath;
    const links: string[] = [];
    walkFiles(inputsPath, { onSymlink: (rel) => links.push(rel) });
    if (links.length > 0) {
      add(
        inputsPath,
        `holds symlinks (${links.slice(0, 5).join(", ")}), which are never followed`,
        "replace each link with the file itself",
      );
    }
    for (const name of readdirSync(inputsPath)) {
      if (RESERVED_INPUT_NAMES.includes(name)) {
        add(
          join(inputsPath, name),
          "has a name the workspace reserves (OpenCode would read it as configuration, or it is where deliverables go)",
          "rename or move it",
        );
      }
    }
  } else if (inputsStat) {
    add(inputsPath, "is not a directory", "make inputs/ a folder of files for the workspace");
  }

  const testsPath = join(dir, TASK_LAYOUT.tests);
  const testsStat = lstatOrNull(testsPath);
  let checkPath: string | null = null;
  let answerKeyFiles: string[] = [];
  if (testsStat?.isDirectory()) {
    answerKeyFiles = walkFiles(testsPath);
    const check = join(dir, TASK_LAYOUT.check);
    const st = lstatOrNull(check);
    if (!st?.isFile()) {
      add(
        check,
        "is missing",
        'add an executable tests/check that prints {"passed": n, "total": m}',
      );
    } else if (!isExecutable(check)) {
      add(check, "is not executable", `run chmod +x ${check}`);
    } else checkPath = check;
  } else if (testsStat) {
    add(testsPath, "is not a directory", "make tests/ a folder holding an executable check");
  }

  if (problems.length > before) return null;
  return {
    id,
    dir,
    domain: settings.domain ?? domainFolder,
    instructions,
    inputsDir,
    checkPath,
    answerKeyFiles,
    timeoutS: settings.timeout ?? null,
    checkTimeoutS: settings.check_timeout ?? DEFAULT_CHECK_TIMEOUT_S,
    deliverables: settings.deliverables ?? [],
  };
}

/** The bytes as UTF-8 text, or null when they are not UTF-8 (never replaced characters). */
function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
