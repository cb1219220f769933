// `harness2 report [RUN…]`: per mode × k the mean over graded picks, the paired delta against the
// base harness, provenance, fallbacks, similarity and spend — Ink in a terminal, else text, --json
// or --markdown. Read-only: it never scores and never writes a row.

import type { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { judgmentsFor } from "../../../store/judgment-queries.ts";
import {
  type SweepRecords,
  sweepRecords,
  unpricedRollouts,
} from "../../../store/report-queries.ts";
import type { ModeToken } from "../../core/events/registry.ts";
import { dirExists } from "../../core/lib/safe-fs.ts";
import { parseModes } from "../../core/run/naming.ts";
import { webNote } from "../../core/run/web-policy.ts";
import { summarise } from "../../judge/report.ts";
import { renderMarkdown, renderText } from "../../judge/report-render.ts";
import { type BaseCell, judgmentKeys, type PickCell, reportCells } from "../../judge/sweep-data.ts";
import { type CliIO, colorFor, defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { browseLocation, openForBrowsing, RUNS_OPTION, readStore } from "../runs/run-handle.ts";
import {
  PARTITION_OPTIONS,
  partChoice,
  partForSweep,
  recordedPartNote,
} from "../sweep/partition-opts.ts";
import { CELL_OPTIONS, selectSweeps } from "../sweep/sweep-handles.ts";

/**
 * Cells of several sweeps of one benchmark and substrate: a (task, mode, k) — or a task's bases at
 * k — recorded by more than one of them is taken from the newest sweep.
 */
function cellsOf(
  db: Database,
  all: readonly SweepRecords[],
): { picks: PickCell[]; bases: BaseCell[] } {
  const picks = new Map<string, PickCell>();
  const bases = new Map<string, BaseCell>();
  const newestFirst = [...all].sort(
    (a, b) => b.sweep.startedAt - a.sweep.startedAt || b.sweep.id.localeCompare(a.sweep.id),
  );
  for (const records of newestFirst) {
    const cells = reportCells(records, judgmentsFor(db, judgmentKeys(records)));
    for (const c of cells.picks) {
      const key = `${c.task}\u0000${c.mode}\u0000${c.k}`;
      if (!picks.has(key)) picks.set(key, c);
    }
    for (const b of cells.bases) {
      const key = `${b.task}\u0000${b.k}`;
      if (!bases.has(key)) bases.set(key, b);
    }
  }
  return { picks: [...picks.values()], bases: [...bases.values()] };
}

const OPTIONS = {
  json: { type: "boolean", description: "Print the report as JSON (the table's own numbers)" },
  markdown: { type: "boolean", description: "Print the report as Markdown, for notes" },
  html: {
    type: "string",
    valueName: "FILE",
    description:
      "Write the report as one self-contained HTML page: tables, charts (score against spend across k) and the lineage of every task's candidates",
  },
  "per-task": {
    type: "boolean",
    description: "Add the per-task delta table (pick − base harness)",
  },
  modes: {
    type: "string",
    valueName: "LIST",
    description: "Only these modes: parallel, sequential (or agg, seq)",
  },
  ...PARTITION_OPTIONS,
  runs: RUNS_OPTION,
  ...CELL_OPTIONS,
} as const satisfies OptionSpecs;

const reportCommand = defineCommand({
  name: "report",
  summary:
    "Summarise judged sweeps: score and paired delta against the base harness per mode and k",
  args: "[RUN…]",
  help: [
    "RUN is `last` (the default), a sweep id or a unique prefix; several RUNs of one benchmark and",
    "substrate (e.g. one per k) go into one table. Or name the sweeps by their flags (--bench,",
    "--substrate, --seed, --tag, --k 1,2,4: the newest sweep per k). Ungraded picks are counted,",
    "never averaged as zeros; the delta pairs each pick with the base harness on the same task",
    "(judge the bases with `harness2 judge --bases`).",
    "",
    "A plan id (pln_…, from `run --queue`) stands for the newest sweep of each of its domains, so",
    "`harness2 report pln_…` is one table over the whole fleet.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 0, max: 64 },
  async run(args, io) {
    const htmlFile = args.opts.html;
    const formats = [args.opts.json, args.opts.markdown, htmlFile !== undefined];
    if (formats.filter(Boolean).length > 1) {
      throw new UsageError("--json, --markdown and --html are exclusive", "report");
    }
    const htmlPath = htmlFile === undefined ? undefined : resolve(io.cwd, htmlFile);
    if (htmlPath !== undefined) {
      if (htmlFile === "")
        throw new UsageError("--html needs a file, got an empty value", "report");
      if (!dirExists(dirname(htmlPath))) {
        throw new UsageError(`--html: the folder ${dirname(htmlPath)} does not exist`, "report");
      }
      if (dirExists(htmlPath)) throw new UsageError(`--html: ${htmlPath} is a directory`, "report");
    }
    const choice = partChoice(args, io, "report");
    const modesRaw = args.opts.modes;
    let modes: ModeToken[] | null = null;
    if (modesRaw !== undefined) {
      try {
        modes = parseModes(modesRaw);
      } catch (err) {
        throw new UsageError((err as Error).message, "report");
      }
    }
    const loc = browseLocation(args, io);
    const db = await openForBrowsing(loc);
    if (db === null) throw new CliError(`no harness2 store at ${loc.dbPath}: nothing to report`);
    try {
      const ids = readStore(loc, () =>
        selectSweeps(db, loc, args, { command: "report", single: false }),
      );
      const all = ids.map((id) => {
        const r = readStore(loc, () => sweepRecords(db, id));
        if (r === null) throw new CliError(`no sweep ${id} in ${loc.dbPath}`);
        return r;
      });
      const first = all[0] as SweepRecords;
      const other = all.find(
        (r) => r.sweep.bench !== first.sweep.bench || r.sweep.substrate !== first.sweep.substrate,
      );
      if (other !== undefined) {
        throw new CliError(
          `one report covers one benchmark and substrate: ${first.sweep.id} is ${first.sweep.bench}/${first.sweep.substrate}, ${other.sweep.id} is ${other.sweep.bench}/${other.sweep.substrate}`,
        );
      }
      const cells = readStore(loc, () => cellsOf(db, all));
      const keep = (mode: ModeToken) => modes === null || modes.includes(mode);
      // The part shown: the one asked for, else the one the sweep ran on (said in a note).
      const part = choice === null ? null : partForSweep(choice, first.sweep);
      const inPart = (c: { task: string }) => part === null || part.tasks.has(c.task);
      const partNote = part?.note ?? recordedPartNote(first.sweep.identity);
      // Whether the executor could reach the web, as every sweep of the report recorded it.
      const webNotes = [...new Set(all.map((r) => webNote(r.sweep.identity) ?? ""))].filter(
        Boolean,
      );
      const report = summarise({
        picks: cells.picks.filter((c) => keep(c.mode) && inPart(c)),
        bases: cells.bases.filter(inPart),
        ...(partNote === null ? {} : { partition: partNote }),
        web: webNotes,
        bench: first.sweep.bench,
        substrate: first.sweep.substrate,
        seed: first.sweep.seed,
        tag: first.sweep.tag,
        sweeps: all.map((r) => r.sweep.id),
        unpricedRollouts: readStore(loc, () =>
          unpricedRollouts(
            db,
            all.map((r) => r.sweep.id),
          ),
        ),
      });
      if (htmlPath !== undefined) {
        const { renderHtml } = await import("../../judge/report-html.ts");
        const { reportLineage } = await import("../runs/report-lineage.ts");
        const lineage = readStore(loc, () =>
          reportLineage(db, report.sweeps, (c) => keep(c.mode) && inPart(c)),
        );
        writeFileSync(htmlPath, renderHtml(report, { lineage }));
        io.stdout(`wrote ${htmlPath} (${report.summaries.length} mode × k cell(s))\n`);
      } else if (args.opts.json) {
        io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      } else if (args.opts.markdown) {
        io.stdout(renderMarkdown(report));
      } else if (io.isTTY) {
        const { renderReportView } = await import("../../../tui/report/report-view.tsx");
        io.stdout(
          renderReportView(report, {
            columns: process.stdout.columns || 120,
            color: colorFor(io),
            perTask: args.opts["per-task"],
          }),
        );
      } else {
        io.stdout(renderText(report, { perTask: args.opts["per-task"] }));
      }
      if (htmlPath === undefined && !args.opts.json && !args.opts.markdown) {
        io.stdout(takeHomeLine(cells.picks, args.opts.runs === undefined ? "" : loc.runsDir, io));
      }
      return EXIT.ok;
    } finally {
      db.close();
    }
  },
});

export default reportCommand;

/** How to take the adopted harness home, for the domains the report covers (issue 35). */
function takeHomeLine(picks: readonly PickCell[], runsDir: string, io: CliIO): string {
  const domains = [...new Set(picks.filter((p) => p.pick !== null).map((p) => p.domain))];
  const first = domains[0];
  if (first === undefined) return "";
  const runs = runsDir === "" ? "" : ` --runs ${runsDir}`;
  const more = domains.length > 1 ? ` (one export per domain: ${domains.join(", ")})` : "";
  return `\nTake the adopted harness home: ${selfCommand(io.env, io.cwd)} harness export ./adapted-harness --domain ${first}${runs}${more}\n`;
}
