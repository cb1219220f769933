// `harness2 runs [--json]`: the sweeps recorded in the store, newest first, one line each. Also
// the small text helpers `show` shares (aligned tables, money, durations, colour). Read-only: it
// never creates a store or writes a row.

import { existsSync } from "node:fs";
import type { StoreLocation } from "../../../store/db.ts";
import { forgetSweeps, idleSweepIds, ownTaskCount, SweepLiveError } from "../../../store/forget.ts";
import { listSweeps } from "../../../store/sweep-list.ts";
import {
  type RunsListing,
  SweepStatus,
  type SweepSummary,
  sweepStatusWithResume,
} from "../../../store/views.ts";
import { MODE_NAMES } from "../../core/events/registry.ts";
import { formatDuration, formatUsd, formatWhen, uniquePrefixes } from "../../core/lib/format.ts";
import { paint, type Style } from "../../core/lib/paint.ts";
import { fitColumns, type TextColumn, textTable } from "../../core/lib/text-table.ts";
import {
  type CliIO,
  colorFor,
  defineCommand,
  type OptionSpecs,
  type ParsedArgs,
  UsageError,
} from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import {
  browseLocation,
  closeBrowsing,
  openForBrowsing,
  RUNS_OPTION,
  readStore,
  resolveRunHandle,
  sharedStoreOf,
} from "../runs/run-handle.ts";

export type Tone = "good" | "bad" | "warn" | "dim" | "bold" | "plain";

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function painter(io: CliIO): (text: string, tone: Tone) => string {
  const on = colorFor(io);
  const styles: Record<Tone, Style> = {
    good: "green",
    bad: "red",
    warn: "yellow",
    dim: "dim",
    bold: "bold",
    plain: "plain",
  };
  return (text, tone) => paint(text, styles[tone], on);
}

/** The tone a status word is shown in, whatever record it belongs to. */
export function toneOf(status: string): Tone {
  if (status === "ok") return "good";
  if (["failed", "dead", "unfinished", "base-failed"].includes(status)) return "bad";
  if (["partial", "degraded", "interrupted", "fell back", "kept base"].includes(status)) {
    return "warn";
  }
  if (status === "skipped") return "dim";
  return "plain";
}

export type Column = TextColumn;

/** Aligned columns (terminal widths), the header dim, each cell toned after padding. */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  paint: (text: string, tone: Tone) => string,
  tone: (row: number, col: number) => Tone = () => "plain",
  indent = "",
): string[] {
  return textTable<Tone>(columns, rows, { paint, tone, headerTone: "dim", indent });
}

// In a narrow terminal the columns with a drop rank go first (empty ones before any other); the
// id, status, counts of ok and failed tasks, spend and duration always stay.
const COLUMNS: Column[] = [
  { header: "ID" },
  { header: "STARTED", drop: 6 },
  { header: "STATUS" },
  { header: "BENCH", drop: 5 },
  { header: "SUB", drop: 4 },
  { header: "K", align: "right", drop: 7 },
  { header: "MODES", drop: 3 },
  { header: "OK", align: "right" },
  { header: "FAILED", align: "right" },
  { header: "PROBLEMS", align: "right", drop: 8 },
  { header: "RUNNING", align: "right", drop: 2 },
  { header: "STOPPED", align: "right", drop: 1 },
  { header: "SKIPPED", align: "right", drop: 2 },
  { header: "SPEND", align: "right" },
  { header: "DURATION", align: "right" },
];

const WORKER_COLUMNS: Column[] = [
  { header: "WORKER", drop: 5 },
  { header: "DOMAINS", drop: 4 },
];

function workerCells(s: SweepSummary): string[] {
  if (s.worker === null) return ["-", "-"];
  return [s.worker.name, s.worker.domains.join(",") || "-"];
}

function row(s: SweepSummary, short: (id: string) => string): string[] {
  return [
    s.id,
    formatWhen(s.startedAt),
    sweepStatusWithResume(s, short),
    s.bench || "?",
    s.substrate || "?",
    s.ks.join(",") || "-",
    // The interface's names, as the live view's header (the JSON keeps the tokens).
    s.modes.map((m) => (m === "agg" || m === "seq" ? MODE_NAMES[m] : m)).join("+") || "-",
    `${s.tasks.ok}/${s.tasks.total}`,
    String(s.tasks.failed),
    String(s.tasks.withProblems),
    String(s.tasks.running),
    String(s.tasks.interrupted),
    String(s.tasks.skipped),
    formatUsd(s.usd),
    formatDuration(s.durationS),
  ];
}

/**
 * The width a table must fit: $COLUMNS when set (as a shell exports it), else the terminal's;
 * null when printing to a pipe or a file, where every column is kept.
 */
