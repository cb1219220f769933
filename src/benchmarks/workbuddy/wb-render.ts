// What a WorkBuddy trial delivered, as the improver and the selector may see it
// (docs/benchmarks.md "WorkBuddy: what is shown"). A trial folder holds the agent's work AND the
// verifier's verdict side by side, so the renderer reads from an allowlist per subset and nothing
// else:
//   office  verifier/raw_artifacts/** (the files the agent wrote) and verifier/agent.patch
//   web     verifier/agent.workspace.tar.gz (the agent's workspace, unpacked beside the trial)
//   code    verifier/agent.patch
// Inside those, a file that looks like the verifier wrote it (a score or test-output name, or text
// carrying a grader's verdict marker) or that a leak glob names is quarantined: named, never shown.
// Spreadsheets are shown cell by cell with each formula and its cached value, slides, documents
// and PDFs as text, images by name and size. Files are read with well-kept libraries (jszip with fast-xml-parser —
// spreadsheets through common/xlsx-cells.ts —, mammoth, tar, image-size).

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { imageSize } from "image-size";
import JSZip from "jszip";
import mammoth from "mammoth";
import * as tar from "tar";
import { lstatOrNull, sortPaths, walkFiles } from "../../core/lib/safe-fs.ts";
import { leakMatcher } from "../../core/safety/leak-globs.ts";
import { GRADER_VERDICT_MARKERS } from "../../core/safety/markers.ts";
import { pdfText } from "../common/pdf-text.ts";
import { type CellValue, readWorkbook } from "../common/xlsx-cells.ts";
import { WB_LEAK_GLOBS, type WbSubset } from "./wb-data.ts";

export const RAW_ARTIFACTS = "verifier/raw_artifacts";
export const AGENT_PATCH = "verifier/agent.patch";
export const WORKSPACE_ARCHIVE = "verifier/agent.workspace.tar.gz";
/** Where the workspace archive is unpacked, beside the trial's own folders. */
export const UNPACKED = ".h2-workspace";

/** A rollout delivered only when its rendered files hold at least this many characters. */
export const DELIVERED_MIN_CHARS = 200;
/** Characters of one file's text that are shown. */
export const FILE_TEXT_MAX = 100_000;
/** Cells of one sheet that are shown. */
export const SHEET_CELLS_MAX = 4_000;
/** Files of one trial that are rendered; the rest are only counted. */
export const FILES_MAX = 200;

const TEXT_EXT = new Set(
  ".md .txt .csv .tsv .json .jsonl .html .htm .css .js .mjs .cjs .ts .tsx .jsx .py .xml .yaml .yml .svg .sql .sh .toml .ini .cfg .rst .tex .vue .java .go .rs .c .h .cpp .rb .php .log".split(
    " ",
  ),
);
const IMAGE_EXT = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"]);
/** Raw office files the improver also gets as they are (office). */
const ASSET_EXT = new Set([".xlsx", ".xlsm", ".pptx", ".docx"]);
const SKIP_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv", ".cache"]);

/** File names only a verifier writes. */
const VERIFIER_NAMES =
  /^(?:scores?\.json|rewards?\.(?:txt|json)|ctrf\.json|junit\.xml|grading\.json|verdict\.json|test[-_](?:stdout|stderr|output|results?)\.(?:txt|json|log|xml))$/i;

export type Rendered = {
  /** Files past FILES_MAX, counted but not rendered. */
  unshown: number;
  /** Shown name → text. */
  files: Record<string, string>;
  /** Absolute paths of images (named and sized in `files`, shown to the improver as images). */
  images: string[];
  /** Absolute paths of raw office files (office: given as they are, for reference). */
  assets: string[];
  /** Every delivered file's shown name, quarantined ones left out. */
  names: string[];
  /** Files withheld because they look verifier-written or a leak glob names them. */
  quarantined: string[];
  /** Characters of rendered body. */
  body: number;
};

