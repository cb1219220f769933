// The per-domain library (docs/method.md §8): adopted harness trees of earlier tasks, each with the
// evidence-backed lesson that justified storing it, served to later tasks of the same domain.
// It must never store an entry without a lesson, a grader verdict, a score, or a later task's
// entry.

import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { LibraryAdded, type ModeToken } from "../events/registry.ts";
import type { Clock, EventSink } from "../events/sink.ts";
import { emit } from "../events/sink.ts";
import type { SurfaceSpec, Tree } from "../harness/surface.ts";
import { readTree, writeTree } from "../harness/tree.ts";
import {
  compareCodePoints,
  dirExists,
  isRegularFile,
  lstatOrNull,
  walkFiles,
} from "../lib/safe-fs.ts";
import { taskSlug } from "../run/naming.ts";
import { assertTreeHasNoLeakPaths } from "../safety/leak-globs.ts";
import type { TripwireContext } from "../safety/tripwire.ts";
import { assertTreeHasNoGraderVerdicts } from "../safety/tripwires.ts";
import { domainDir, Experience, inventory, LibraryView, whyWithLegend } from "./values.ts";

const EntryMeta = z.object({ taskId: z.string().min(1), seq: z.number().int().nonnegative() });
type EntryMeta = z.infer<typeof EntryMeta>;
const META_FILE = "entry.json";
const EXPERIENCE_FILE = "EXPERIENCE.md";

/**
 * One `- **<key>**: …` bullet of an EXPERIENCE.md, its continuation lines (indented two spaces,
 * as the entry writes a multi-line value) joined with spaces; null when the bullet is absent.
 */
export function experienceField(text: string, key: string): string | null {
  const prefix = `- **${key}**:`;
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(prefix));
  if (at < 0) return null;
  const parts = [(lines[at] as string).slice(prefix.length).trim()];
  for (let i = at + 1; i < lines.length && (lines[i] as string).startsWith("  "); i++) {
    parts.push((lines[i] as string).trim());
  }
  return parts.join(" ");
}

export type LibraryOptions = {
  /** `<library root>/<mode>`; the domain directory is made under it. */
  root: string;
  domain: string;
  surface: SurfaceSpec;
  mode: ModeToken;
  k: number;
  sweep: string;
  sink: EventSink;
  clock: Clock;
  /** Answer-key globs: a tree holding such a path is refused (default: none). */
  leakGlobs?: readonly string[];
};

export type AddOptions = {
  /** Why this harness was picked (the selector's reasoning). */
  why?: string;
  /** The selection's anonymous id → label map, so the stored `why` can be decoded. */
  idMap?: Readonly<Record<string, string>>;
  label?: string;
  runId?: string;
  experience: unknown;
  /** Putting back a resumed task's entry from its earlier run (said so in `library.added`). */
  restored?: boolean;
};

/** One (run root, mode, domain) library on disk. */
export class Library {
  readonly dir: string;
  readonly index: string;
  private readonly harnessesDir: string;

  constructor(private readonly opts: LibraryOptions) {
    this.dir = join(opts.root, domainDir(opts.domain));
    this.index = join(this.dir, "INDEX.md");
    this.harnessesDir = join(this.dir, "harnesses");
  }

  get domain(): string {
    return this.opts.domain;
  }

  entryDir(taskId: string): string {
    return join(this.harnessesDir, taskSlug(taskId));
  }

  exists(): boolean {
    return isRegularFile(this.index);
  }

  /** Entry directory names (task slugs) in stream order; staging directories are not entries. */
  entries(): string[] {
    if (!dirExists(this.harnessesDir)) return [];
    const names = readdirSync(this.harnessesDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name);
    const seq = new Map(names.map((n) => [n, this.meta(n)?.seq ?? Number.POSITIVE_INFINITY]));
    return names.sort(
      (a, b) => (seq.get(a) as number) - (seq.get(b) as number) || compareCodePoints(a, b),
    );
  }

  /** Raw task ids of the stored entries, in stream order (entries without bookkeeping are left out). */
  taskIds(): string[] {
    return this.entries()
      .map((n) => this.meta(n)?.taskId)
      .filter((t): t is string => t !== undefined);
  }

  /** The stored tree of one task's entry (on-surface files only); {} when there is none. */
  treeOf(taskId: string): Tree {
    return readTree(this.opts.surface, join(this.entryDir(taskId), "harness"));
  }

  /**
   * The directory later tasks are shown, or null when the library holds no lesson yet. Fix of
   * docs/differences.md S8: entries whose INDEX.md went missing are no longer hidden; the index is
   * rebuilt.
   */
  contextDir(): string | null {
    const withLesson = this.entries().some((n) =>
      isRegularFile(join(this.harnessesDir, n, EXPERIENCE_FILE)),
    );
    if (!withLesson) return null;
    if (!this.exists()) this.rebuildIndex();
    return this.dir;
  }

