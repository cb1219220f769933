// Names the method writes into paths and run ids: mode tokens and their CLI names, tags,
// namespaces (`<bench>-<substrate>-<mode><k>[-s<seed>][-<tag>]`), run ids and task-dir slugs.
// Pure string functions: never touches the file system, and never yields a name that could be
// mistaken for another (a tag that reads as a seed, two task ids sharing one directory).

import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { ModeToken } from "../events/registry.ts";
import { Harness2Error } from "../lib/errors.ts";

/** A name that breaks one of the rules below; `field` says which input, `allowed` what would do. */
export class InvalidNameError extends Harness2Error {
  constructor(
    readonly field: string,
    readonly value: string,
    readonly allowed: string,
  ) {
    super(`${field} ${JSON.stringify(value)} is not allowed: ${allowed}`);
  }
}

// ── modes ────────────────────────────────────────────────────────────────────────────────────

/** On-disk mode tokens, in the order modes run. */
export const MODES: readonly ModeToken[] = ModeToken.options;

export { MODE_NAMES } from "../events/registry.ts";

const MODE_ALIASES: ReadonlyMap<string, ModeToken> = new Map([
  ["agg", "agg"],
  ["parallel", "agg"],
  ["seq", "seq"],
  ["sequential", "seq"],
]);

const MODE_ALLOWED = "one of parallel, sequential (or the tokens agg, seq)";

/** `parallel`/`agg` → `agg`, `sequential`/`seq` → `seq` (trimmed, case-insensitive). */
export function modeToken(name: string): ModeToken {
  const token = MODE_ALIASES.get(name.trim().toLowerCase());
  if (token === undefined) throw new InvalidNameError("mode", name, MODE_ALLOWED);
  return token;
}

/**
 * Parses a comma list of mode names or tokens (`parallel,sequential`, `seq`, …) into tokens in
 * MODES order, without duplicates. An empty list or an empty entry is an error, not a default.
 */
export function parseModes(list: string): ModeToken[] {
  const entries = list.split(",").map((s) => s.trim());
  if (entries.some((s) => s === "")) {
    throw new InvalidNameError(
      "mode list",
      list,
      `a comma list with no empty entry, each ${MODE_ALLOWED}`,
    );
  }
  const wanted = new Set(entries.map(modeToken));
  return MODES.filter((m) => wanted.has(m));
}

// ── tags, seeds, namespaces ──────────────────────────────────────────────────────────────────

const TAG_CHARS = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
// A tag reading as a seed segment (`s3`, `s12-x`) would make `…-agg1-s3` ambiguous. Refused
// case-insensitively (the original only refused lower-case `s`), so `S3` cannot confuse a reader.
const SEED_LIKE = /^s\d+(?:-|$)/i;
const TAG_MAX = 64;

/** Throws InvalidNameError unless `tag` is empty or a safe, seed-unlike path-segment fragment. */
export function validateTag(tag: string): string {
  if (tag === "") return tag;
  if (tag.length > TAG_MAX || !TAG_CHARS.test(tag)) {
    throw new InvalidNameError(
      "tag",
      tag,
      `at most ${TAG_MAX} characters from [A-Za-z0-9_.-], not starting with '-'`,
    );
  }
  if (SEED_LIKE.test(tag)) {
    throw new InvalidNameError(
      "tag",
      tag,
      "a tag must not start like a seed segment (s<digits>); pass the seed with --seed instead",
    );
  }
  return tag;
}

const BENCH_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SUBSTRATE_RE = /^[a-z0-9]+$/;

