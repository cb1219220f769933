// The per-task `summary.json` (docs/method.md §10): the task's record across runs and processes,
// its status, and the locked merge-and-write that checkpoints it. It records what the method did
// and chose; it never holds a score, and a write never leaves a torn or half-merged file.

import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { Selection } from "../adoption/selection.ts";
import { ModeToken } from "../events/registry.ts";
import { writeFileAtomic } from "../lib/atomic-write.ts";
import { Harness2Error } from "../lib/errors.ts";
import { pidAlive } from "../lib/pid.ts";
import { ModeEntry } from "../recursion/records.ts";

/** The file name, kept in the agg namespace's task dir whichever modes ran. */
export const SUMMARY_FILE = "summary.json";
export const SUMMARY_LOCK = "summary.lock";

/** Written when no base rollout produced a run directory. */
export const NO_BASE_ERROR = "no base rollout produced anything";

/** Statuses a summary is written with ("skipped" and "running" exist only in memory). */
export const TaskStatus = z.enum(["ok", "partial", "base-failed"]);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const BaseRecord = z.object({
  label: z.string().min(1),
  runId: z.string().min(1),
  runDir: z.string(),
});
export type BaseRecord = z.infer<typeof BaseRecord>;

/** What resume re-checks about the adopted output, beside the selection itself. */
export const AdoptionFacts = z.object({
  chosenRunDir: z.string(),
  /** The chosen tree has no diff against the ORIGINAL base tree. */
  chosenTreeIsBase: z.boolean(),
  /** treeFingerprint of `<mode task dir>/harnesses/<chosen label>`; null when nothing was chosen. */
  harnessFingerprint: z.string().nullable(),
  /**
   * SHA-256 of the adopted output as resume re-reads it (deliverable text, or the trajectory for
   * a state deliverable); null when nothing was chosen. Not in the original, which only checked
   * that the output was non-blank, so an edited answer passed.
   */
  outputDigest: z.string().nullable(),
});
export type AdoptionFacts = z.infer<typeof AdoptionFacts>;

/** The summary's selection record: the Selection plus the adoption facts. */
export const SelectionRecord = Selection.and(AdoptionFacts);
export type SelectionRecord = z.infer<typeof SelectionRecord>;

export const TaskSummary = z.object({
  taskId: z.string().min(1),
  domain: z.string(),
  k: z.number().int().positive(),
  seed: z.number().int().nullable(),
  status: TaskStatus,
  base: z.array(BaseRecord),
  /** Accumulates across runs and processes: each run replaces only the modes it ran. */
  modes: z.partialRecord(ModeToken, ModeEntry),
  selections: z.partialRecord(ModeToken, SelectionRecord),
  errors: z.array(z.string()),
});
export type TaskSummary = z.infer<typeof TaskSummary>;

/** The summary (or its lock) could not be read or written. */
export class SummaryError extends Harness2Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** A mode that finished with an ok recursion, an ok selection and a chosen label. */
export function modeSucceeded(
  summary: Pick<TaskSummary, "modes" | "selections">,
  mode: ModeToken,
): boolean {
  const entry = summary.modes[mode];
  const sel = summary.selections[mode];
  return entry?.ok === true && sel?.ok === true && sel.chosenLabel !== "";
}

/**
 * `ok` when at least one mode ran, there are no errors and every mode present succeeded; else
 * `partial`. A base-failed record keeps its status.
 */
export function computeStatus(
  summary: Omit<TaskSummary, "status"> & { status?: TaskStatus },
): TaskStatus {
  if (summary.status === "base-failed") return "base-failed";
  const modes = Object.keys(summary.modes) as ModeToken[];
  const ok =
    modes.length > 0 &&
    summary.errors.length === 0 &&
    modes.every((m) => modeSucceeded(summary, m));
  return ok ? "ok" : "partial";
}

/** The mode an error line is about (`"<mode>: …"`), or null. */
function modeOfError(error: string): ModeToken | null {
  const head = error.slice(0, Math.max(0, error.indexOf(":"))).trim();
  const parsed = ModeToken.safeParse(head);
  return parsed.success ? parsed.data : null;
}

/**
 * Merges this run's record over the one on disk (docs/method.md §10): the modes and selections this
 * run ran replace the old ones; old errors survive unless they are about the missing base (now that
 * bases ran) or about a mode this run re-ran, and are never repeated. Differences from the
 * original: a re-run mode's old selection is dropped even when this run stored none (it would be
 * stale), and an old error about a re-run mode is dropped whether or not the mode now succeeded
 * (its new outcome carries its own error).
 */
