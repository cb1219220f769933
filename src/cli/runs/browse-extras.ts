// What the browser asks of the CLI beyond the store: a rollout's output and trajectory read from
// its run folder (rendered by the executor whose event stream is there), and handing the terminal
// to the user's pager or editor. Kept here so the TUI never imports an executor or starts a process.

import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RolloutText } from "../../../tui/browse/rollout-screen.ts";
import { deliverableTexts } from "../../benchmarks/common/deliverables.ts";
import { runInTerminal } from "../../core/lib/process.ts";
import { dirExists } from "../../core/lib/safe-fs.ts";
import { outputDirOf } from "../../core/rollout/layout.ts";
import type { CliIO } from "../command.ts";

/** What the browser shows of one output file, and of a trajectory. */
const FILE_TEXT_MAX = 60_000;
const TRAJECTORY_MAX = 2_000_000;
const OBS_TRUNC = 50_000;

/** The rollout's deliverable files and its trajectory, or null when its folder is gone. */
export async function rolloutText(runDir: string, io: CliIO): Promise<RolloutText | null> {
  const dir = resolve(io.cwd, runDir);
  if (!dirExists(dir)) return null;
  const trial = await workBuddyTrial(dir, io);
  if (trial !== null) return trial;
  // An executor's rollout keeps its output in its workspace; the demo's directly in the run.
  const output = dirExists(outputDirOf(dir)) ? outputDirOf(dir) : join(dir, "output");
  const files = await deliverableTexts(output, io.env, FILE_TEXT_MAX);
  let trajectory = await streamText(join(dir, "opencode.jsonl"), join(dir, "codex.jsonl"), io);
  if (trajectory === "" && existsSync(join(dir, "trajectory.md"))) {
    trajectory = await Bun.file(join(dir, "trajectory.md")).text();
  }
  return { files, trajectory };
}

/** The event stream at `oc` (OpenCode) or else `cx` (Codex) in the shared grammar; "" for neither. */
async function streamText(oc: string, cx: string, io: CliIO): Promise<string> {
  const opts = { obsTrunc: OBS_TRUNC, maxChars: TRAJECTORY_MAX };
  if (existsSync(oc)) {
    const { renderTrajectoryFile } = await import("../../substrate/opencode/render.ts");
    return renderTrajectoryFile(oc, opts);
  }
  if (existsSync(cx)) {
    const { CodexSubstrate } = await import("../../substrate/codex/substrate.ts");
    return new CodexSubstrate({ env: io.env }).renderStream(cx, opts);
  }
  return "";
}

/**
 * A WorkBuddy trial (`<runs>/wb-<subset>/tasks/…`, with a verifier/ folder) as its cell's strict
 * renderer shows it — never its verdict — with the agent's own stream; null for any other run.
 */
async function workBuddyTrial(dir: string, io: CliIO): Promise<RolloutText | null> {
  const subset = /\/wb-(office|web|code)\/tasks\//.exec(dir)?.[1] as "office" | "web" | "code";
  if (subset === undefined || !dirExists(join(dir, "verifier"))) return null;
  const { renderTrial } = await import("../../benchmarks/workbuddy/wb-render.ts");
  const { AGENT_STREAM } = await import("../../benchmarks/workbuddy/wb-trials.ts");
  const { files } = await renderTrial(dir, subset);
  const trajectory = await streamText(
    join(dir, AGENT_STREAM.oc as string),
    join(dir, AGENT_STREAM.cx as string),
    io,
  );
  return { files, trajectory };
}

/** A command line from a PAGER/EDITOR value: words split on spaces (no shell is run). */
function words(value: string): string[] {
  return value.split(/\s+/).filter((w) => w !== "");
}

/** Runs the pager on `text` or the editor on `path`; a one-line problem, or null when it ran. */
export function openExternal(
  what: { pager: string } | { editor: string },
  io: CliIO,
): string | null {
  const env = Object.fromEntries(
    Object.entries(io.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  if ("pager" in what) {
    const argv = words(io.env.PAGER || "less -R");
    const code = runInTerminal(argv, { env, stdinText: what.pager });
    if (code === null) return `the pager '${argv[0]}' could not start: set PAGER to one you have`;
    return code === 0 ? null : `the pager '${argv[0]}' exited with ${code}`;
  }
  // Most terminal editors cannot open a folder: a folder opens at its main file, from inside it.
  let target = what.editor;
  let cwd = io.cwd;
  if (dirExists(what.editor)) {
    const main = mainFileOf(what.editor);
    if (main === null) return `${what.editor} holds no file to open`;
    target = main;
    cwd = what.editor;
  }
  const argv = [...words(io.env.VISUAL || io.env.EDITOR || "vi"), target];
  const code = runInTerminal(argv, { env, cwd });
  if (code === null) return `the editor '${argv[0]}' could not start: set EDITOR (or VISUAL)`;
  return code === 0 ? null : `the editor '${argv[0]}' exited with ${code}`;
}

/** Files a folder is opened at, in order: a harness's main file, then a run's records. */
const MAIN_FILES = ["AGENTS.md", "systemprompt.md", "SKILL.md", "rollout.json", "summary.json"];

/** The file of `dir` the editor opens: a known main file, else its first regular file by name. */
export function mainFileOf(dir: string): string | null {
  for (const name of MAIN_FILES) {
    const p = join(dir, name);
    if (isRegularFile(p)) return p;
  }
  const first = readdirSync(dir)
    .sort()
    .map((n) => join(dir, n))
    .find(isRegularFile);
  return first ?? null;
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
