// `harness2 judge [RUN]`: scores the chosen run of every finished task × mode × k (with --bases, the
// base rollouts too) and records judgments with the judge's identity. Never scores a failed or
// fallback pick, never replaces a graded row with a failed re-judge, refuses a changed judge.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { experimentJudges, judgmentsFor } from "../../../store/judgment-queries.ts";
import { sweepRecords } from "../../../store/report-queries.ts";
import { StoreWriter } from "../../../store/writer.ts";
import { squish } from "../../core/lib/format.ts";
import { loadRunConfig } from "../../core/run/config.ts";
import { MODE_NAMES } from "../../core/run/naming.ts";
import { judgeSweep, type PreviousJudgment, type Scored } from "../../judge/judge.ts";
import {
  JudgeChangedError,
  judgeIdentityChanges,
  judgeIdentityText,
  parseJudgeIdentity,
} from "../../judge/judge-identity.ts";
import { baseSubjects, judgmentKeys, pickSubjects } from "../../judge/sweep-data.ts";
import { loadBenchJudge } from "../bench/bench-judges.ts";
import { defineCommand, type OptionSpecs, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import {
  browseLocation,
  browsingWriterOptions,
  closeBrowsing,
  openForBrowsing,
  RUNS_OPTION,
  readStore,
} from "../runs/run-handle.ts";
import { PARTITION_OPTIONS, partChoice, partForSweep } from "../sweep/partition-opts.ts";
import { CELL_OPTIONS, selectSweeps } from "../sweep/sweep-handles.ts";

/**
 * Some newly judged row is ungraded (a judge failure or a pick that may not be judged). The same
 * number as a usage error, as in the original's judge CLI and as the issue specifies; the message
 * on stderr tells the two apart.
 */
export const EXIT_UNGRADED = 2;

function rowLine(r: Scored): string {
  const where = `${r.task} ${MODE_NAMES[r.mode]} k=${r.k} ${r.label || "(no pick)"}`;
  if (r.kind === "base") {
    return r.graded
      ? `  base ${r.task} k=${r.k} ${r.label}: ${r.score?.toFixed(3)}`
      : `  base ${r.task} k=${r.k} ${r.label}: ungraded — ${squish(r.reason)}`;
  }
  return r.graded
    ? `  ${where}: ${r.score?.toFixed(3)}`
    : `  ${where}: ungraded — ${squish(r.reason)}`;
}

const OPTIONS = {
  bases: {
    type: "boolean",
    description: "Also judge the base rollouts, so the report can pair them",
  },
  parallel: {
    type: "int",
    min: 1,
    valueName: "N",
    description: "Judgements at once (default: $HARNESS2_JUDGE_PARALLEL, else 8)",
  },
  rejudge: { type: "boolean", description: "Score again runs this judge already graded" },
  tasks: {
    type: "string",
    valueName: "DIR",
    description: "The task folder of a tasks sweep (default: the one the sweep recorded)",
  },
  json: { type: "boolean", description: "Print the judged rows as one JSON object" },
  ...PARTITION_OPTIONS,
  runs: RUNS_OPTION,
  ...CELL_OPTIONS,
} as const satisfies OptionSpecs;

const judgeCommand = defineCommand({
  name: "judge",
  summary: "Score the chosen run of every finished task and mode of a sweep (outside the method)",
  args: "[RUN]",
  help: [
    "RUN is `last` (the default), a sweep id or a unique prefix of one; or name the sweep by its",
    "flags (--bench, --substrate, --seed, --tag, --k). Only a pick the blind selector made is",
    "scored: a failed or fallback selection is recorded ungraded with its reason, and a judge",
    "failure is ungraded too — never a zero. A run the same judge already graded is kept (use",
    "--rejudge to score it again); a graded row is never replaced by a failed re-judge.",
    "Exit 0 when every row judged now is graded, 2 when some are ungraded, 1 on a refusal (e.g.",
    "the experiment's judge changed).",
    "",
    "A plan id (pln_…, from `run --queue`) judges the newest sweep of each of its domains in",
    "turn (--json: one object per sweep).",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 0, max: 1 },
  async run(args, io) {
    // A --tasks folder that is not there is a wrong command line (README: exit 2), found before
    // the store is opened; without this check a sweep that is not a tasks sweep ignored it.
    const tasksDir = tasksFolder(args.opts.tasks, io.cwd);
    const choice = partChoice(args, io, "judge");
    const loc = browseLocation(args, io);
    // judge records judgments, so it opens the store for writing (never creating it).
    const db = await openForBrowsing(loc, { write: true });
    if (db === null) throw new CliError(`no harness2 store at ${loc.dbPath}: nothing to judge`);
    try {
      // A plan (pln_…) names one sweep per domain: each is judged in turn.
      const sweepIds = readStore(loc, () =>
        selectSweeps(db, loc, args, { command: "judge", single: true, plans: true }),
      );
      const handle = sweepIds.length > 1 ? (args.positionals[0] as string).trim() : null;
      const judgeOne = async (sweepId: string, last: boolean): Promise<number> => {
        const records = readStore(loc, () => sweepRecords(db, sweepId as string));
        if (records === null) throw new CliError(`no sweep ${sweepId} in ${loc.dbPath}`);
        const { sweep } = records;
        // Only the chosen part of a partition, when one is given.
        const part = choice === null ? null : partForSweep(choice, sweep);
        const inPart = (s: { task: string }) => part === null || part.tasks.has(s.task);
        const picks = pickSubjects(records).filter(inPart);
        const bases = (args.opts.bases ? baseSubjects(records) : []).filter(inPart);
        if (picks.length === 0 && bases.length === 0) {
          throw new CliError(
            `nothing to judge in sweep ${sweep.id}: no task has finished a mode yet (is it still running?)`,
          );
        }
        const parallel = args.opts.parallel ?? loadRunConfig(io.env, { cwd: io.cwd }).judgeParallel;
        const bench = await loadBenchJudge(sweep.bench, {
          config: sweep.config,
          runsDir: loc.runsDir,
          env: io.env,
          ...(tasksDir === undefined ? {} : { tasksDir }),
        });
        const judge = judgeIdentityText(bench.identity);
        for (const prior of readStore(loc, () => experimentJudges(db, sweep))) {
          if (prior.judge === judge) continue;
          throw new CliError(
            new JudgeChangedError(
              `${sweep.bench}/${sweep.substrate}${sweep.tag ? `/${sweep.tag}` : ""}`,
              prior.judge,
              judgeIdentityChanges(parseJudgeIdentity(prior.judge), bench.identity),
              prior.sweeps,
            ).message,
          );
        }
        const stored = readStore(loc, () => judgmentsFor(db, judgmentKeys(records)));
        const previous = new Map<string, PreviousJudgment>(
          [...stored].map(([key, j]) => [key, { ...j, sweep: j.sweepId }]),
        );

        const lost: string[] = [];
        const writer = new StoreWriter(
          db,
          browsingWriterOptions(db, { onError: (err) => lost.push(err.message) }),
        );
        let rows: Scored[];
        try {
          rows = await judgeSweep({
            picks,
            bases,
            scorer: bench.scorer,
            parallel,
            sink: writer,
            judge,
            previous,
            rejudge: args.opts.rejudge,
          });
        } finally {
          writer.close();
        }
        if (lost.length > 0) {
          throw new CliError(`could not record ${lost.length} judgment(s): ${lost[0]}`);
        }
        const fresh = rows.filter((r) => r.pass !== "kept");
        const ungraded = fresh.filter((r) => !r.graded);
        const counts = {
          picks: rows.filter((r) => r.kind === "pick").length,
          bases: rows.filter((r) => r.kind === "base").length,
          graded: fresh.filter((r) => r.graded).length,
          ungraded: ungraded.length,
          kept: rows.length - fresh.length,
        };
        if (args.opts.json) {
          const partition = part === null ? {} : { partition: part.note };
          // The judge's identity is JSON text in the store; here it is the object it holds, so
          // --json is not JSON inside JSON (issue 35).
          const decodedRows = rows.map((r) => ({ ...r, judge: decoded(r.judge) }));
          const out = { sweep: sweep.id, judge: decoded(judge), ...partition, ...counts };
          io.stdout(`${JSON.stringify({ ...out, rows: decodedRows })}\n`);
        } else {
          io.stdout(
            `judging sweep ${sweep.id} (${sweep.bench}/${sweep.substrate}) with ${judge}, ${parallel} at once\n`,
          );
          if (part !== null) io.stdout(`${part.note}\n`);
          for (const r of fresh) io.stdout(`${rowLine(r)}\n`);
          const what = `${counts.picks} pick(s)${counts.bases > 0 ? ` and ${counts.bases} base run(s)` : ""}`;
          const why =
            counts.ungraded > 0
              ? ` (${counts.ungraded} ungraded: no pick to judge or the check failed; never counted as 0)`
              : "";
          io.stdout(
            `${what}: ${counts.graded} graded, ${counts.ungraded} ungraded, ${counts.kept} already graded (kept)${why}\n`,
          );
          // Works as printed: a --runs given here is given there too.
          const runsFlag = args.opts.runs === undefined ? "" : ` --runs ${loc.runsDir}`;
          if (last) {
            io.stdout(
              `next: ${selfCommand(io.env, io.cwd)} report ${handle ?? sweep.id}${runsFlag}\n`,
            );
          }
        }
        if (ungraded.length > 0) {
          io.stderr(
            `harness2 judge: ${ungraded.length} row(s) ungraded; they stay out of every mean\n`,
          );
          return EXIT_UNGRADED;
        }
        return EXIT.ok;
      };
      let code: number = EXIT.ok;
      for (const [i, id] of sweepIds.entries()) {
        const got = await judgeOne(id, i === sweepIds.length - 1);
        if (code === EXIT.ok) code = got;
      }
      return code;
    } finally {
      await closeBrowsing(db);
    }
  },
});

/** The --tasks folder as an absolute path, or a usage error when it is not a directory. */
function tasksFolder(raw: string | undefined, cwd: string): string | undefined {
  if (raw === undefined) return undefined;
  const dir = resolve(cwd, raw);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(
      `--tasks ${dir} does not exist: give the task folder the sweep ran`,
      "judge",
    );
  }
  if (!isDir) {
    throw new UsageError(
      `--tasks ${dir} is not a directory: give the task folder the sweep ran`,
      "judge",
    );
  }
  return dir;
}

export default judgeCommand;

/** A judge identity stored as JSON text, as the value it holds (the text itself if it is not JSON). */
function decoded(text: string): unknown {
  if (!text.startsWith("{")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