function clip(text: string, max = FILE_TEXT_MAX): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n…(+${text.length - max} chars — render truncation)`;
}

function hasVerdictMarker(text: string): boolean {
  return GRADER_VERDICT_MARKERS.some((m) => text.includes(m));
}

// ── spreadsheets, slides, documents, images ──────────────────────────────────────────────────

function plain(v: CellValue | undefined): string {
  if (v === undefined) return "";
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") return v.error;
  return String(v);
}

/** Every non-empty cell of every sheet; a formula with its cached value, or the note that it has none. */
export async function renderWorkbook(path: string): Promise<string> {
  const out: string[] = [];
  for (const sheet of await readWorkbook(readFileSync(path))) {
    out.push(`## Sheet "${sheet.name}" (${sheet.rowCount} rows × ${sheet.columnCount} columns)`);
    for (const cell of sheet.cells.slice(0, SHEET_CELLS_MAX)) {
      if (cell.formula === undefined && cell.sharedFrom === undefined) {
        out.push(`${cell.address}: ${plain(cell.value)}`);
        continue;
      }
      const f = cell.formula ?? `(shared) ${cell.sharedFrom}`;
      const cached =
        cell.value === undefined
          ? "no cached value: a reader that loads values only sees this cell empty"
          : plain(cell.value);
      out.push(`${cell.address}: =${f} → ${cached}`);
    }
    const more = sheet.cells.length - SHEET_CELLS_MAX;
    if (more > 0) out.push(`…(${more} more cells — render truncation)`);
  }
  return out.join("\n");
}

const XML = new XMLParser({ preserveOrder: true, ignoreAttributes: true, trimValues: false });

type XmlNode = Record<string, unknown>;

/** The text of each `a:p` paragraph under `nodes`, in document order. */
function paragraphs(nodes: unknown, into: string[]): void {
  if (!Array.isArray(nodes)) return;
  for (const node of nodes as XmlNode[]) {
    for (const [tag, children] of Object.entries(node)) {
      if (tag === ":@" || tag === "#text") continue;
      if (tag === "a:p") {
        const runs: string[] = [];
        collectText(children, runs);
        const line = runs.join("").trim();
        if (line !== "") into.push(line);
      } else {
        paragraphs(children, into);
      }
    }
  }
}

function collectText(nodes: unknown, into: string[]): void {
  if (!Array.isArray(nodes)) return;
  for (const node of nodes as XmlNode[]) {
    for (const [tag, children] of Object.entries(node)) {
      if (tag === "a:t" && Array.isArray(children)) {
        for (const c of children as XmlNode[]) if ("#text" in c) into.push(String(c["#text"]));
      } else if (tag !== ":@" && tag !== "#text") {
        collectText(children, into);
      }
    }
  }
}

/** Each slide's text, slide by slide in their number order. */
export async function renderSlides(path: string): Promise<string> {
  const zip = await JSZip.loadAsync(readFileSync(path));
  const slides = Object.keys(zip.files)
    .map((name) => [name, /^ppt\/slides\/slide(\d+)\.xml$/.exec(name)?.[1]] as const)
    .filter((e): e is readonly [string, string] => e[1] !== undefined)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const out: string[] = [];
  for (const [name, n] of slides) {
    const xml = await zip.file(name)?.async("string");
    const lines: string[] = [];
    paragraphs(XML.parse(xml ?? ""), lines);
    out.push(`## Slide ${n}`, ...(lines.length > 0 ? lines : ["(no text)"]));
  }
  return out.length > 0 ? out.join("\n") : "(a presentation without slides)";
}

export async function renderDocument(path: string): Promise<string> {
  const { value } = await mammoth.extractRawText({ buffer: readFileSync(path) });
  return value.trim() === "" ? "(a document without text)" : value.trim();
}

export function describeImage(path: string): string {
  const bytes = statSync(path).size;
  try {
    const { width, height } = imageSize(readFileSync(path));
    return `image, ${width}×${height} px, ${bytes} bytes (not shown inline)`;
  } catch {
    return `image, ${bytes} bytes, dimensions unreadable (not shown inline)`;
  }
}

/** One delivered file as text, by its kind; an unreadable file says so instead of failing. */
export async function renderFile(path: string): Promise<string> {
  const ext = extname(path).toLowerCase();
  try {
    if (ext === ".xlsx" || ext === ".xlsm") return clip(await renderWorkbook(path));
    if (ext === ".pptx") return clip(await renderSlides(path));
    if (ext === ".docx") return clip(await renderDocument(path));
    if (ext === ".pdf") return clip(await pdfText(path));
    if (IMAGE_EXT.has(ext)) return describeImage(path);
    if (TEXT_EXT.has(ext) || ext === "" || ext === ".patch" || ext === ".diff") {
      const buf = readFileSync(path);
      if (buf.includes(0)) return `binary file, ${buf.length} bytes`;
      return clip(buf.toString("utf8"));
    }
    return `binary file (${ext}), ${statSync(path).size} bytes`;
  } catch (err) {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    return `(could not be read as ${ext || "text"}: ${why})`;
  }
}

