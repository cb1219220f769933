// Where a sweep's benchmark came from — the task folder, or the installed checkout (with its
// dependencies folder, split or subset) — as one typed value per benchmark. The command builds it
// once (cli/bench/build-adapter.ts) and records it in `sweep.started.config` under these same keys;
// the judge reads it back through `benchSourceOf`, validated, instead of looking keys up by name.

import { z } from "zod";

export const BenchSource = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("tasks"), tasksDir: z.string().min(1) }),
  z.object({
    kind: z.literal("jb"),
    dependencies: z.string().min(1).optional(),
    split: z.enum(["main", "easy"]),
    jbRoot: z.string().min(1),
  }),
  z.object({
    kind: z.literal("lab"),
    dependencies: z.string().min(1).optional(),
    labRoot: z.string().min(1),
  }),
  z.object({
    kind: z.literal("wb"),
    dependencies: z.string().min(1).optional(),
    subset: z.string().min(1),
    wbRoot: z.string().min(1),
  }),
]);
export type BenchSource = z.infer<typeof BenchSource>;

/** The recorded keys of a source (what `sweep.started.config` holds): everything but `kind`. */
export function sourceRecord(source: BenchSource): Record<string, string> {
  const { kind: _kind, ...keys } = source;
  return Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/** The benchmark checkout and dependencies folder a source names (a task folder names neither). */
export function checkoutOfSource(source: BenchSource | null): {
  root?: string;
  dependencies?: string;
} {
  switch (source?.kind) {
    case "jb":
      return { root: source.jbRoot, dependencies: source.dependencies };
    case "lab":
      return { root: source.labRoot, dependencies: source.dependencies };
    case "wb":
      return { root: source.wbRoot, dependencies: source.dependencies };
    default:
      return {};
  }
}

/** Which source kind a recorded benchmark name has (`wb-office` is a WorkBuddy subset). */
function kindOf(bench: string): BenchSource["kind"] | null {
  if (bench === "tasks" || bench === "jb" || bench === "lab") return bench;
  return bench.startsWith("wb-") ? "wb" : null;
}

/**
 * The source a sweep of `bench` recorded in its configuration, or null when it recorded none (the
 * demo, a sweep from before the keys existed) or a value of the wrong shape.
 */
export function benchSourceOf(
  bench: string,
  config: Readonly<Record<string, unknown>>,
): BenchSource | null {
  const kind = kindOf(bench);
  if (kind === null) return null;
  const parsed = BenchSource.safeParse({ ...config, kind });
  return parsed.success ? parsed.data : null;
}
