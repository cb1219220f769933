// Tripwires on the read boundary: answer-key paths (leak globs), grader verdicts (by name and by
// content), verdict strings in authored trees, and symlinks inside model context. Each trip throws
// a TripwireError AND emits `tripwire.fired`. Never widen a marker list or a glob to make one pass.

import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { Tree } from "../harness/surface.ts";
import { sortPaths, walkFiles } from "../lib/safe-fs.ts";
import { assertNoLeakPaths } from "./leak-globs.ts";
import { dotted, GRADER_VERDICT_MARKERS, maskMarker, unquoted } from "./markers.ts";
import { fireTripwire, type TripwireContext } from "./tripwire.ts";

/**
 * Lower-cased suffixes known to be text ("" = no suffix, which includes dotfiles such as `.env`):
 * scanned without a look first. Every other file is scanned too when its first bytes read as text
 * (no NUL, valid UTF-8), whatever its name — `.jsonl`, `.ipynb`, `.sql`, `.tex` … (docs/
 * differences.md E17); a binary file (an image, a zip) is not.
 */
export const MARKER_SCAN_SUFFIXES: ReadonlySet<string> = new Set([
  "",
  ".md",
  ".txt",
  ".json",
  ".csv",
  ".tsv",
  ".yaml",
  ".yml",
  ".html",
  ".htm",
  ".log",
  ".py",
  ".js",
  ".ts",
  ".tsx",
  ".jsx",
  ".css",
  ".sh",
  ".xml",
  ".ini",
  ".toml",
  ".patch",
  ".diff",
]);

// ── symlinks ─────────────────────────────────────────────────────────────────────────────────

/** Refuses any symlink under `root`: model context must hold only regular files. */
export function assertNoSymlinks(root: string, ctx: TripwireContext): string[] {
  const links: string[] = [];
  const files = walkFiles(root, { onSymlink: (rel) => links.push(rel) });
  const first = links[0];
  if (first !== undefined) {
    throw fireTripwire(
      ctx,
      { kind: "symlink", path: first, marker: "" },
      `symlink(s) would enter model context from ${root}: ${links.slice(0, 8).join(", ")}. ` +
        "A link can lead a session outside its evidence; find what created it.",
    );
  }
  return files;
}

// ── grader verdicts ──────────────────────────────────────────────────────────────────────────

/** Python's `Path(rel).suffix.lower()`: a leading-dot name such as `.env` has no suffix. */
export function scanSuffix(rel: string): string {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || dot === name.length - 1) return "";
  return name.slice(dot).toLowerCase();
}

const CHUNK = 1 << 22;
const BEFORE = 60;
const AFTER = 120;
const decoder = new TextDecoder("utf-8");

type ContentHit = { marker: string; offset: number; context: string };

/** How much of a file of unknown kind is read to tell text from binary. */
const SNIFF_BYTES = 8192;

/**
 * The first marker in a file, streamed in chunks that overlap by the longest marker. With `sniff`
 * (a file of unknown kind), null at once when its first bytes do not read as text.
 */
function scanFile(
  path: string,
  needles: readonly Buffer[],
  buf: Buffer,
  sniff: boolean,
): ContentHit | null {
  const overlap = Math.max(0, ...needles.map((m) => m.length - 1));
  const fd = openSync(path, "r");
  try {
    if (sniff) {
      const got = readSync(fd, buf, 0, Math.min(SNIFF_BYTES, buf.length), 0);
      if (!bytesLookLikeText(buf.subarray(0, got))) return null;
    }
    let carry = 0;
    let base = 0; // file offset of buf[0]
    for (;;) {
      const got = readSync(fd, buf, carry, buf.length - carry, base + carry);
      if (got <= 0) return null;
      const view = buf.subarray(0, carry + got);
      let best = -1;
      let which = -1;
      for (let k = 0; k < needles.length; k++) {
        const at = view.indexOf(needles[k] as Buffer);
        if (at >= 0 && (best < 0 || at < best)) {
          best = at;
          which = k;
        }
      }
      if (best >= 0) {
        const offset = base + best;
        const marker = (needles[which] as Buffer).toString("utf8");
        return { marker, offset, context: contextAt(fd, offset) };
      }
      const keep = Math.min(view.length, overlap);
      buf.copy(buf, 0, view.length - keep, view.length);
      base += view.length - keep;
      carry = keep;
    }
  } finally {
    closeSync(fd);
  }
}