const Tag = z.string().superRefine((tag, ctx) => {
  try {
    validateTag(tag);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

/** One mode's namespace: the directory and run-id prefix of everything a (bench, substrate, mode, k, seed, tag) cell writes. */
export const Namespace = z
  .object({
    // Benchmark names may hold `-` (`wb-office`); the substrate may not, so a namespace string
    // parses back unambiguously (fix docs/differences.md R13: neither name was checked).
    benchmark: z.string().regex(BENCH_RE, {
      error: (iss) =>
        `benchmark ${JSON.stringify(iss.input)} must be lowercase letters and digits in '-'-separated words (e.g. jb, wb-office)`,
    }),
    substrate: z.string().regex(SUBSTRATE_RE, {
      error: (iss) =>
        `substrate ${JSON.stringify(iss.input)} must be non-empty lowercase letters and digits without '-' (e.g. oc, cx)`,
    }),
    mode: z.enum(ModeToken.options, {
      error: (iss) =>
        `mode ${JSON.stringify(iss.input)} is not a mode token: agg or seq (the method has exactly two modes)`,
    }),
    k: z
      .number()
      .int()
      .min(1, { error: (iss) => `k must be an integer ≥ 1, got ${String(iss.input)}` }),
    // A negative seed would render as `-s-3`; seeds are non-negative integers.
    seed: z
      .number()
      .int()
      .min(0, { error: (iss) => `seed must be an integer ≥ 0, got ${String(iss.input)}` })
      .nullable()
      .default(null),
    tag: Tag.default(""),
  })
  .readonly();
export type Namespace = z.infer<typeof Namespace>;
export type NamespaceInput = z.input<typeof Namespace>;

/** The namespace string, e.g. `jb-oc-agg2-s7-pilot`. */
export function ns(value: NamespaceInput): string {
  const v = Namespace.parse(value);
  const seed = v.seed === null ? "" : `-s${v.seed}`;
  const tag = v.tag === "" ? "" : `-${v.tag}`;
  return `${v.benchmark}-${v.substrate}-${v.mode}${v.k}${seed}${tag}`;
}

const NS_RE =
  /^(?<benchmark>[a-z0-9]+(?:-[a-z0-9]+)*?)-(?<substrate>[a-z0-9]+)-(?<mode>agg|seq)(?<k>[1-9]\d*)(?:-s(?<seed>\d+))?(?:-(?<tag>.+))?$/;

/** Parses a namespace string back into its value, or returns null when it is not one. */
export function parseNamespace(name: string): Namespace | null {
  const g = NS_RE.exec(name)?.groups;
  if (g === undefined) return null;
  const parsed = Namespace.safeParse({
    benchmark: g.benchmark,
    substrate: g.substrate,
    mode: g.mode,
    k: Number(g.k),
    seed: g.seed === undefined ? null : Number(g.seed),
    tag: g.tag ?? "",
  });
  return parsed.success && ns(parsed.data) === name ? parsed.data : null;
}

/**
 * A predicate matching exactly the namespaces of one (benchmark, substrate, k) cell, optionally
 * one mode, with any seed and tag. Replaces the original's loose globs (docs/differences.md R13),
 * where `…-agg1*` also matched k = 11 and `-*` matched other k values.
 */
export function namespaceMatcher(cell: {
  benchmark: string;
  substrate: string;
  k: number;
  mode?: ModeToken;
}): (name: string) => boolean {
  return (name) => {
    const v = parseNamespace(name);
    return (
      v !== null &&
      v.benchmark === cell.benchmark &&
      v.substrate === cell.substrate &&
      v.k === cell.k &&
      (cell.mode === undefined || v.mode === cell.mode)
    );
  };
}

/** The same cell in another mode (e.g. the agg namespace that holds a task's summary). */
export function withMode(value: NamespaceInput, mode: ModeToken): Namespace {
  return Namespace.parse({ ...value, mode });
}

// ── run ids ──────────────────────────────────────────────────────────────────────────────────

/** Rollout labels: `base<i>`, `inv<i>`, `dom<i>`, `agg<i>`, `c<t>` (i, t ≥ 1). */
export const ROLLOUT_LABEL_RE = /^(?:base|inv|dom|agg|c)[1-9]\d*$/;

/** Throws InvalidNameError unless `taskId` can sit inside a run id and be slugged. */
export function validateTaskId(taskId: string): string {
  if (taskId === "" || taskId.trim() !== taskId || /[\u0000-\u001f\u007f]/.test(taskId)) {
    throw new InvalidNameError(
      "task id",
      taskId,
      "a non-empty id without surrounding whitespace or control characters",
    );
  }
  return taskId;
}

/** `<ns>/<task_id>/<label>`; the task id may itself contain `/`. */
export function runId(value: NamespaceInput, taskId: string, label: string): string {
  if (!ROLLOUT_LABEL_RE.test(label)) {
    throw new InvalidNameError(
      "label",
      label,
      "one of base<i>, inv<i>, dom<i>, agg<i>, c<t> with i, t ≥ 1",
    );
  }
  return `${ns(value)}/${validateTaskId(taskId)}/${label}`;
}

/** Splits a run id into namespace, task id and label, or returns null when it is not one. */
export function parseRunId(
  id: string,
): { namespace: Namespace; taskId: string; label: string } | null {
  const first = id.indexOf("/");
  const last = id.lastIndexOf("/");
  if (first < 0 || last <= first + 1) return null;
  const namespace = parseNamespace(id.slice(0, first));
  const taskId = id.slice(first + 1, last);
  const label = id.slice(last + 1);
  if (namespace === null || !ROLLOUT_LABEL_RE.test(label)) return null;
  try {
    validateTaskId(taskId);
  } catch {
    return null;
  }
  return { namespace, taskId, label };
}

// ── task-dir slugs ───────────────────────────────────────────────────────────────────────────

// A segment kept as is: lower-case letters, digits, `.`, `_`, `-`; it neither starts nor ends with
// `_`, holds no `__` and does not start with `.`. Joined by `__`, such segments decode uniquely.
const PLAIN_SEGMENT = /^[a-z0-9-](?:[a-z0-9._-]*[a-z0-9.-])?$/;
const SLUG_MAX = 120;

function isPlain(id: string): boolean {
  return (
    id.length <= SLUG_MAX &&
    id.split("/").every((seg) => PLAIN_SEGMENT.test(seg) && !seg.includes("__"))
  );
}

/**
 * The directory name of a task (or domain) id. A plain id keeps its readable form with every `/`
 * as `__` (`jb/acct-01` → `jb__acct-01`). Any other id — upper case (case-insensitive file
 * systems), `_`/`.` at segment edges, `__`, other characters, or over 120 characters — becomes a
 * sanitised prefix plus `~` and 16 hex of its SHA-256, so two different ids never share a
 * directory. Fix docs/differences.md R27: the original replaced only `/`, so `a/b` and `a__b`
 * collided.
 */
export function taskSlug(id: string): string {
  validateTaskId(id);
  if (isPlain(id)) return id.replaceAll("/", "__");
  const readable = id
    .replaceAll("/", "__")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, 80);
  const digest = createHash("sha256").update(id).digest("hex").slice(0, 16);
  return `${readable}~${digest}`;
}

/** `<root>/<ns>/<task slug>`: where a mode keeps one task's harnesses, context and selection. */
export function taskDir(root: string, value: NamespaceInput, taskId: string): string {
  return join(root, ns(value), taskSlug(taskId));
}
