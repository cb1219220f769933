// One rollout's evidence: its full trajectory and what it produced, every byte from a named
// adapter hook. It never lists a run directory (the grader's own output lives there), and a
// failing hook is written into the file as evidence instead of being raised.

import { copyFileSync, lstatSync, mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { codePointLength } from "../harness/surface.ts";
import { describeError } from "../lib/errors.ts";
import { safeJoin } from "../lib/safe-fs.ts";
import type { TreeWriter } from "../lib/tree-writer.ts";
import type { BenchmarkAdapter, RunView } from "../seams/benchmark.ts";

/** What every reader of a task and its runs goes through: the evidence, the selector, reflection. */
export type RunReadingMembers =
  | "spec"
  | "taskPrompt"
  | "taskFiles"
  | "trajectory"
  | "deliverableText";

/** The adapter members the evidence tree reads through, and nothing else. */
export type EvidenceAdapter = Pick<
  BenchmarkAdapter,
  | RunReadingMembers
  | "deliverableFiles"
  | "deliverableImages"
  | "deliverableAssets"
  | "deliverableListing"
>;

export type DeliverablesMode = "contents" | "names";

/** At most this many images of one deliverable are shown. */
export const MAX_IMAGES = 8;

/** A name usable as one file in one folder: `/` and `\` become `__`; nothing becomes `unnamed`. */
export function fileSafeName(name: string): string {
  const flat = name.replaceAll("\0", "").replace(/[/\\]/g, "__");
  return flat === "" || flat === "." || flat === ".." ? "unnamed" : flat;
}

/**
 * Hands out distinct file names within one folder. Fix docs/differences.md E19: `a/b` and `a__b`
 * (or two images with one basename) no longer overwrite each other; the later one becomes
 * `a__b~2.txt`.
 */
export class NameAllocator {
  private readonly taken = new Set<string>();

  claim(wanted: string): string {
    if (!this.taken.has(wanted)) {
      this.taken.add(wanted);
      return wanted;
    }
    const dot = wanted.lastIndexOf(".");
    const stem = dot > 0 ? wanted.slice(0, dot) : wanted;
    const ext = dot > 0 ? wanted.slice(dot) : "";
    for (let n = 2; ; n++) {
      const name = `${stem}~${n}${ext}`;
      if (!this.taken.has(name)) {
        this.taken.add(name);
        return name;
      }
    }
  }
}

const WITHHELD_NOTE =
  "File contents are deliberately withheld here: this is neither an oversight nor a size limit. " +
  "Reason from the trajectory (what was attempted, observed and done) and from this file set, " +
  "which is evidence in itself: the task names the files it expects, so a missing or misnamed " +
  "file is a finding. Do not ask for the contents, and do not infer that an unlisted file is empty.";

/**
 * What the evidence reads of each finished rollout: every adapter hook is called once per
 * RunView (which belongs to the one adapter that ran it) and reading (docs/architecture.md "Evidence written once"). A rollout's folder
 * never changes once its RunView exists (a rollout rolled again gets a new RunView), and the same
 * run is shown by many builds: the base rollouts in every stage, a sequential candidate in every
 * later round's pool, each parallel candidate in all k compositions, all of them in reflection.
 */
const READS = new WeakMap<RunView, Map<string, Promise<unknown>>>();

/** `read()` the first time `what` is read of `run`, the same promise every later time. */
function readOnce<T>(run: RunView, what: string, read: () => Promise<T>): Promise<T> {
  let reads = READS.get(run);
  if (reads === undefined) {
    reads = new Map();
    READS.set(run, reads);
  }
  let got = reads.get(what) as Promise<T> | undefined;
  if (got === undefined) {
    got = read();
    reads.set(what, got);
  }
  return got;
}

/**
 * The names-only document for one run (deliverables/<label>/INDEX.md, pool/<label>/produced.md).
 * Fix docs/differences.md E10, E20: the note names no measurement, and a missing or failing listing
 * is reported as unavailable instead of being counted as one file.
 */
export function listingDocument(
  label: string,
  run: RunView,
  adapter: EvidenceAdapter,
): Promise<string> {
  return readOnce(run, `listing\0${label}`, () => listingOf(label, run.runDir, adapter));
}

async function listingOf(label: string, runDir: string, adapter: EvidenceAdapter): Promise<string> {
  let names: string[];
  try {
    if (!adapter.deliverableListing) {
      return `# ${label}: file names unavailable\n\n(no listing: this adapter cannot name the files a rollout produced)\n\n${WITHHELD_NOTE}\n`;
    }
    names = (await adapter.deliverableListing(runDir)).map(String);
  } catch (err) {
    return `# ${label}: file names unavailable\n\n(listing unavailable: ${describeError(err)})\n\n${WITHHELD_NOTE}\n`;
  }
  const bullets = names.map((n) => `- \`${n}\`\n`).join("");
  return `# ${label} produced ${names.length} file(s)\n\n${bullets}${bullets ? "\n" : ""}${WITHHELD_NOTE}\n`;
}

/** The trajectory text, or the failure as text. */
export function trajectoryText(
  adapter: EvidenceAdapter,
  run: RunView,
  obsTrunc: number,
): Promise<{ text: string; error: string }> {
  return readOnce(run, `trajectory\0${obsTrunc}`, () =>
    trajectoryOf(adapter, run.runDir, obsTrunc),
  );
}

async function trajectoryOf(
  adapter: EvidenceAdapter,
  runDir: string,
  obsTrunc: number,
): Promise<{ text: string; error: string }> {
  try {
    const text: unknown = await adapter.trajectory(runDir, { obsTrunc });
    if (typeof text !== "string") {
      const error = `AdapterContractError: trajectory returned ${typeof text}, not text`;
      return { text: `(trajectory unavailable: ${error})\n`, error };
    }
    return { text, error: "" };
  } catch (err) {
    const error = describeError(err);
    return { text: `(trajectory unavailable: ${error})\n`, error };
  }
}

/** The deliverable as one text (contents mode), or the failure as text. */
export function deliverableAsText(
  adapter: EvidenceAdapter,
  run: RunView,
  empty: string,
): Promise<string> {
  return readOnce(run, `text\0${empty}`, async () => {
    try {
      const text = String(await adapter.deliverableText(run.runDir));
      return text === "" ? `${empty}\n` : text;
    } catch (err) {
      return `(deliverable unavailable: ${describeError(err)})\n`;
    }
  });
}

/** The deliverable's files as texts (contents mode), or why the hook failed. */
function deliverableFilesOf(
  adapter: EvidenceAdapter,
  run: RunView,
): Promise<{ files: Record<string, string> } | { error: string }> {
  return readOnce(run, "files", async () => {
    try {
      return { files: adapter.deliverableFiles ? await adapter.deliverableFiles(run.runDir) : {} };
    } catch (err) {
      return { error: describeError(err) };
    }
  });
}

export type RolloutEvidence = {
  /** File stem under rollouts/ (and deliverables/), normally the label itself. */
  name: string;
  /** The trajectory rendered. */
  rendered: boolean;
  /** "" or "<label>: Type: message" for a trajectory that could not be rendered. */
  failure: string;
  /** How the deliverable was written: a folder with INDEX.md, or one `<name>.md` text. */
  deliverable: "dir" | "file";
};

/**
 * Writes rollouts/<name>.md and the rollout's deliverable through `out`. `name` is already unique
 * among the build's rollouts.
 */
export async function writeRollout(
  out: TreeWriter,
  name: string,
  run: RunView,
  adapter: EvidenceAdapter,
  opts: { obsTrunc: number; mode: DeliverablesMode },
): Promise<RolloutEvidence> {
  const traj = await trajectoryText(adapter, run, opts.obsTrunc);
  out.write(`rollouts/${name}.md`, traj.text);
  const result: RolloutEvidence = {
    name,
    rendered: traj.error === "",
    failure: traj.error === "" ? "" : `${run.label}: ${traj.error}`,
    deliverable: "dir",
  };
  if (opts.mode === "names") {
    const doc = await listingDocument(run.label, run, adapter);
    out.write(`deliverables/${name}/INDEX.md`, doc);
    return result;
  }
  const read = await deliverableFilesOf(adapter, run);
  if ("error" in read) {
    // Fix docs/differences.md E14: this hook's failure is evidence too, not a stage error.
    out.write(`deliverables/${name}.md`, `(deliverable unavailable: ${read.error})\n`);
    return { ...result, deliverable: "file" };
  }
  const files = read.files;
  if (Object.keys(files).length === 0) {
    const text = await deliverableAsText(adapter, run, "(no deliverable produced)");
    out.write(`deliverables/${name}.md`, text);
    return { ...result, deliverable: "file" };
  }
  await writeDeliverableFolder(out, `deliverables/${name}`, run, files, adapter);
  return result;
}

type Copied = { names: string[]; problems: string[] };

/** Copies adapter-named files (regular files only, never through a symlink) into `dir/sub/`. */
async function copyNamed(
  root: string,
  dir: string,
  sub: "images" | "raw",
  list: (() => Promise<string[]>) | null,
  limit: number,
): Promise<Copied> {
  const got: Copied = { names: [], problems: [] };
  if (list === null) return got;
  let paths: string[];
  try {
    paths = (await list()).map(String).slice(0, limit);
  } catch (err) {
    got.problems.push(`${sub}/ could not be listed: ${describeError(err)}`);
    return got;
  }
  const names = new NameAllocator();
  for (const path of paths) {
    const wanted = fileSafeName(basename(path));
    try {
      if (!lstatSync(path).isFile()) {
        got.problems.push(`\`${wanted}\` was not copied: not a regular file`);
        continue;
      }
      const name = names.claim(wanted);
      const target = safeJoin(root, `${dir}/${sub}/${name}`);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(path, target);
      got.names.push(name);
    } catch (err) {
      got.problems.push(`\`${wanted}\` was not copied: ${describeError(err)}`);
    }
  }
  return got;
}

async function writeDeliverableFolder(
  out: TreeWriter,
  dir: string,
  run: RunView,
  files: Record<string, string>,
  adapter: EvidenceAdapter,
): Promise<void> {
  const names = new NameAllocator();
  names.claim("INDEX.md");
  names.claim("images");
  names.claim("raw");
  const lines: string[] = [];
  for (const [artifact, body] of Object.entries(files)) {
    const safe = fileSafeName(artifact);
    const file = names.claim(safe.endsWith(".txt") ? safe : `${safe}.txt`);
    const text = String(body);
    out.write(`${dir}/${file}`, text);
    const chars = codePointLength(text).toLocaleString("en-US");
    lines.push(`- \`${artifact}\` → \`${file}\` (${chars} characters)`);
  }
  const imagesHook = adapter.deliverableImages;
  const assetsHook = adapter.deliverableAssets;
  const images = await copyNamed(
    out.root,
    dir,
    "images",
    imagesHook ? () => imagesHook.call(adapter, run.runDir) : null,
    MAX_IMAGES,
  );
  const raw = await copyNamed(
    out.root,
    dir,
    "raw",
    assetsHook ? () => assetsHook.call(adapter, run.runDir) : null,
    Number.POSITIVE_INFINITY,
  );
  const parts = [
    `# ${run.label} produced ${lines.length} file(s)`,
    lines.join("\n"),
    "Each `.txt` file is that artifact converted to text by the same reader that takes the work " +
      "in once it is handed over, so reason about correctness from these texts: whatever did not " +
      "survive the conversion counts as unreadable.",
  ];
  // Fix docs/differences.md E12: images/ and raw/ are mentioned only when something was copied
  // there.
  if (images.names.length > 0) {
    parts.push(
      `\`images/\` holds ${images.names.length} image(s) from the same deliverable ` +
        `(${images.names.map((n) => `\`${n}\``).join(", ")}); they are part of how the work is read.`,
    );
  }
  if (raw.names.length > 0) {
    parts.push(
      `\`raw/\` holds the original files (${raw.names.map((n) => `\`${n}\``).join(", ")}). The ` +
        "`.txt` rendering is CANONICAL: it shows each artifact the way it is read once handed " +
        "over (a spreadsheet formula without a cached value, for example, renders as the empty " +
        "cell that is read). Open a raw file only for detail the rendering flattened, never to " +
        "overrule the rendering.",
    );
  }
  const problems = [...images.problems, ...raw.problems];
  if (problems.length > 0) {
    parts.push(`Not shown:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  }
  out.write(`${dir}/INDEX.md`, `${parts.join("\n\n")}\n`);
}
