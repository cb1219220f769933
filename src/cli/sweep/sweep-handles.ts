// The sweeps a browsing, judge or report command names: RUN handles (`last`, an id, a unique prefix)
// or the sweep's own flags (--bench, --substrate, --seed, --tag, --k, and for show/browse --mode),
// newest match first — so nobody retypes a whole cell to find a run. Reads the store only.

import type { Database } from "bun:sqlite";
import type { StoreLocation } from "../../../store/db.ts";
import { planSweeps } from "../../../store/fleet-queries.ts";
import { findSweeps, type SweepFilter, sweepRow } from "../../../store/report-queries.ts";
import type { ModeToken } from "../../core/events/registry.ts";
import { MODE_NAMES, parseModes } from "../../core/run/naming.ts";
import { type OptionSpecs, type OptionValues, UsageError } from "../command.ts";
import { CliError } from "../errors.ts";
import { resolveRunHandle } from "../runs/run-handle.ts";

/**
 * One RUN handle: a sweep, or a queued plan (`pln_…`, docs/guide/many-machines.md), which
 * stands for the newest sweep of each of its domains. A command that looks at one sweep is told
 * which sweeps the plan holds.
 */
function resolveHandle(
  db: Database,
  handle: string,
  loc: StoreLocation,
  opts: { command: string; single: boolean; plans?: boolean },
): string[] {
  if (!/^pln_\w+$/.test(handle.trim())) return [resolveRunHandle(db, handle, loc)];
  const plan = handle.trim();
  const ids = planSweeps(db, plan);
  if (ids.length === 0) {
    throw new CliError(
      `no sweep of plan ${plan} in ${loc.dbPath} yet (its workers record one per domain; see 'harness2 watch')`,
    );
  }
  if (opts.single && opts.plans !== true && ids.length > 1) {
    const shown = ids.slice(0, 6).join(", ");
    throw new CliError(
      `plan ${plan} holds ${ids.length} sweeps (one per domain): ${shown}${ids.length > 6 ? ", …" : ""}; '${opts.command}' takes one of them`,
    );
  }
  return ids;
}

export const CELL_OPTIONS = {
  bench: { type: "string", valueName: "NAME", description: "Newest sweep of this benchmark" },
  substrate: { type: "string", valueName: "NAME", description: "… on this substrate (oc, cx)" },
  seed: { type: "string", valueName: "N", description: "… with this seed" },
  tag: { type: "string", valueName: "TAG", description: "… with this tag" },
  k: {
    type: "string",
    valueName: "K[,K…]",
    description: "… that ran this k (a list: one sweep per k)",
  },
} as const satisfies OptionSpecs;

/**
 * `--mode` for commands that look at one sweep (show, browse). judge and report leave it out:
 * report's own `--modes` already picks which modes of the sweeps it tabulates.
 */
export const CELL_MODE_OPTION = {
  mode: {
    type: "string",
    valueName: "MODE",
    description: "… that ran this mode (parallel, sequential, or a comma list of both)",
  },
} as const satisfies OptionSpecs;

/** The cell flags of a command that looks at one sweep: one k, and --mode. */
export const ONE_SWEEP_CELL_OPTIONS = {
  ...CELL_OPTIONS,
  k: { type: "string", valueName: "K", description: "… that ran this k" },
  ...CELL_MODE_OPTION,
} as const satisfies OptionSpecs;

const CELL_FLAGS = ["bench", "substrate", "seed", "tag", "k", "mode"] as const;

/** A command line that may name a sweep by its cell flags (any of them; --mode only on some). */
type CellFlagArgs = {
  opts: Partial<OptionValues<typeof CELL_OPTIONS & typeof CELL_MODE_OPTION>>;
  positionals: string[];
};

/** Whether the sweep is named by its flags rather than by RUN. */
export function hasCellFlags(args: CellFlagArgs): boolean {
  return CELL_FLAGS.some((flag) => args.opts[flag] !== undefined);
}

function whole(raw: string, flag: string, command: string, min: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new UsageError(`--${flag} takes a whole number ≥ ${min}, got '${raw}'`, command);
  }
  return Number(raw);
}

/** The filter the cell flags describe, or null when none was given. */
function cellFilter(
  args: CellFlagArgs,
  command: string,
): { filter: SweepFilter; ks: number[]; modes: ModeToken[] } | null {
  if (!hasCellFlags(args)) return null;
  const bench = args.opts.bench;
  const substrate = args.opts.substrate;
  const seed = args.opts.seed;
  const tag = args.opts.tag;
  const k = args.opts.k;
  const mode = args.opts.mode;
  const ks =
    k === undefined
      ? []
      : [...new Set(k.split(",").map((x) => whole(x, "k", command, 1)))].sort((a, b) => a - b);
  let modes: ModeToken[] = [];
  if (mode !== undefined) {
    try {
      modes = parseModes(mode);
    } catch (err) {
      throw new UsageError(`--mode: ${(err as Error).message}`, command);
    }
  }
  return {
    modes,
    filter: {
      ...(bench === undefined ? {} : { bench }),
      ...(substrate === undefined ? {} : { substrate }),
      ...(seed === undefined ? {} : { seed: whole(seed, "seed", command, 0) }),
      ...(tag === undefined ? {} : { tag }),
    },
    ks,
  };
}

/** Checks the cell flags' values (a usage error, exit 2) before any store is opened. */
export function checkCellFlags(args: CellFlagArgs, command: string): void {
  cellFilter(args, command);
}

function describeFilter(f: SweepFilter, k?: number, modes: readonly ModeToken[] = []): string {
  const parts = Object.entries({ ...f, ...(k === undefined ? {} : { k }) }).map(
    ([key, v]) => `--${key} ${v}`,
  );
  if (modes.length > 0) parts.push(`--mode ${modes.map((m) => MODE_NAMES[m]).join(",")}`);
  return parts.join(" ");
}

/**
 * Sweep ids in the order named. Handles and cell flags are exclusive; with neither, `last`. With
 * `single`, more than one sweep is a usage error. `handles` are the RUN arguments when a command's
 * positionals hold more than RUNs (show's TASK); by default every positional is a RUN.
 */
export function selectSweeps(
  db: Database,
  loc: StoreLocation,
  args: CellFlagArgs,
  opts: { command: string; single: boolean; handles?: readonly string[]; plans?: boolean },
): string[] {
  const cell = cellFilter(args, opts.command);
  const given = opts.handles ?? args.positionals;
  if (cell !== null && given.length > 0) {
    throw new UsageError("name the sweep either by RUN or by its flags, not both", opts.command);
  }
  if (cell === null) {
    const handles = given.length > 0 ? given : ["last"];
    return [...new Set(handles.flatMap((h) => resolveHandle(db, h, loc, opts)))];
  }
  const ks = cell.ks.length > 0 ? cell.ks : [undefined];
  if (opts.single && ks.length > 1) {
    throw new UsageError(`'${opts.command}' takes one sweep: give a single --k`, opts.command);
  }
  return ks.map((k) => {
    const found = findSweeps(db, { ...cell.filter, ...(k === undefined ? {} : { k }) }).filter(
      (id) => cell.modes.every((m) => sweepRow(db, id)?.modes.includes(m)),
    );
    const newest = found[0];
    if (newest === undefined) {
      throw new CliError(
        `no sweep matches ${describeFilter(cell.filter, k, cell.modes)} in ${loc.dbPath} (list them with 'harness2 runs')`,
      );
    }
    return newest;
  });
}
