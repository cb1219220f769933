// What the demo shows at its end (README.md, "Two commands"): for each task and mode, what the
// base harness printed against what the adopted harness printed, each set beside the signed sum
// of the task's own ledger.csv (an input every session sees, the check the selector makes too;
// no scorer is reachable from here: docs/architecture.md, "Dependency rules"); the adopted
// harness's change against the base; each stored lesson with the later tasks whose improvers
// read it; and the next commands, `judge` first for the scores. Everything is read back from the
// run's files, so a rerun that skipped every task shows the same payoff.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ModeToken } from "../../core/events/registry.ts";
import { treeDiff } from "../../core/harness/diff.ts";
import type { SurfaceSpec } from "../../core/harness/surface.ts";
import { readTree } from "../../core/harness/tree.ts";
import { dirExists } from "../../core/lib/safe-fs.ts";
import { experienceField } from "../../core/library/library.ts";
import { domainDir } from "../../core/library/values.ts";
import { readSummary } from "../../core/resume/summary.ts";
import { MODE_NAMES, taskSlug } from "../../core/run/naming.ts";
import { DEMO_FIXTURES, ledgerTotal } from "./demo-adapter.ts";

export type PayoffRow = {
  task: string;
  mode: string;
  /** False when the task left no summary (nothing of it was recorded); such a row is not drawn. */
  recorded: boolean;
  /** The selection's pick and its answer, adopted or not (demo.json's `chosen`). */
  chosen: { label: string; answer: string };
  base: { label: string; answer: string; right: boolean | null };
  adopted: { label: string; answer: string; right: boolean | null; isBase: boolean };
};

export type PayoffLesson = {
  task: string;
  mode: string;
  cue: string;
  lesson: string;
  /** Later tasks of the same mode whose improvers had this entry in their evidence's library/. */
  readBy: string[];
};

export type Payoff = {
  rows: PayoffRow[];
  /** The first adopted harness that differs from the base, as a diff against it. */
  change: { task: string; mode: string; label: string; diff: string } | null;
  lessons: PayoffLesson[];
};

export type PayoffInput = {
  /**
   * The tasks in stream order: id, domain, the folder holding its summary (the parallel
   * namespace's, whichever modes ran) and its folder per mode.
   */
  tasks: readonly {
    task: string;
    domain: string;
    summary: string;
    dirs: Partial<Record<ModeToken, string>>;
  }[];
  modes: readonly ModeToken[];
  libraryRoot: string;
  baseHarness: string;
  surface: SurfaceSpec;
};

const NONE = "(no answer)";

function answerOf(runDir: string | undefined): string {
  if (runDir === undefined) return NONE;
  const path = join(runDir, "output", "answer.txt");
  return existsSync(path) ? readFileSync(path, "utf8").trim() || NONE : NONE;
}

/** Whether `answer` is the signed sum of the task's ledger (null: no ledger to sum). */
function sumsTheLedger(answer: string, domain: string, task: string): boolean | null {
  const ledger = join(DEMO_FIXTURES, "tasks", domain, task, "ledger.csv");
  if (!existsSync(ledger)) return null;
  return answer === `Total: ${ledgerTotal(readFileSync(ledger, "utf8"))}`;
}

/** Reads the payoff of a finished (or fully skipped) demo back from its folders. */
export function readPayoff(input: PayoffInput): Payoff {
  const rows: PayoffRow[] = [];
  const lessons: PayoffLesson[] = [];
  let change: Payoff["change"] = null;
  const baseTree = readTree(input.surface, input.baseHarness);
  for (const [i, t] of input.tasks.entries()) {
    const read = readSummary(t.summary);
    const summary = read.kind === "summary" ? read.summary : null;
    for (const mode of input.modes) {
      const dir = t.dirs[mode];
      if (dir === undefined) continue;
      const base = summary?.base[0];
      const sel = summary?.selections[mode];
      const adoptedDir = sel?.ok ? sel.chosenRunDir : undefined;
      const isBase = sel?.chosenTreeIsBase ?? false;
      const baseAnswer = answerOf(base?.runDir);
      const adoptedAnswer = answerOf(adoptedDir);
      if (summary === null) {
        rows.push(emptyRow(t.task, MODE_NAMES[mode]));
        continue;
      }
      rows.push({
        task: t.task,
        mode: MODE_NAMES[mode],
        recorded: summary !== null,
        chosen: {
          label: sel?.chosenLabel ?? "",
          answer: sel?.ok ? adoptedAnswer : answerOf(sel?.chosenRunDir || undefined),
        },
        base: {
          label: base?.label ?? "",
          answer: baseAnswer,
          right: sumsTheLedger(baseAnswer, t.domain, t.task),
        },
        adopted: {
          label: sel?.ok ? sel.chosenLabel : "",
          answer: adoptedAnswer,
          right: sumsTheLedger(adoptedAnswer, t.domain, t.task),
          isBase,
        },
      });
      const harness = sel?.ok ? join(dir, "harnesses", sel.chosenLabel) : "";
      if (change === null && sel?.ok && !isBase && dirExists(harness)) {
        const diff = treeDiff(baseTree, readTree(input.surface, harness), "base", sel.chosenLabel);
        if (diff.trim() !== "")
          change = { task: t.task, mode: MODE_NAMES[mode], label: sel.chosenLabel, diff };
      }
      const entry = join(
        input.libraryRoot,
        mode,
        domainDir(t.domain),
        "harnesses",
        taskSlug(t.task),
      );
      const experience = join(entry, "EXPERIENCE.md");
      if (!existsSync(experience)) continue;
      const text = readFileSync(experience, "utf8");
      const readBy = input.tasks
        .slice(i + 1)
        .filter((later) => later.domain === t.domain)
        .filter((later) => readLibraryEntry(later.dirs[mode], taskSlug(t.task)))
        .map((later) => later.task);
      lessons.push({
        task: t.task,
        mode: MODE_NAMES[mode],
        cue: experienceField(text, "cue") ?? "",
        lesson: experienceField(text, "lesson") ?? "",
        readBy,
      });
    }
  }
  return { rows, change, lessons };
}

