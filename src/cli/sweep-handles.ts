// The sweeps a judge or report command names: RUN handles (`last`, an id, a unique prefix) or the
// sweep's own flags (--bench, --substrate, --seed, --tag, --k), newest match first — so nobody
// retypes a whole cell to find a run. Reads the store only; never writes.

import type { Database } from "bun:sqlite";
import type { StoreLocation } from "../../store/db.ts";
import { findSweeps, type SweepFilter } from "../../store/report-queries.ts";
import { type OptionSpec, type ParsedArgs, stringOpt, UsageError } from "./command.ts";
import { CliError } from "./errors.ts";
import { EXIT } from "./exit-codes.ts";
import { resolveRunHandle } from "./run-handle.ts";

export const CELL_OPTIONS: Record<string, OptionSpec> = {
  bench: { type: "string", valueName: "NAME", description: "Newest sweep of this benchmark" },
  substrate: { type: "string", valueName: "NAME", description: "… on this substrate (oc, cx)" },
  seed: { type: "string", valueName: "N", description: "… with this seed" },
  tag: { type: "string", valueName: "TAG", description: "… with this tag" },
  k: {
    type: "string",
    valueName: "K[,K…]",
    description: "… that ran this k (a list: one sweep per k)",
  },
};

function whole(raw: string, flag: string, command: string, min: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new UsageError(`--${flag} takes a whole number ≥ ${min}, got '${raw}'`, command);
  }
  return Number(raw);
}

/** The filter the cell flags describe, or null when none was given. */
function cellFilter(
  args: ParsedArgs,
  command: string,
): { filter: SweepFilter; ks: number[] } | null {
  const bench = stringOpt(args, "bench");
  const substrate = stringOpt(args, "substrate");
  const seed = stringOpt(args, "seed");
  const tag = stringOpt(args, "tag");
  const k = stringOpt(args, "k");
  if ([bench, substrate, seed, tag, k].every((v) => v === undefined)) return null;
  const ks =
    k === undefined
      ? []
      : [...new Set(k.split(",").map((x) => whole(x, "k", command, 1)))].sort((a, b) => a - b);
  return {
    filter: {
      ...(bench === undefined ? {} : { bench }),
      ...(substrate === undefined ? {} : { substrate }),
      ...(seed === undefined ? {} : { seed: whole(seed, "seed", command, 0) }),
      ...(tag === undefined ? {} : { tag }),
    },
    ks,
  };
}

function describeFilter(f: SweepFilter, k?: number): string {
  const parts = Object.entries({ ...f, ...(k === undefined ? {} : { k }) }).map(
    ([key, v]) => `--${key} ${v}`,
  );
  return parts.join(" ");
}

/**
 * Sweep ids in the order named. Handles and cell flags are exclusive; with neither, `last`. With
 * `single`, more than one sweep is a usage error.
 */
export function selectSweeps(
  db: Database,
  loc: StoreLocation,
  args: ParsedArgs,
  opts: { command: string; single: boolean },
): string[] {
  const cell = cellFilter(args, opts.command);
  if (cell !== null && args.positionals.length > 0) {
    throw new UsageError("name the sweep either by RUN or by its flags, not both", opts.command);
  }
  if (cell === null) {
    const handles = args.positionals.length > 0 ? args.positionals : ["last"];
    return [...new Set(handles.map((h) => resolveRunHandle(db, h, loc)))];
  }
  const ks = cell.ks.length > 0 ? cell.ks : [undefined];
  if (opts.single && ks.length > 1) {
    throw new UsageError(`'${opts.command}' takes one sweep: give a single --k`, opts.command);
  }
  return ks.map((k) => {
    const found = findSweeps(db, { ...cell.filter, ...(k === undefined ? {} : { k }) });
    const newest = found[0];
    if (newest === undefined) {
      throw new CliError(
        `no sweep matches ${describeFilter(cell.filter, k)} in ${loc.dbPath} (list them with 'harness2 runs')`,
        EXIT.failed,
      );
    }
    return newest;
  });
}