export function mergeSummary(current: TaskSummary, old: TaskSummary | null): TaskSummary {
  if (old === null) return { ...current, status: computeStatus(current) };
  const rerun = new Set(Object.keys(current.modes) as ModeToken[]);
  const selections: TaskSummary["selections"] = {};
  for (const [mode, sel] of Object.entries(old.selections) as [ModeToken, SelectionRecord][]) {
    if (!rerun.has(mode)) selections[mode] = sel;
  }
  Object.assign(selections, current.selections);
  const errors = [...current.errors];
  const seen = new Set(errors);
  for (const err of old.errors) {
    if (seen.has(err)) continue;
    if (err === NO_BASE_ERROR && current.status !== "base-failed") continue;
    const mode = modeOfError(err);
    if (mode !== null && rerun.has(mode)) continue;
    errors.push(err);
    seen.add(err);
  }
  const merged: TaskSummary = {
    ...current,
    modes: { ...old.modes, ...current.modes },
    selections,
    errors,
  };
  return TaskSummary.parse({ ...merged, status: computeStatus(merged) });
}

/** Parses summary text; null with the reason when it is not a summary this release wrote. */
export function parseSummary(text: string): { summary: TaskSummary } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  const parsed = TaskSummary.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      error: `not a summary: ${first?.path.join(".") ?? ""} ${first?.message ?? ""}`.trim(),
    };
  }
  return { summary: parsed.data };
}

export type SummaryRead =
  | { kind: "missing" }
  | { kind: "unreadable"; reason: string }
  | { kind: "summary"; summary: TaskSummary };

/** Reads `<taskDir>/summary.json`. */
export function readSummary(taskDir: string): SummaryRead {
  const path = join(taskDir, SUMMARY_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "unreadable", reason: (err as Error).message };
  }
  const parsed = parseSummary(text);
  return "summary" in parsed
    ? { kind: "summary", summary: parsed.summary }
    : { kind: "unreadable", reason: parsed.error };
}

export type LockOptions = {
  /** Give up after this long, in milliseconds (default 60 s). */
  timeoutMs?: number;
  /** A lock file older than this whose holder cannot be checked is stale (default 10 min). */
  staleMs?: number;
};

function holderAlive(lockPath: string, staleMs: number): boolean {
  let text = "";
  try {
    text = readFileSync(lockPath, "utf8");
  } catch {
    return false;
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (Number.isInteger(pid) && pid > 0) return pidAlive(pid);
  // A lock is only ever linked into place with its pid already written, so one without a pid is
  // debris (a full disk, a release before this one): stale once it is a moment old.
  try {
    return Date.now() - statSync(lockPath).mtimeMs < Math.min(staleMs, EMPTY_LOCK_GRACE_MS);
  } catch {
    return false;
  }
}

/** How long a lock file without a pid is given before it is taken for debris. */
const EMPTY_LOCK_GRACE_MS = 2000;

/**
 * Creates `lockPath` holding our pid, or returns false when it exists. The pid is written to a
 * private file first and linked into place, so a lock never exists without its pid: a write
 * that fails (a full disk) leaves no lock behind, only an error.
 */
function createLock(lockPath: string): boolean {
  const tmp = `${lockPath}.${process.pid}.tmp`;
  let made = false;
  try {
    const fd = openSync(tmp, "w");
    made = true;
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, lockPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new SummaryError(
      lockPath,
      `cannot create the lock ${lockPath}: ${(err as Error).message}`,
    );
  } finally {
    if (made) rmSync(tmp, { force: true });
  }
}

/**
 * Runs `fn` holding `lockPath` (created exclusively, holding our pid). A lock whose holder is dead
 * is taken over; the lock file is removed afterwards (fix docs/differences.md R27: the original
 * left `summary.lock` behind). Separate processes can therefore each write their own modes.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => T | Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const staleMs = opts.staleMs ?? 600_000;
  const started = Date.now();
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let round = 0; ; round++) {
    if (createLock(lockPath)) break;
    if (!holderAlive(lockPath, staleMs)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new SummaryError(
        lockPath,
        `${lockPath} is held by another live process; remove it only if no other harness2 runs`,
      );
    }
    await Bun.sleep(Math.min(200, 10 * 2 ** Math.min(round, 5)));
  }
  try {
    return await fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

/**
 * Merges `current` over the summary on disk and writes it atomically (temp file + rename) under
 * the lock. An unreadable old summary counts as empty. Returns what was written: the returned
 * status is the on-disk status (fix docs/differences.md R14, where the two could disagree).
 */
export async function writeSummary(taskDir: string, current: TaskSummary): Promise<TaskSummary> {
  const path = join(taskDir, SUMMARY_FILE);
  mkdirSync(taskDir, { recursive: true });
  return withFileLock(join(taskDir, SUMMARY_LOCK), () => {
    const old = readSummary(taskDir);
    const merged = mergeSummary(
      TaskSummary.parse(current),
      old.kind === "summary" ? old.summary : null,
    );
    try {
      writeFileAtomic(path, `${JSON.stringify(merged, null, 2)}\n`);
    } catch (err) {
      throw new SummaryError(path, `cannot write ${path}: ${(err as Error).message}`);
    }
    return merged;
  });
}