export function tableWidth(io: CliIO): number | null {
  const env = Number(io.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return io.isTTY && process.stdout.columns ? process.stdout.columns : null;
}

export function renderRuns(
  sweeps: readonly SweepSummary[],
  io: CliIO,
  allIds: readonly string[] = sweeps.map((s) => s.id),
): string {
  const paint = painter(io);
  const width = tableWidth(io);
  // A store a fleet ran in says which worker ran each sweep and on which domains.
  const fleet = sweeps.some((s) => s.worker !== null);
  const columns = fleet ? [...COLUMNS, ...WORKER_COLUMNS] : COLUMNS;
  // A sweep a later one resumed names it by its short handle (the full id is in its own row).
  const prefixes = uniquePrefixes(allIds);
  const short = (id: string) => prefixes.get(id) ?? id;
  const rows = sweeps.map((s) => (fleet ? [...row(s, short), ...workerCells(s)] : row(s, short)));
  let fitted: ReturnType<typeof fitColumns> = { columns, rows, hidden: [], fits: true };
  if (width !== null) {
    fitted = fitColumns(columns, rows, width);
    // Still too wide: ids shrink to their shortest unique prefix (a handle every command takes).
    if (!fitted.fits) {
      fitted = fitColumns(
        columns,
        rows.map((r) => [short(r[0] as string), ...r.slice(1)]),
        width,
      );
    }
  }
  const statusCol = fitted.columns.findIndex((c) => c.header === "STATUS");
  const failedCol = fitted.columns.findIndex((c) => c.header === "FAILED");
  const lines = renderTable(fitted.columns, fitted.rows, paint, (r, c) => {
    const s = sweeps[r] as SweepSummary;
    if (c === statusCol) return toneOf(s.status);
    if (c === failedCol && s.tasks.failed > 0) return "bad";
    return "plain";
  });
  if (fitted.hidden.length > 0) {
    lines.push(
      paint(
        `(${fitted.hidden.length} column(s) hidden to fit ${width}; --json has them all)`,
        "dim",
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

const OPTIONS = {
  json: { type: "boolean", description: "Print one JSON object instead of a table" },
  limit: { type: "int", min: 1, valueName: "N", description: "Show only the newest N sweeps" },
  status: {
    type: "string",
    valueName: "S",
    description: `Only sweeps with this status (${SweepStatus.options.join(", ")})`,
  },
  bench: { type: "string", valueName: "NAME", description: "Only sweeps of this benchmark" },
  delete: {
    type: "string",
    valueName: "RUN",
    description: "Remove one sweep's records from the store (its files stay); needs --yes",
  },
  prune: {
    type: "boolean",
    description:
      "Remove the sweeps that recorded no work of their own (every task skipped); needs --yes",
  },
  yes: { type: "boolean", description: "Confirm --delete or --prune" },
  runs: RUNS_OPTION,
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const runsCommand = defineCommand({
  name: "runs",
  summary: "List past sweeps, newest first: status, tasks, spend, duration",
  help: [
    "Reads the runs directory's store and prints one line per sweep: id, start (UTC), status,",
    "bench, substrate, k, modes, tasks ok/total, failed (partial or failed), problems (tasks",
    "with a degraded mode, a fallen-back selection, a failed reflection or a dead rollout, which",
    "may still read ok; `show` names them), running, stopped",
    "(in progress when the sweep stopped; the same command resumes them), skipped,",
    "spend (improver sessions not served from cache plus executor rollouts) and duration.",
    "Status is running only while a live process holds the sweep's lock; a sweep that stopped",
    "without recording its end is unfinished. Pass an id (or a unique prefix, or `last`) to",
    "`harness2 show` for the detail.",
    "",
    "--json prints one object: {store, sweeps: [{id, startedAt, finishedAt, status, bench,",
    "substrate, ks, modes, seed, tag, tasks: {total, ok, failed, running, interrupted, skipped,",
    "withProblems},",
    "worker: {name, domains} | null, usd, durationS, resumes, resumedBy}]} with ISO-8601 UTC",
    "times; resumes/resumedBy name the sweep of the same experiment just before/after (a resume",
    "or a rerun), and an unfinished sweep a later one went on with reads 'interrupted → resumed",
    "by …' in the table. Fields are only",
    "ever added, never renamed. A sweep a fleet worker ran (harness2 worker) names the worker and",
    "its domains; the table then has WORKER and DOMAINS columns.",
    "",
    "An empty or missing store prints one line (or an empty list) and exits 0.",
    "",
    "--status and --bench keep only the sweeps that match. --delete RUN removes one sweep's",
    "records from the store and --prune every sweep that recorded no work of its own (a rerun",
    "whose tasks were all skipped); without --yes either lists what would go and exits 1 with",
    "nothing removed. The files a sweep wrote are never touched, and a live sweep is refused.",
  ].join("\n"),
  options: OPTIONS,
  async run(args, io) {
    const limit = args.opts.limit;
    const status = args.opts.status;
    if (status !== undefined && !(SweepStatus.options as readonly string[]).includes(status)) {
      throw new UsageError(
        `--status must be one of ${SweepStatus.options.join(", ")}, got '${status}'`,
        "runs",
      );
    }
    const bench = args.opts.bench;
    const keep = (s: SweepSummary) =>
      (status === undefined || s.status === status) && (bench === undefined || s.bench === bench);
    const loc = browseLocation(args, io);
    if (args.opts.delete !== undefined || args.opts.prune) {
      return await forgetCommand(args, io, loc, keep);
    }
    const db = await openForBrowsing(loc);
    let allIds: string[] = [];
    const sweeps = db
      ? readStore(loc, () => {
          try {
            const listed = listSweeps(db);
            allIds = listed.map((s) => s.id);
            const all = listed.filter(keep);
            return limit === undefined ? all : all.slice(0, limit);
          } finally {
            db.close();
          }
        })
      : [];
    if (args.opts.json) {
      const listing: RunsListing = { store: loc.dbPath, sweeps };
      io.stdout(`${JSON.stringify(listing, null, 2)}\n`);
      return EXIT.ok;
    }
    if (!db) {
      // An empty file (0 bytes) is no store yet either; it is read, never written.
      const where = existsSync(loc.dbPath)
        ? `${loc.dbPath} is empty`
        : `there is no store at ${loc.dbPath}`;
      const self = selfCommand(io.env, io.cwd);
      io.stdout(`No runs yet: ${where}. Try '${self} demo', or start one with '${self} run'.\n`);
      return EXIT.ok;
    }
    if (sweeps.length === 0) {
      const filtered = status !== undefined || bench !== undefined;
      io.stdout(
        filtered
          ? `No sweep in ${loc.dbPath} matches${status ? ` --status ${status}` : ""}${bench ? ` --bench ${bench}` : ""}.\n`
          : `No sweeps recorded yet in ${loc.dbPath}.\n`,
      );
      return EXIT.ok;
    }
    io.stdout(renderRuns(sweeps, io, allIds));
    return EXIT.ok;
  },
});

export default runsCommand;

/**
 * `--delete RUN` / `--prune`: never silent. Without --yes it lists what would go and exits 1
 * with nothing removed; with --yes it removes the records (store/forget.ts) and says what stays.
 */
async function forgetCommand(
  args: Args,
  io: CliIO,
  loc: StoreLocation,
  keep: (s: SweepSummary) => boolean,
): Promise<number> {
  const handle = args.opts.delete;
  if (handle !== undefined && args.opts.prune) {
    throw new UsageError("give --delete RUN or --prune, not both", "runs");
  }
  const db = await openForBrowsing(loc, { write: true });
  if (db === null) throw new CliError(`no store at ${loc.dbPath}: nothing to remove`);
  let removed: string[] = [];
  try {
    return readStore(loc, () => {
      const byId = new Map(listSweeps(db).map((s) => [s.id, s]));
      const ids =
        handle !== undefined
          ? [resolveRunHandle(db, handle, loc)]
          : idleSweepIds(db).filter((id) => {
              const s = byId.get(id);
              return s !== undefined && keep(s);
            });
      if (ids.length === 0) {
        io.stdout("Nothing to prune: every sweep recorded work of its own.\n");
        return EXIT.ok;
      }
      const own = ids.reduce((n, id) => n + ownTaskCount(db, id), 0);
      const what = `${ids.length} sweep(s): ${ids.join(", ")}`;
      const held =
        own > 0
          ? `; ${own} task(s) with results of their own leave the store (judge and report no longer see them)`
          : "";
      if (!args.opts.yes) {
        io.stdout(`Would remove ${what}${held}. The files they wrote stay on disk.\n`);
        throw new CliError("nothing removed: add --yes to remove them");
      }
      try {
        forgetSweeps(db, ids);
        removed = ids;
      } catch (err) {
        if (err instanceof SweepLiveError) throw new CliError(err.message);
        throw err;
      }
      io.stdout(`Removed ${what} from ${loc.dbPath}${held}. The files they wrote stay on disk.\n`);
      return EXIT.ok;
    });
  } finally {
    // A shared store forgets them in its log too, or every projection would make them again.
    await sharedStoreOf(db)?.pg?.log.forget(removed);
    await closeBrowsing(db);
  }
}
