// `harness2 browse [RUN]`: the keyboard-driven browser over the store (sweeps → tasks → stages and
// selections, a report tab once judgments exist). Needs a terminal; read-only: it never creates a
// store, never writes a row and never scores anything.

import type { Database } from "bun:sqlite";
import { resolve } from "node:path";
import type { Tree } from "../../core/harness/surface.ts";
import { type CliIO, colorFor, defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { browseLocation, openForBrowsing, RUNS_OPTION, readStore } from "../runs/run-handle.ts";
import {
  checkCellFlags,
  hasCellFlags,
  ONE_SWEEP_CELL_OPTIONS,
  selectSweeps,
} from "../sweep/sweep-handles.ts";

const OPTIONS = { runs: RUNS_OPTION, ...ONE_SWEEP_CELL_OPTIONS } as const satisfies OptionSpecs;

const browseCommand = defineCommand({
  name: "browse",
  summary: "Browse the store in the terminal: sweeps, tasks, stages, selections and the report",
  args: "[RUN]",
  help: [
    "Opens a full-screen browser over every recorded sweep (or straight at RUN: `last`, a sweep id",
    "or a unique prefix). Enter opens, Esc goes back, ↑↓ move or scroll, tab switches to the report",
    "once the sweep has judgments, r reloads, q quits. A stage shows its notes, its harness diff",
    "against its parent, its proposer calls and the paths of its evidence and audit files; a",
    "selection shows its candidates with their anonymous ids decoded and the selector's why; a",
    "rollout (from its task) shows its output files and trajectory. / searches the screen (n: the",
    "next match), p shows it in $PAGER, e opens its folder in $EDITOR.",
    "Or name the sweep to open by its flags (--bench, --substrate, --seed, --tag, --k, --mode):",
    "the newest sweep that matches them all.",
    "Needs a terminal: elsewhere use `harness2 runs` and `harness2 show RUN`.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 0, max: 1 },
  async run(args, io) {
    checkCellFlags(args, "browse");
    if (args.positionals.length > 0 && hasCellFlags(args)) {
      throw new UsageError("name the sweep either by RUN or by its flags, not both", "browse");
    }
    if (!io.isTTY) {
      // A missing terminal is not a wrong command line: the same command works in one (exit 1).
      throw new CliError("needs a terminal; use 'harness2 runs' and 'harness2 show RUN' instead");
    }
    const loc = browseLocation(args, io);
    const db = await openForBrowsing(loc);
    if (db === null) {
      throw new CliError(
        `no harness2 store at ${loc.dbPath} yet; 'harness2 demo' makes one (or pass --runs DIR)`,
      );
    }
    try {
      // No RUN and no flags: the browser opens at its list of sweeps.
      const named = args.positionals.length > 0 || hasCellFlags(args);
      const initialSweep = named
        ? readStore(loc, () => selectSweeps(db, loc, args, { command: "browse", single: true }))[0]
        : undefined;
      const { runBrowser } = await import("../../../tui/browse/start.ts");
      const source = await browseSource(db, loc.dbPath, io);
      await runBrowser({
        source,
        color: colorFor(io),
        ...(initialSweep === undefined ? {} : { initialSweep }),
      });
      return EXIT.ok;
    } finally {
      db.close();
    }
  },
});

/** The store's read queries plus the two things only the CLI may compute: diffs and the report. */
async function browseSource(db: Database, location: string, io: CliIO) {
  const { storeSource } = await import("../../../tui/browse/source.ts");
  const { walkFiles, readFileBytes, dirExists } = await import("../../core/lib/safe-fs.ts");
  const { treeDiff } = await import("../../core/harness/diff.ts");
  const { sweepRecords } = await import("../../../store/report-queries.ts");
  const { judgmentsFor } = await import("../../../store/judgment-queries.ts");
  const { summarise } = await import("../../judge/report.ts");
  const { judgmentKeys, reportCells } = await import("../../judge/sweep-data.ts");
  const { renderReportView } = await import("../../../tui/report/report-view.tsx");
  const utf8 = new TextDecoder("utf-8", { fatal: true });

  const readDir = (dir: string): Tree => {
    const tree: Tree = {};
    for (const rel of walkFiles(dir, { skipDirs: new Set(["__pycache__"]) })) {
      const bytes = readFileBytes(dir, rel);
      try {
        tree[rel] = utf8.decode(bytes);
      } catch {
        tree[rel] = bytes;
      }
    }
    return tree;
  };

  const extras = await import("../runs/browse-extras.ts");
  return storeSource(db, location, {
    rolloutText: (runDir) => extras.rolloutText(runDir, io),
    openExternal: (what) => extras.openExternal(what, io),
    harnessDiff(parentDir, harnessDir) {
      const from = resolve(io.cwd, parentDir);
      const to = resolve(io.cwd, harnessDir);
      if (!dirExists(from) || !dirExists(to)) return null;
      try {
        const name = (p: string) => p.split("/").filter(Boolean).pop() ?? p;
        return treeDiff(readDir(from), readDir(to), `a/${name(from)}`, `b/${name(to)}`);
      } catch {
        return null;
      }
    },
    reportText(sweepId, opts) {
      const records = sweepRecords(db, sweepId);
      if (records === null) return null;
      const cells = reportCells(records, judgmentsFor(db, judgmentKeys(records)));
      const report = summarise({
        picks: cells.picks,
        bases: cells.bases,
        bench: records.sweep.bench,
        substrate: records.sweep.substrate,
        seed: records.sweep.seed,
        tag: records.sweep.tag,
        sweeps: [records.sweep.id],
      });
      return renderReportView(report, opts);
    },
  });
}

export default browseCommand;
