// `harness2 show RUN [TASK] [--json]`: one sweep from the store — per task and mode the stages
// with status and cost, ledger R/P against 4k/3k, tripwires, the selection and library entries;
// with TASK, that task in full. Read-only: never creates a store or writes a row.

import { lineageOf } from "../../../store/lineage.ts";
import { sweepDetail, sweepTaskNames } from "../../../store/queries.ts";
import {
  type ModeView,
  rolloutCostText,
  rolloutStatusText,
  type SweepDetail,
  sweepStatusWithResume,
  type TaskView,
  type TripwireView,
} from "../../../store/views.ts";
import { taskProblems } from "../../core/events/outcome.ts";
import type { ModeToken } from "../../core/events/registry.ts";
import { capNote } from "../../core/events/spend-cap.ts";
import { formatDuration, formatUsd, formatWhen, squish, truncate } from "../../core/lib/format.ts";
import { maskMarker } from "../../core/lib/marker-mask.ts";
import { MODE_NAMES } from "../../core/run/naming.ts";
import { webNote } from "../../core/run/web-policy.ts";
import { type CliIO, defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { lineageLines } from "../runs/lineage-text.ts";
import { browseLocation, openForBrowsing, RUNS_OPTION, readStore } from "../runs/run-handle.ts";
import { legendLines } from "../runs/status-legend.ts";
import { recordedPartNote } from "../sweep/partition-opts.ts";
import {
  checkCellFlags,
  hasCellFlags,
  ONE_SWEEP_CELL_OPTIONS,
  selectSweeps,
} from "../sweep/sweep-handles.ts";
import { painter, renderTable, type Tone, toneOf } from "./runs.ts";

type Paint = (text: string, tone: Tone) => string;

function header(d: SweepDetail, paint: Paint): string[] {
  const s = d.sweep;
  const label = (name: string) => paint(name.padEnd(9), "dim");
  const [t, ended] = [s.tasks, s.finishedAt ? `  finished ${formatWhen(s.finishedAt)}` : ""];
  return [
    `${label("sweep")}${paint(s.id, "bold")}  ${paint(sweepStatusWithResume(s), toneOf(s.status))}${s.resumes ? `  (after ${s.resumes})` : ""}`,
    `${label("bench")}${s.bench || "?"}  substrate ${s.substrate || "?"}  k ${s.ks.join(",") || "-"}  modes ${s.modes.map(modeWord).join(",") || "-"}  seed ${s.seed ?? "none"}  tag ${s.tag || "none"}`,
    `${label("started")}${formatWhen(s.startedAt)}${ended}  duration ${formatDuration(s.durationS)}`,
    `${label("spend")}${formatUsd(s.usd)}${capNote(d.sweep.config, { usd: s.usd })}`,
    `${label("tasks")}${t.ok} ok, ${t.failed} failed, ${t.running} running, ${t.skipped} skipped of ${t.total}`,
    ...(s.argv.length > 0 ? [`${label("argv")}harness2 ${s.argv.join(" ")}`] : []),
    ...recorded(d.sweep.identity).map(([name, line]) => `${label(name)}${line}`),
    ...resultsNote(d).map((line) => `${label("results")}${line}`),
    ...legendLines(d).map((line) => paint(line, "dim")),
  ];
}

/** The web policy and the partition the sweep recorded in its experiment identity. */
function recorded(identity: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  const web = webNote(identity);
  if (web !== null) out.push(["web", web.replace(/^web: /, "")]);
  const part = recordedPartNote(identity);
  if (part !== null) out.push(["part", part.replace(/^partition: the sweep ran on /, "")]);
  return out;
}

/** A skipped task's line, pointing at the sweep that holds its results. */
function skippedLine(t: TaskView): string {
  const where = t.resultsIn ? `; its results are in sweep ${t.resultsIn}` : "";
  return `skipped: ${squish(t.skipReason)}${where}`;
}

/**
 * For a rerun that did no work of its own (every task skipped): the earlier sweeps holding the
 * results, so a no-op rerun never looks like an empty experiment.
 */
function resultsNote(d: SweepDetail): string[] {
  const tasks = d.tasks;
  if (tasks.length === 0 || tasks.some((t) => t.status !== "skipped")) return [];
  const holders = [...new Set(tasks.flatMap((t) => (t.resultsIn ? [t.resultsIn] : [])))];
  if (holders.length === 0) return [];
  return [`every task was skipped; the work is recorded in ${holders.join(", ")} (show that)`];
}

function ledgerCounts(m: ModeView, paint: Paint): string {
  const finished = m.finishedAt !== null;
  const part = (name: string, have: number, want: number) =>
    paint(`${name} ${have}/${want}`, finished && have !== want ? "bad" : "plain");
  return `${part("R", m.R, m.expectedR)}  ${part("P", m.P, m.expectedP)}`;
}

function tripwireLine(t: TripwireView): string {
  // Named masked, never repeated: a line of show may be pasted anywhere (docs/differences.md X10).
  const marker = t.marker ? ` [${maskMarker(t.marker)}]` : "";
  return `${t.kind} at ${t.where || "?"}: ${t.path}${marker} blocked${t.message ? ` — ${squish(t.message)}` : ""}`;
}

function selectionLine(m: ModeView, maxWhy: number): string | null {
  const s = m.selection;
  if (!s) return null;
  const chosen = s.chosenLabel ? `${s.chosenLabel}${s.anonId ? ` (${s.anonId})` : ""}` : "(none)";
  const flags = [s.fallback ? "fallback" : "", s.trivial ? "trivial" : "", s.ok ? "" : "FAILED"]
    .filter(Boolean)
    .join(", ");
  const why = s.ok ? squish(s.why) : squish(s.error || s.why);
  return `${chosen}${flags ? ` [${flags}]` : ""}${why ? ` — ${truncate(why, maxWhy)}` : ""}`;
}

/** What went wrong inside the task, in the words of src/core/events/outcome.ts. */
export function problemsOf(t: TaskView): string[] {
  return taskProblems({
    modes: t.modes
      .filter((m): m is typeof m & { mode: ModeToken } => m.mode === "agg" || m.mode === "seq")
      .map((m) => ({
        mode: m.mode,
        degraded: m.status === "degraded",
        selectionFellBack: m.selection?.fallback ?? false,
        reflectionFailed: m.reflection !== null && !m.reflection.ok,
      })),
    deadRollouts: t.rollouts.filter((r) => r.status === "dead").length,
  });
}

function problemsLine(t: TaskView, paint: Paint): string[] {
  const found = problemsOf(t);
  return found.length === 0 ? [] : [`  ${paint(`⚠ ${found.join(", ")}`, "warn")}`];
}

/** The mode's reflection, when it failed: the error says why no lesson was stored. */
function reflectionLine(m: ModeView): string | null {
  return m.reflection !== null && !m.reflection.ok
    ? `failed — ${squish(m.reflection.error) || "no reason recorded"}`
    : null;
}

function taskTitle(t: TaskView, paint: Paint): string {
  const status = paint(t.status, toneOf(t.status));
  const cost = t.status === "skipped" ? "" : `  ${formatUsd(t.usd)}  ${formatDuration(t.wallS)}`;
  return `${paint(t.task, "bold")}  ${status}  k=${t.k}${cost}  ${paint(t.id, "dim")}`;
}

/** The sweep view: a compact block per task and mode. */
function renderSweep(d: SweepDetail, paint: Paint): string[] {
  const out = header(d, paint);
  const field = (name: string) => `    ${paint(name.padEnd(10), "dim")} `;
  for (const t of d.tasks) {
    out.push("", taskTitle(t, paint), ...problemsLine(t, paint));
    if (t.status === "skipped") out.push(`  ${paint(skippedLine(t), "dim")}`);
    if (t.error) out.push(`  ${paint(`error: ${squish(t.error)}`, "bad")}`);
    for (const m of t.modes) {
      out.push(
        `  ${paint(modeWord(m.mode), "bold")}  ${paint(m.status, toneOf(m.status))}  ${ledgerCounts(m, paint)}  ${formatUsd(m.usd)}`,
      );
      if (m.stages.length > 0) {
        const stages = m.stages.map(
          (s) => `${s.label} ${paint(s.status, toneOf(s.status))} ${formatUsd(s.usd)}`,
        );
        out.push(`${field("stages")}${stages.join(" · ")}`);
      }
      const sel = selectionLine(m, 100);
      if (sel) out.push(`${field("selection")}${sel}`);
      const refl = reflectionLine(m);
      if (refl) out.push(`${field("reflection")}${paint(refl, "warn")}`);
      for (const trip of m.tripwires)
        out.push(`${field("tripwire")}${paint(tripwireLine(trip), "bad")}`);
      for (const e of m.library) out.push(`${field("library")}+ ${e.entry}`);
      if (m.error) out.push(`${field("error")}${paint(squish(m.error), "bad")}`);
    }
    for (const trip of t.tripwires) out.push(`  ${paint(`tripwire ${tripwireLine(trip)}`, "bad")}`);
  }
  if (d.tripwires.length > 0) {
    out.push("", paint("tripwires outside any task", "bold"));
    for (const trip of d.tripwires) out.push(`  ${paint(tripwireLine(trip), "bad")}`);
  }
  if (d.notes.length > 0) {
    out.push("", paint("notes", "bold"));
    for (const n of d.notes) {
      out.push(`  ${n.level}${n.task ? ` [${n.task}]` : ""}: ${squish(n.message)}`);
    }
  }
  return out;
}

/** One task in full: stage tables, ledger labels, selection with why and id map, rollouts. */
function renderTask(d: SweepDetail, t: TaskView, paint: Paint): string[] {
  const out = [
    taskTitle(t, paint),
    ...problemsLine(t, paint),
    `  sweep ${d.sweep.id}  domain ${t.domain}  position ${t.position ?? "?"}/${t.of ?? "?"}`,
    `  started ${formatWhen(t.startedAt)}  finished ${formatWhen(t.finishedAt)}`,
  ];
  if (t.taskDir) out.push(`  dir ${t.taskDir}`);
  if (t.status === "skipped") out.push(`  ${skippedLine(t)}`);
  if (t.error) out.push(`  ${paint(`error: ${squish(t.error)}`, "bad")}`);
  for (const m of t.modes) {
    out.push(
      "",
      `${paint(modeWord(m.mode), "bold")}  ${paint(m.status, toneOf(m.status))}  ${ledgerCounts(m, paint)}  ${formatUsd(m.usd)}${m.phase && m.status === "running" ? `  phase ${m.phase}` : ""}`,
    );
    if (m.error) out.push(`  ${paint(`error: ${squish(m.error)}`, "bad")}`);
    if (m.stages.length > 0) {
      const rows = m.stages.map((s) => [
        s.label,
        s.dim,
        s.status,
        s.attempts === null ? "-" : String(s.attempts),
        formatUsd(s.usd),
        s.cached ? "yes" : "no",
        truncate(squish([s.error, s.notes].filter(Boolean).join("; ")), 100),
      ]);
      out.push(
        ...renderTable(
          [
            { header: "STAGE" },
            { header: "DIM" },
            { header: "STATUS" },
            { header: "ATTEMPTS", align: "right" },
            { header: "USD", align: "right" },
            { header: "CACHED" },
            { header: "ERROR / NOTES" },
          ],
          rows,
          paint,
          (r, c) => (c === 2 ? toneOf(m.stages[r]?.status ?? "") : "plain"),
          "  ",
        ),
      );
    }
    out.push(...lineageLines(m));
    const labels = (kind: "rollout" | "session") =>
      m.ledger
        .filter((e) => e.kind === kind)
        .map((e) => e.label)
        .join(" ") || "(none)";
    out.push(`  ledger     R: ${labels("rollout")}`, `             P: ${labels("session")}`);
    const s = m.selection;
    if (s) {
      out.push(`  selection  ${selectionLine(m, 10_000)}`);
      const ids = Object.entries(s.idMap).map(([id, label]) => `${id}=${label}`);
      if (ids.length > 0) out.push(`             ids ${ids.join(" ")}`);
      if (s.dropped.length > 0) out.push(`             dropped ${s.dropped.join(" ")}`);
      if (s.chosenRunId) out.push(`             run ${s.chosenRunId}`);
      out.push(`             cost ${formatUsd(s.usd)}`);
    }
    if (m.reflection) {
      const r = m.reflection;
      const what = r.ok ? (r.noEntry ? "ok, no entry" : "ok") : `failed: ${squish(r.error)}`;
      out.push(`  reflection ${what}  ${formatUsd(r.usd)}`);
    }
    for (const e of m.library) {
      out.push(`  library    + ${e.entry} (${e.confidence || "?"})  cue: ${squish(e.cue)}`);
      out.push(`             lesson: ${squish(e.lesson)}`);
    }
    for (const trip of m.tripwires)
      out.push(`  ${paint(`tripwire   ${tripwireLine(trip)}`, "bad")}`);
    for (const j of m.judgments) {
      const score = j.graded
        ? `${j.score ?? "?"}${j.total !== null ? ` (${j.passed ?? "?"}/${j.total})` : ""}`
        : "ungraded";
      out.push(`  judgment   ${j.label || "(no pick)"} ${score}  ${squish(j.reason)}`);
    }
  }
  for (const trip of t.tripwires) out.push(`  ${paint(`tripwire ${tripwireLine(trip)}`, "bad")}`);
  if (t.rollouts.length > 0) {
    out.push("", paint("rollouts", "bold"));
    out.push(
      ...renderTable(
        [
          { header: "LABEL" },
          { header: "STATUS" },
          { header: "DELIVERED" },
          { header: "USD", align: "right" },
          { header: "WALL", align: "right" },
          { header: "RUN ID" },
        ],
        t.rollouts.map((r) => [
          r.label,
          r.reused ? `${rolloutStatusText(r)} (reused)` : rolloutStatusText(r),
          r.delivered ? "yes" : "no",
          rolloutCostText(r),
          formatDuration(r.wallS),
          r.runId,
        ]),
        paint,
        (r, c) => (c === 1 ? toneOf(t.rollouts[r]?.status ?? "") : "plain"),
        "  ",
      ),
    );
  }
  if (t.calls.length > 0) {
    out.push("", paint("improver calls", "bold"));
    out.push(
      ...renderTable(
        [
          { header: "LABEL" },
          { header: "MODE" },
          { header: "PURPOSE" },
          { header: "ATTEMPTS", align: "right" },
          { header: "MODEL" },
          { header: "CACHED" },
          { header: "WALL", align: "right" },
          { header: "USD", align: "right" },
          { header: "ERROR" },
        ],
        t.calls.map((c) => [
          c.label,
          c.mode ?? "-",
          c.purpose,
          String(c.attempts),
          c.model,
          c.cached ? "yes" : "no",
          formatDuration(c.wallS),
          formatUsd(c.usd),
          truncate(squish(c.error), 80),
        ]),
        paint,
        () => "plain",
        "  ",
      ),
    );
  }
  return out;
}

const OPTIONS = {
  json: { type: "boolean", description: "Print one JSON object instead of text" },
  runs: RUNS_OPTION,
  ...ONE_SWEEP_CELL_OPTIONS,
} as const satisfies OptionSpecs;

const showCommand = defineCommand({
  name: "show",
  summary: "Show one sweep, or one task of it: stages, ledger, tripwires, selection, library",
  args: "RUN [TASK]",
  help: [
    "RUN is a sweep id, a unique prefix of one (with or without swp_), or `last`.",
    "Or name the sweep by its flags instead of RUN — the newest sweep with --bench, --substrate,",
    "--seed, --tag, --k and --mode as given (e.g. `harness2 show --bench demo --k 2`); then the",
    "one argument, if any, is TASK.",
    "Without TASK: per task and mode, the stages with status and cost, the ledger's R and P",
    "against 4k and 3k, the selection (chosen label, why, fallback), tripwires and library",
    "entries added. With TASK: that task in full — stage table, ledger labels, selection with",
    "its anonymous-id map, reflection, judgments, rollouts and improver calls.",
    "",
    "--json prints one object: {sweep: {…the `runs --json` fields, argv, config, identity,",
    "runsRoot, domains}, tasks: [{id, sweepId, domain, task, k, status, …, modes: [{mode,",
    "status, R, P, expectedR, expectedP, usd, stages, ledger, selection, reflection,",
    "tripwires, library, judgments}], rollouts, calls, tripwires}], tripwires, notes}.",
    "Fields are only ever added, never renamed. An unknown or ambiguous RUN or TASK, or flags",
    "no sweep matches, is one line on stderr and exit 1.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 0, max: 2 },
  async run(args, io: CliIO) {
    // With the sweep's flags, the only argument left is TASK; otherwise RUN [TASK].
    const byFlags = hasCellFlags(args);
    if (byFlags && args.positionals.length > 1) {
      throw new UsageError("name the sweep either by RUN or by its flags, not both", "show");
    }
    if (!byFlags && args.positionals.length === 0) {
      throw new UsageError(
        "'show' needs RUN [TASK], or the sweep's flags instead of RUN (e.g. --bench demo --k 2)",
        "show",
      );
    }
    checkCellFlags(args, "show");
    const handles = byFlags ? [] : args.positionals.slice(0, 1);
    const task = byFlags ? args.positionals[0] : args.positionals[1];
    const loc = browseLocation(args, io);
    const db = await openForBrowsing(loc);
    if (!db) throw new CliError(`no store at ${loc.dbPath}: nothing has run yet`);
    let detail: SweepDetail | null;
    let taskNames: string[] = [];
    let id: string;
    try {
      [id] = readStore(loc, () =>
        selectSweeps(db, loc, args, { command: "show", single: true, handles }),
      ) as [string];
      detail = readStore(loc, () => sweepDetail(db, id, { task }));
      if (task !== undefined && detail && detail.tasks.length === 0) {
        taskNames = readStore(loc, () => sweepTaskNames(db, id));
      }
    } finally {
      db.close();
    }
    if (!detail) throw new CliError(`sweep ${id} vanished while reading`);
    const found = detail;
    if (task !== undefined && detail.tasks.length === 0) {
      const some = taskNames.slice(0, 5).join(", ");
      const more = taskNames.length > 5 ? `, … (${taskNames.length} in all)` : "";
      const known = taskNames.length > 0 ? `; it ran ${some}${more}` : "; it ran no tasks";
      throw new CliError(`no task '${task}' in sweep ${detail.sweep.id}${known}`);
    }
    if (args.opts.json) {
      // Each mode with its lineage (store/lineage.ts): a field added, none changed.
      const tasks = detail.tasks.map((t) => ({
        ...t,
        modes: t.modes.map((m) => ({ ...m, lineage: lineageOf(m) })),
      }));
      io.stdout(`${JSON.stringify({ ...detail, tasks }, null, 2)}\n`);
      return EXIT.ok;
    }
    const paint = painter(io);
    const lines =
      task === undefined
        ? renderSweep(detail, paint)
        : found.tasks.flatMap((t, i) => [...(i > 0 ? [""] : []), ...renderTask(found, t, paint)]);
    io.stdout(`${lines.join("\n")}\n`);
    return EXIT.ok;
  },
});

export default showCommand;

/** A mode as people read it (parallel, sequential); --json keeps the tokens. */
function modeWord(mode: string): string {
  return mode === "agg" || mode === "seq" ? MODE_NAMES[mode] : mode;
}