/** 60 characters before a byte offset and 120 from it, JSON-quoted like a Python repr. */
function contextAt(fd: number, offset: number): string {
  const from = Math.max(0, offset - BEFORE * 4);
  const win = Buffer.alloc(offset - from + AFTER * 4);
  const got = readSync(fd, win, 0, win.length, from);
  const before = decoder.decode(win.subarray(0, offset - from)).slice(-BEFORE);
  const after = decoder.decode(win.subarray(offset - from, got)).slice(0, AFTER);
  return JSON.stringify(before + after);
}

function textContext(text: string, at: number): string {
  return JSON.stringify(text.slice(Math.max(0, at - BEFORE), at + AFTER));
}

/** `text` with every occurrence of `marker` dotted as maskMarker does (a path named after one). */
function maskIn(text: string, marker: string): string {
  const bare = unquoted(marker);
  return text.replaceAll(bare, dotted(bare));
}

/**
 * Evidence paths that hold what the solver itself produced or printed (docs/method.md §3): a
 * reserved string there came from the agent's work or the task's own inputs, not from a grader.
 */
const SOLVER_OUTPUT =
  /^(context\/)?(deliverables\/|rollouts\/|pool\/[^/]+\/(produced|rollout)\.md$)/;

function verdictMessage(where: string, rel: string, marker: string, hit?: ContentHit): string {
  if (hit && SOLVER_OUTPUT.test(rel)) {
    return (
      `the solver's own output ${maskIn(rel, marker)} in ${maskIn(where, marker)} holds the reserved string ${maskMarker(marker)} at byte ${hit.offset}: ` +
      "only a grader's output may carry it, so this evidence is shown to no model. If the task " +
      "legitimately produces it, rename it in the task (the reserved strings: " +
      'fixtures/tasks/README.md, "Reserved strings").'
    );
  }
  const lead = `a grader verdict would enter model context from ${maskIn(where, marker)}: ${maskIn(rel, marker)}`;
  const tail =
    "This is a leak, not a false positive to widen around; find the read path that produced it.";
  if (!hit) return `${lead} has the verdict marker ${maskMarker(marker)} in its NAME. ${tail}`;
  return `${lead} holds the verdict marker ${maskMarker(marker)} at byte ${hit.offset}. ${tail}`;
}

/**
 * Refuses any file under `root` whose relative path contains a marker, or whose content does
 * when its suffix is one of MARKER_SCAN_SUFFIXES (binary files are checked by name only).
 * Files are read synchronously in 4 MiB chunks: the scan is disk-bound and the sync path is
 * about twice as fast as the async one here, with flat memory.
 */
export function assertNoGraderVerdicts(
  root: string,
  ctx: TripwireContext,
  markers: readonly string[] = GRADER_VERDICT_MARKERS,
  files: readonly string[] = walkFiles(root),
): void {
  if (markers.length === 0) return;
  const needles = markers.map((m) => Buffer.from(m, "utf8"));
  let buf: Buffer | null = null;
  for (const rel of files) {
    const named = markers.find((m) => rel.includes(m));
    if (named !== undefined) {
      throw fireTripwire(
        ctx,
        { kind: "grader_verdict", path: rel, marker: named },
        verdictMessage(root, rel, named),
      );
    }
    buf ??= Buffer.allocUnsafe(CHUNK);
    let hit: ContentHit | null;
    try {
      hit = scanFile(join(root, rel), needles, buf, !MARKER_SCAN_SUFFIXES.has(scanSuffix(rel)));
    } catch (err) {
      // An unreadable file cannot carry a marker into a session that cannot read it either.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "EACCES") continue;
      throw err;
    }
    if (hit) {
      throw fireTripwire(
        ctx,
        { kind: "grader_verdict", path: rel, ...hit },
        verdictMessage(root, rel, hit.marker, hit),
      );
    }
  }
}