function emptyRow(task: string, mode: string): PayoffRow {
  const none = { label: "", answer: NONE, right: null };
  return {
    task,
    mode,
    recorded: false,
    chosen: { label: "", answer: NONE },
    base: none,
    adopted: { ...none, isBase: false },
  };
}

/** True when some stage evidence of the task under `taskDir` carried library entry `slug`. */
function readLibraryEntry(taskDir: string | undefined, slug: string): boolean {
  if (taskDir === undefined) return false;
  const context = join(taskDir, "context");
  if (!dirExists(context)) return false;
  return readdirSync(context).some((stage) =>
    dirExists(join(context, stage, "library", "harnesses", slug)),
  );
}

const MAX_DIFF_LINES = 16;

/** The payoff as plain lines (no colour): the end of `harness2 demo`, headless and after the UI. */
export function renderPayoff(
  p: Payoff,
  next: { sweep: string; runsFlag: string /** how to type harness2 here */; self: string },
): string[] {
  const out: string[] = [];
  const mark = (right: boolean | null) => (right === null ? "" : right ? " ✓" : " ✗");
  const rows = p.rows.filter((r) => r.recorded);
  if (rows.length > 0) {
    out.push("", "Before → after (✓: the total is the signed sum of the task's ledger.csv):");
    const taskW = Math.max(...rows.map((r) => r.task.length));
    const modeW = Math.max(...rows.map((r) => r.mode.length));
    for (const r of rows) {
      const adopted = r.adopted.label === "" ? "nothing adopted" : r.adopted.label;
      const kept = r.adopted.isBase ? " (kept the base harness)" : "";
      out.push(
        `  ${r.task.padEnd(taskW)}  ${r.mode.padEnd(modeW)}  base ${r.base.answer}${mark(r.base.right)}  →  ${adopted} ${r.adopted.answer}${mark(r.adopted.right)}${kept}`,
      );
    }
  }
  if (p.change !== null) {
    const lines = p.change.diff.trimEnd().split("\n");
    const changed = lines.filter((l) => !l.startsWith("diff ") && !l.startsWith("index "));
    out.push(
      "",
      `What the improvers changed (${p.change.task} ${p.change.mode}, ${p.change.label} against the base harness):`,
    );
    for (const l of changed.slice(0, MAX_DIFF_LINES)) out.push(`  ${l}`);
    if (changed.length > MAX_DIFF_LINES) {
      out.push(
        `  … ${changed.length - MAX_DIFF_LINES} more line(s): ${next.self} browse${next.runsFlag}`,
      );
    }
  }
  if (p.lessons.length > 0) {
    out.push("", "Lessons stored in the library:");
    for (const l of p.lessons) {
      const read = l.readBy.length > 0 ? `read by ${l.readBy.join(", ")}` : "no later task yet";
      out.push(`  ${l.task} ${l.mode}: "${l.cue}" — ${l.lesson} (${read})`);
    }
  }
  const r = next.runsFlag;
  const h = next.self;
  out.push(
    "",
    "Next:",
    `  ${h} judge ${next.sweep} --bases${r}   score the adopted and the base runs (outside the method)`,
    `  ${h} report ${next.sweep}${r}   score and paired delta against the base harness`,
    `  ${h} show ${next.sweep}${r}   the sweep's stages, selections and library as text`,
    `  ${h} browse ${next.sweep}${r}   the same in a keyboard browser, down to each stage`,
    `  ${h} init my-tasks   start on your own tasks: a task folder to edit, and how to run it offline`,
  );
  return out;
}
