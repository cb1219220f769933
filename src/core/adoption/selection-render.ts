// What the blind selector is shown (docs/method.md §7): which finals enter the pool
// (drop rules), one anonymised file per candidate plus the assets the adapter names, and the
// evidence listing of the mission. It must never write a label, a run-directory path, or any file
// of a run directory the adapter did not name (the grader's own output lives there).

import { copyFileSync, lstatSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileSafeName, NameAllocator, type RunReadingMembers } from "../evidence/rollout.ts";
import { codePointLength } from "../harness/surface.ts";
import { describeError } from "../lib/errors.ts";
import { writeFileSafe } from "../lib/safe-fs.ts";
import { thousands } from "../proposer/prompts/text.ts";
import { compareAnonIds } from "../safety/anon-ids.ts";
import type { BenchmarkAdapter, RunView } from "../seams/benchmark.ts";

/** The adapter members selection reads through. */
export type SelectionAdapter = Pick<
  BenchmarkAdapter,
  | RunReadingMembers
  | "deliverableAssets"
  | "deliverableAssetsNote"
  | "deliverableAssetsLine"
  | "deliverableAssetsReferenceOnly"
>;

/** A candidate removed before anonymisation, and why. */
export type Dropped = { label: string; cause: string };

export type RenderedPool = {
  /** Surviving candidates, in the order they were offered. */
  pool: RunView[];
  /** label → the artifact text the selector reads, untrimmed. */
  artifacts: Map<string, string>;
  dropped: Dropped[];
  /** "trajectory" when the candidates are shown as their session transcripts. */
  evidence: "deliverable" | "trajectory";
};

const CAUSE_MAX = 200;
/** How an adapter's trajectory says there is none. */
const NO_TRAJECTORY = "(no trajectory";
const TRANSCRIPT_LEAD =
  "(This task produced no file deliverable, so this candidate is shown as its session transcript.)";

function cause(kind: string, err: unknown): string {
  return `${kind}: ${describeError(err)}`.slice(0, CAUSE_MAX);
}

/** `agg2 (did not deliver)` — how a dropped candidate is recorded. */
export function droppedText(d: Dropped): string {
  return d.cause === "" ? d.label : `${d.label} (${d.cause})`;
}

/**
 * Applies the drop rules: a candidate enters the pool only when it ran, delivered and renders to
 * non-blank text. When none does and the benchmark's deliverable is workspace state, candidates
 * that ran are shown as transcripts instead. Only deliverableText/trajectory failures are caught
 * (they are outcomes of a candidate); anything else the adapter throws propagates.
 */
export async function renderPool(
  candidates: readonly RunView[],
  adapter: SelectionAdapter,
): Promise<RenderedPool> {
  const pool: RunView[] = [];
  const artifacts = new Map<string, string>();
  const dropped: Dropped[] = [];
  for (const c of candidates) {
    if (!c.ok || !c.delivered) {
      dropped.push({ label: c.label, cause: c.ok ? "did not deliver" : "did not run" });
      continue;
    }
    let text: string;
    try {
      text = String((await adapter.deliverableText(c.runDir)) ?? "");
    } catch (err) {
      dropped.push({ label: c.label, cause: cause("render failed", err) });
      continue;
    }
    if (text.trim() === "") {
      dropped.push({ label: c.label, cause: "empty artifact" });
      continue;
    }
    pool.push(c);
    artifacts.set(c.label, text);
  }
  if (pool.length > 0 || candidates.length === 0 || !adapter.spec.stateDeliverable) {
    return { pool, artifacts, dropped, evidence: "deliverable" };
  }

  for (const c of candidates) {
    if (!c.ok) continue;
    let transcript: string;
    try {
      transcript = String(await adapter.trajectory(c.runDir, { obsTrunc: adapter.spec.obsTrunc }));
    } catch (err) {
      dropped.push({ label: c.label, cause: cause("trajectory failed", err) });
      continue;
    }
    if (transcript.trim() === "" || transcript.startsWith(NO_TRAJECTORY)) continue;
    pool.push(c);
    artifacts.set(c.label, `${TRANSCRIPT_LEAD}\n\n${transcript}`);
  }
  if (pool.length === 0) return { pool, artifacts, dropped, evidence: "deliverable" };
  // Fix docs/differences.md S4: a label now in the pool leaves `dropped` entirely, annotated or
  // not.
  const shown = new Set(pool.map((c) => c.label));
  return {
    pool,
    artifacts,
    dropped: dropped.filter((d) => !shown.has(d.label)),
    evidence: "trajectory",
  };
}

/** Asset files one candidate brings, as the adapter names them (regular files only). */
async function assetPaths(adapter: SelectionAdapter, runDir: string): Promise<string[]> {
  if (!adapter.deliverableAssets) return [];
  const paths = (await adapter.deliverableAssets(runDir)).map(String);
  return paths.filter((p) => {
    try {
      return lstatSync(p).isFile(); // a symlink is never followed out of the run
    } catch {
      return false;
    }
  });
}