/**
 * The same checks on an agent-authored tree before it is rolled or stored: a tree carrying a
 * marker could never afterwards be served as evidence. Messages are retry feedback addressed to
 * the author, so they say "reserved string" rather than naming what the string belongs to
 * (docs/differences.md X10).
 */
export function assertTreeHasNoGraderVerdicts(
  tree: Tree,
  ctx: TripwireContext,
  markers: readonly string[] = GRADER_VERDICT_MARKERS,
): void {
  if (markers.length === 0) return;
  for (const rel of sortPaths(Object.keys(tree))) {
    const named = markers.find((m) => rel.includes(m));
    if (named !== undefined) {
      throw fireTripwire(
        ctx,
        { kind: "authored_tree", path: rel, marker: named },
        `harness file ${maskIn(rel, named)} carries the reserved string ${maskMarker(named)} ` +
          "(without the dot) in its NAME; rename it: files carrying reserved strings cannot be " +
          "served as evidence to later tasks.",
      );
    }
    const body = tree[rel] as string | Uint8Array;
    let text: string;
    if (typeof body === "string") text = body;
    else if (MARKER_SCAN_SUFFIXES.has(scanSuffix(rel)) || bytesLookLikeText(body)) {
      text = decoder.decode(body);
    } else continue;
    const hit = firstMarker(text, markers);
    if (hit !== null) {
      const context = textContext(text, hit.at);
      throw fireTripwire(
        ctx,
        { kind: "authored_tree", path: rel, marker: hit.marker, offset: hit.at, context },
        `harness file ${rel} holds the reserved string ${maskMarker(hit.marker)} (without the dot) ` +
          `at character ${hit.at}; remove or rename that string: files carrying reserved strings ` +
          "cannot be served as evidence to later tasks.",
      );
    }
  }
}

/** The earliest marker in `text` and where it starts, or null. */
function firstMarker(
  text: string,
  markers: readonly string[],
): { marker: string; at: number } | null {
  let best: { marker: string; at: number } | null = null;
  for (const marker of markers) {
    const at = text.indexOf(marker);
    if (at >= 0 && (best === null || at < best.at)) best = { marker, at };
  }
  return best;
}

function bytesLookLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a mission (stage, selection, reflection) about to be sent that carries a verdict marker:
 * every text a model is given goes through a scan, so a marker in a benchmark's own prompt text
 * (prompts.toml's work or guidance, a lens) never reaches a session.
 */
export function assertMissionClean(
  text: string,
  ctx: TripwireContext,
  markers: readonly string[] = GRADER_VERDICT_MARKERS,
): void {
  const hit = firstMarker(text, markers);
  if (hit === null) return;
  throw fireTripwire(
    ctx,
    { kind: "grader_verdict", path: "MISSION.md", marker: hit.marker, offset: hit.at },
    `the ${ctx.stage} mission holds the verdict marker ${maskMarker(hit.marker)} at character ` +
      `${hit.at}; it came from the benchmark's prompt text (prompts.toml work, guidance or lens): ` +
      "remove it there. A mission never carries a grader's words.",
  );
}

/**
 * Every whole-tree check on a folder about to be handed to a model, over ONE walk: no symlink,
 * no leak-glob path, no verdict by name or content. Returns the files it saw.
 */
export function assertContextClean(
  root: string,
  globs: readonly string[],
  ctx: TripwireContext,
): string[] {
  const files = assertNoSymlinks(root, ctx);
  assertNoLeakPaths(root, globs, ctx, files);
  assertNoGraderVerdicts(root, ctx, GRADER_VERDICT_MARKERS, files);
  return files;
}