  /**
   * What a later task is shown; null when the library holds no lesson yet (as contextDir). Fix
   * of docs/differences.md S8 (entry count and size unbounded): with `maxEntries` N > 0, only the N
   * most recent entries in stream order are served; with `maxBytes` B > 0, only the most recent
   * entries whose files add up to at most B bytes (the newest entry is always served, never cut).
   * A capped view comes with an INDEX.md listing just its entries and saying how many older ones
   * are left out. 0 for both, or caps the whole library fits in, serve the whole folder. Nothing
   * is deleted: the library on disk and its own INDEX.md stay complete.
   */
  servedView(maxEntries: number, maxBytes = 0): LibraryView | null {
    if (!Number.isInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError(`maxEntries must be an integer ≥ 0 (0 = no cap), got ${maxEntries}`);
    }
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxBytes must be an integer ≥ 0 (0 = no cap), got ${maxBytes}`);
    }
    const dir = this.contextDir();
    if (dir === null) return null;
    const names = this.entries();
    // Entries without bookkeeping sort last in entries(), so they count as the most recent.
    let count = maxEntries === 0 ? names.length : Math.min(maxEntries, names.length);
    if (maxBytes > 0) {
      let bytes = 0;
      let fit = 0;
      for (const name of names.slice(-count).reverse()) {
        bytes += this.entryBytes(name);
        if (fit > 0 && bytes > maxBytes) break;
        fit++;
      }
      count = fit;
    }
    if (count >= names.length) {
      return LibraryView.parse({ dir, entries: null, index: null, omitted: 0 });
    }
    const served = names.slice(-count);
    const omitted = names.length - served.length;
    return LibraryView.parse({
      dir,
      entries: served,
      index: this.indexText(served, omitted),
      omitted,
    });
  }

  /** Deletes the entries of `taskIds` (unknown ids are ignored); returns the slugs removed. */
  forget(taskIds: Iterable<string>): string[] {
    const removed: string[] = [];
    for (const id of taskIds) {
      const slug = taskSlug(id);
      const dir = join(this.harnessesDir, slug);
      if (!dirExists(dir)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(slug);
    }
    if (removed.length > 0) this.rebuildIndex();
    return removed;
  }

  /**
   * Keeps only the entries of `taskIdsBefore` (the tasks earlier in the domain's stream), so a
   * task never sees its own or a later task's lesson, even one left by an interrupted sweep.
   */
  retain(taskIdsBefore: Iterable<string>): string[] {
    const keep = new Set([...taskIdsBefore].map(taskSlug));
    const doomed = this.entries().filter((n) => !keep.has(n));
    const removed: string[] = [];
    for (const slug of doomed) {
      rmSync(join(this.harnessesDir, slug), { recursive: true, force: true });
      removed.push(slug);
    }
    if (removed.length > 0) this.rebuildIndex();
    return removed;
  }

  /**
   * Stores `tree` as `taskId`'s entry with its lesson, replacing an earlier entry of that task.
   * Returns the entry directory, or null (nothing written) when the experience lacks a non-blank
   * cue, lesson or evidence: entries without a lesson are never stored. A tree or EXPERIENCE.md
   * carrying a grader verdict (or an answer-key path) throws TripwireError before anything is
   * written, and `tripwire.fired` is emitted. The entry is staged and renamed into place, so a
   * crash never leaves half an entry.
   */
  add(taskId: string, tree: Tree, options: AddOptions): string | null {
    const parsed = Experience.safeParse(options.experience);
    if (!parsed.success) return null;
    const experience = parsed.data;
    const text = this.experienceText(taskId, tree, options, experience);

    const ctx: TripwireContext = {
      sink: this.opts.sink,
      clock: this.opts.clock,
      sweep: this.opts.sweep,
      task: taskId,
      domain: this.opts.domain,
      mode: this.opts.mode,
      k: this.opts.k,
      stage: "library",
    };
    assertTreeHasNoLeakPaths(tree, this.opts.leakGlobs ?? [], ctx);
    assertTreeHasNoGraderVerdicts(tree, ctx);
    assertTreeHasNoGraderVerdicts({ [EXPERIENCE_FILE]: text }, ctx);

    const slug = taskSlug(taskId);
    const final = join(this.harnessesDir, slug);
    const meta: EntryMeta = { taskId, seq: this.meta(slug)?.seq ?? this.nextSeq() };
    const staging = join(this.harnessesDir, `.staging-${slug}-${process.pid}-${Date.now()}`);
    rmSync(staging, { recursive: true, force: true });
    try {
      writeTree(this.opts.surface, tree, join(staging, "harness"), { stubs: false });
      writeFileSync(join(staging, EXPERIENCE_FILE), text);
      writeFileSync(join(staging, META_FILE), `${JSON.stringify(meta, null, 2)}\n`);
      rmSync(final, { recursive: true, force: true });
      renameSync(staging, final);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    this.rebuildIndex();

    emit(this.opts.sink, LibraryAdded, {
      ts: this.opts.clock.now(),
      sweep: this.opts.sweep,
      domain: this.opts.domain,
      task: taskId,
      mode: this.opts.mode,
      k: this.opts.k,
      entry: slug,
      cue: experience.cue,
      lesson: experience.lesson,
      confidence: experience.confidence,
      path: final,
      ...(options.restored === true ? { restored: true } : {}),
    });
    return final;
  }

  /** Regenerates INDEX.md from what is on disk (docs/method.md §8, entries in stream order). */
  rebuildIndex(): string {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.index, this.indexText(this.entries(), 0));
    return this.index;
  }

  /** INDEX.md listing `names` (in the order given), noting `omitted` older entries not listed. */
  private indexText(names: readonly string[], omitted: number): string {
    const lines = [
      `# Library — ${this.opts.domain}`,
      "",
      "Each entry below is an earlier task in this domain whose harness was adopted. It is stored " +
        "with its full component tree, why it was picked, what each edit did, and the lesson " +
        "drawn from it. Browse this index first, then open the entries that look relevant.",
      "",
    ];
    if (omitted > 0) {
      const what = omitted === 1 ? "older entry is" : "older entries are";
      lines.push(`_${omitted} ${what} not shown._`, "");
    }
    if (names.length === 0) {
      lines.push("_The library is empty: this is the first task in the domain._");
      return lines.join("\n");
    }
    for (const name of names) {
      const tree = readTree(this.opts.surface, join(this.harnessesDir, name, "harness"));
      lines.push(
        `## \`harnesses/${name}/\``,
        `- harness: \`harnesses/${name}/harness/\` — ${inventory(this.opts.surface, tree)}`,
        `- why: \`harnesses/${name}/${EXPERIENCE_FILE}\``,
      );
      const cue = this.cueOf(name);
      if (cue !== null) lines.push(`- cue: ${cue}`);
      lines.push("");
    }
    return `${lines.join("\n")}\n`;
  }

  /** EXPERIENCE.md (docs/method.md §8), with the why's anonymous ids decoded. */
  private experienceText(
    taskId: string,
    tree: Tree,
    options: AddOptions,
    experience: Experience,
  ): string {
    const label = options.label ?? "";
    const run = options.runId ? `  (run \`${options.runId}\`)` : "";
    const lines = [
      `# ${taskId}`,
      "",
      `- adopted: \`${label}\`${run}`,
      `- components: ${inventory(this.opts.surface, tree)}`,
      "",
    ];
    const why = whyWithLegend(options.why ?? "", options.idMap ?? {});
    if (why !== "") lines.push("## Why this was chosen", why, "");
    if (experience.edits.trim() !== "") {
      lines.push("## What each edit did", experience.edits.trim(), "");
    }
    lines.push("## Transferable lesson");
    for (const key of ["cue", "lesson", "evidence", "confidence"] as const) {
      const value = experience[key].trim();
      // Continuation lines are indented so a multi-line value stays inside its bullet.
      if (value !== "") lines.push(`- **${key}**: ${value.split(/\r?\n/).join("\n  ")}`);
    }
    lines.push("");
    return lines.join("\n");
  }

  /** The cue bullet of an entry's EXPERIENCE.md (with its continuation lines), or null. */
  private cueOf(name: string): string | null {
    let text: string;
    try {
      text = readFileSync(join(this.harnessesDir, name, EXPERIENCE_FILE), "utf8");
    } catch {
      return null;
    }
    return experienceField(text, "cue");
  }

  /** The bytes of an entry's regular files (its harness, EXPERIENCE.md and bookkeeping). */
  private entryBytes(name: string): number {
    const root = join(this.harnessesDir, name);
    return walkFiles(root).reduce(
      (sum, rel) => sum + Number(lstatOrNull(join(root, rel))?.size ?? 0),
      0,
    );
  }

  private meta(name: string): EntryMeta | null {
    try {
      const raw: unknown = JSON.parse(
        readFileSync(join(this.harnessesDir, name, META_FILE), "utf8"),
      );
      const parsed = EntryMeta.safeParse(raw);
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  private nextSeq(): number {
    let max = -1;
    for (const name of this.entries()) max = Math.max(max, this.meta(name)?.seq ?? -1);
    return max + 1;
  }
}