function defaultAssetsNote(id: string, names: readonly string[], referenceOnly: boolean): string {
  const dir = `context/candidates/${id}/`;
  const list = names.join(", ");
  // Fix docs/differences.md S16: raw originals are not called rendered evidence of a run.
  return referenceOnly
    ? `Its raw original files are in ${dir} (${list}): open them for detail the text above flattens.`
    : `${dir} holds rendered evidence of what this artifact does when run (${list}): open it.`;
}

/** The candidate file: a header comment saying it is complete, then the artifact verbatim. */
export function candidateFile(id: string, text: string, assetsNote: string): string {
  const lines = (text.match(/\n/g)?.length ?? 0) + 1;
  const header = [
    `<!-- candidate ${id}: ${thousands(codePointLength(text))} characters, ${thousands(lines)} lines.`,
    "This is the COMPLETE artifact: nothing was trimmed. Navigate it with grep or by offset, and",
    "open the part that decides whether it works.",
  ];
  if (assetsNote !== "") header.push(assetsNote);
  return `${header.join("\n")}\n-->\n${text}`;
}

export type WrittenCandidates = {
  /** Every asset file name shown, sorted (across candidates). */
  assetNames: string[];
};

/**
 * Writes candidates/<id>.md for every id and copies each candidate's named assets to
 * candidates/<id>/ (basename collisions get distinct names instead of overwriting).
 */
export async function writeCandidates(
  folder: string,
  idMap: Readonly<Record<string, string>>,
  pool: ReadonlyMap<string, RunView>,
  artifacts: ReadonlyMap<string, string>,
  adapter: SelectionAdapter,
): Promise<WrittenCandidates> {
  const referenceOnly = adapter.deliverableAssetsReferenceOnly === true;
  const all = new Set<string>();
  for (const id of Object.keys(idMap).sort(compareAnonIds)) {
    const label = idMap[id] as string;
    const run = pool.get(label) as RunView;
    const names: string[] = [];
    const allocator = new NameAllocator();
    for (const path of await assetPaths(adapter, run.runDir)) {
      const name = allocator.claim(fileSafeName(basename(path)));
      const dir = join(folder, "candidates", id);
      mkdirSync(dir, { recursive: true });
      copyFileSync(path, join(dir, name));
      names.push(name);
      all.add(name);
    }
    let note = "";
    if (names.length > 0) {
      note = adapter.deliverableAssetsNote
        ? adapter.deliverableAssetsNote(names).replaceAll("{anon}", id)
        : defaultAssetsNote(id, names, referenceOnly);
    }
    writeFileSafe(
      folder,
      `candidates/${id}.md`,
      candidateFile(id, artifacts.get(label) ?? "", note),
    );
  }
  return { assetNames: [...all].sort() };
}

const COLUMN = 33;
function row(path: string, what: string): string {
  return `${path.padEnd(COLUMN - 1)} ${what}`;
}

export type EvidenceListing = {
  ids: readonly string[];
  /** Files copied to source/; the line is left out when none was (fix docs/differences.md S17). */
  sourceFiles: number;
  /** Asset names across candidates (sorted); empty when no candidate has assets. */
  assetNames: readonly string[];
  referenceOnly: boolean;
};

/** The first four asset names, the sample the prompts show. */
export function shownAssets(assetNames: readonly string[]): string[] {
  return assetNames.slice(0, 4);
}

/** The line the select prompt appends to its "what you are looking at" list ("" without assets). */
export function assetsNoteLine(
  adapter: Pick<SelectionAdapter, "deliverableAssetsLine" | "deliverableAssetsReferenceOnly">,
  assetNames: readonly string[],
): string {
  if (assetNames.length === 0) return "";
  const shown = shownAssets(assetNames);
  if (adapter.deliverableAssetsLine) return adapter.deliverableAssetsLine(shown);
  const what =
    adapter.deliverableAssetsReferenceOnly === true
      ? "raw original files of the artifact, for reference"
      : "rendered evidence of what the artifact does when run";
  return `- \`context/candidates/<id>/\`: ${what} (${shown.join(", ")})`;
}

/** Part B of the selector mission: where the evidence is, and the instruction to open all of it. */
export function selectionEvidence(e: EvidenceListing): string {
  const ids = e.ids.join(", ");
  const lines = [
    "# YOUR EVIDENCE",
    "",
    "The evidence is on disk under `context/`. Read it there: do not answer from this message alone.",
    "",
    row("context/task.md", "the instructions"),
  ];
  if (e.sourceFiles > 0) lines.push(row("context/source/", "the source materials"));
  lines.push(row("context/candidates/<id>.md", `one per candidate: ${ids}`));
  const assets = e.assetNames.length > 0;
  if (assets) {
    const kind = e.referenceOnly
      ? "raw originals per candidate"
      : "rendered evidence per candidate";
    lines.push(
      row("context/candidates/<id>/", `${kind} (${shownAssets(e.assetNames).join(", ")})`),
    );
  }
  const including =
    assets && !e.referenceOnly ? ", including the rendered evidence in its directory" : "";
  lines.push("", `Open every candidate before choosing${including}. Choose exactly one of ${ids}.`);
  return lines.join("\n");
}
