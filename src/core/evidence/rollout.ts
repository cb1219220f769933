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

/** What an adapter hook gave, or why it failed. */
type HookRead<T> = { value: T } | { error: string };

/**
 * What the evidence reads of each finished rollout: every adapter hook is called once per RunView
 * (which belongs to the one adapter that ran it) and arguments (docs/architecture.md "Evidence
 * written once"); the documents made of a reading are cheap and made where they are written. A
 * rollout's folder never changes once its RunView exists (a rollout rolled again gets a new
 * RunView), and the same run is shown by many builds: the base rollouts in every stage, a
 * sequential candidate in every later round's pool, each parallel candidate in all k
 * compositions, all of them in reflection.
 */
const READS = new WeakMap<RunView, Map<string, Promise<HookRead<unknown>>>>();

/** `call()`'s result (or its failure) the first time `hook` is read of `run`; the same after. */
function readOnce<T>(run: RunView, hook: string, call: () => Promise<T>): Promise<HookRead<T>> {
  let reads = READS.get(run);
  if (reads === undefined) {
    reads = new Map();
    READS.set(run, reads);
  }
  let got = reads.get(hook) as Promise<HookRead<T>> | undefined;
  if (got === undefined) {
    // A hook that throws before it returns a promise fails the same way as one that rejects.
    got = (async (): Promise<HookRead<T>> => {
      try {
        return { value: await call() };
      } catch (err) {
        return { error: describeError(err) };
      }
    })();
    reads.set(hook, got);
  }
  return got;
}

/**
 * The names-only document for one run (deliverables/<label>/INDEX.md, pool/<label>/produced.md).
 * Fix docs/differences.md E10, E20: the note names no measurement, and a missing or failing listing
 * is reported as unavailable instead of being counted as one file.
 */
export async function listingDocument(
  label: string,
  run: RunView,
  adapter: EvidenceAdapter,
): Promise<string> {
  const list = adapter.deliverableListing?.bind(adapter);
  if (!list) {
    return `# ${label}: file names unavailable\n\n(no listing: this adapter cannot name the files a rollout produced)\n\n${WITHHELD_NOTE}\n`;
  }
  const read = await readOnce(run, "listing", async () => (await list(run.runDir)).map(String));
  if ("error" in read) {
    return `# ${label}: file names unavailable\n\n(listing unavailable: ${read.error})\n\n${WITHHELD_NOTE}\n`;
  }
  const names = read.value;
  const bullets = names.map((n) => `- \`${n}\`\n`).join("");
  return `# ${label} produced ${names.length} file(s)\n\n${bullets}${bullets ? "\n" : ""}${WITHHELD_NOTE}\n`;
}

/** The trajectory text, or the failure as text. */
export async function trajectoryText(
  adapter: EvidenceAdapter,
  run: RunView,
  obsTrunc: number,
): Promise<{ text: string; error: string }> {
  const read = await readOnce<unknown>(run, `trajectory\0${obsTrunc}`, () =>
    adapter.trajectory(run.runDir, { obsTrunc }),
  );
  let error: string;
  if ("error" in read) error = read.error;
  else if (typeof read.value === "string") return { text: read.value, error: "" };
  else error = `AdapterContractError: trajectory returned ${typeof read.value}, not text`;
  return { text: `(trajectory unavailable: ${error})\n`, error };
}

/** The deliverable as one text (contents mode), or the failure as text. */
export async function deliverableAsText(
  adapter: EvidenceAdapter,
  run: RunView,
  empty: string,
): Promise<string> {
  const read = await readOnce(run, "text", () => adapter.deliverableText(run.runDir));
  if ("error" in read) return `(deliverable unavailable: ${read.error})\n`;
  const text = String(read.value);
  return text === "" ? `${empty}\n` : text;
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
  const hook = adapter.deliverableFiles?.bind(adapter);
  const read = hook ? await readOnce(run, "files", () => hook(run.runDir)) : { value: {} };
  if ("error" in read) {
    // Fix docs/differences.md E14: this hook's failure is evidence too, not a stage error.
    out.write(`deliverables/${name}.md`, `(deliverable unavailable: ${read.error})\n`);
    return { ...result, deliverable: "file" };
  }
  const files: Record<string, string> = read.value;
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