// ── the allowlist ────────────────────────────────────────────────────────────────────────────

/** `trialDir/rel` when it exists and no part of it below the trial folder is a link; else null. */
function allowed(trialDir: string, rel: string): string | null {
  let at = trialDir;
  for (const seg of rel.split("/")) {
    at = join(at, seg);
    const st = lstatOrNull(at);
    if (!st || st.isSymbolicLink()) return null;
  }
  return at;
}

/** Unpacks the workspace archive once (beside the trial folder's own files); null when there is none. */
export async function unpackedWorkspace(trialDir: string): Promise<string | null> {
  const archive = allowed(trialDir, WORKSPACE_ARCHIVE);
  if (archive === null) return null;
  const dest = join(trialDir, UNPACKED);
  if (existsSync(dest)) return dest;
  const partial = `${dest}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // Regular files and folders only: links, devices and paths leaving the folder are dropped.
  await tar.x({
    file: archive,
    cwd: partial,
    strict: false,
    preservePaths: false,
    filter: (path, entry) => {
      const type = (entry as { type?: string }).type;
      if (path.split("/").some((seg) => SKIP_DIRS.has(seg))) return false;
      return type === "File" || type === "Directory" || type === "OldFile";
    },
  });
  renameSync(partial, dest);
  return dest;
}

type Source = { root: string; prefix: string };

/** The folders a subset's renderer reads from. */
async function sources(trialDir: string, subset: WbSubset): Promise<Source[]> {
  if (subset === "office") {
    const raw = allowed(trialDir, RAW_ARTIFACTS);
    return raw === null ? [] : [{ root: raw, prefix: "" }];
  }
  if (subset === "web") {
    const ws = await unpackedWorkspace(trialDir);
    return ws === null ? [] : [{ root: ws, prefix: "" }];
  }
  return [];
}

/** The rendered deliverable of one trial (see the top of this file). */
export async function renderTrial(trialDir: string, subset: WbSubset): Promise<Rendered> {
  const out: Rendered = {
    files: {},
    images: [],
    assets: [],
    names: [],
    quarantined: [],
    body: 0,
    unshown: 0,
  };
  const leak = leakMatcher(WB_LEAK_GLOBS[subset]);
  for (const src of await sources(trialDir, subset)) {
    if (!existsSync(src.root)) continue;
    const rels = sortPaths(
      walkFiles(src.root, { skipDirs: SKIP_DIRS }).filter((r) => !r.split("/").includes(UNPACKED)),
    );
    for (const rel of rels) {
      const path = join(src.root, rel);
      const name = `${src.prefix}${rel}`;
      if (VERIFIER_NAMES.test(basename(rel)) || leak(rel) !== null) {
        out.quarantined.push(name);
        continue;
      }
      if (out.names.length >= FILES_MAX) {
        out.unshown++;
        continue;
      }
      const text = await renderFile(path);
      if (hasVerdictMarker(text)) {
        out.quarantined.push(name);
        continue;
      }
      out.files[name] = text;
      out.names.push(name);
      const ext = extname(rel).toLowerCase();
      if (IMAGE_EXT.has(ext)) out.images.push(path);
      else out.body += text.length;
      if (subset === "office" && ASSET_EXT.has(ext)) out.assets.push(path);
    }
  }
  if (subset !== "web") {
    const patch = allowed(trialDir, AGENT_PATCH);
    if (patch !== null) {
      const text = readFileSync(patch, "utf8");
      if (text.trim() !== "") {
        if (hasVerdictMarker(text)) out.quarantined.push("agent.patch");
        else {
          out.files["agent.patch"] = clip(text);
          out.names.push("agent.patch", ...patchedFiles(text).map((f) => `agent.patch: ${f}`));
          out.body += Math.min(text.length, FILE_TEXT_MAX);
        }
      }
    }
  }
  return out;
}

/** The files a unified diff touches, in its order. */
export function patchedFiles(patch: string): string[] {
  const files: string[] = [];
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    const f = m[2] as string;
    if (!files.includes(f)) files.push(f);
  }
  if (files.length === 0) {
    for (const m of patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) {
      const f = m[1] as string;
      if (f !== "/dev/null" && !files.includes(f)) files.push(f);
    }
  }
  return files;
}
