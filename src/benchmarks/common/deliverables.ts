// What the improver sees of a deliverable (docs/benchmarks.md): each file of output/ as text,
// capped per file at the benchmark's own limit. Documents (.docx, .xlsx, .pptx) are read by
// read_doc.py (standard-library python, one process per rollout, the same reader LAB's agents
// get), PDFs by pdf.js (pdf-text.ts: text stored as glyph codes too); other text as it is;
// anything else is named with its size. Images are listed separately.

import { readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { runProcess } from "../../core/lib/process.ts";
import { pythonEnv, resolvePython } from "../../core/lib/python.ts";
import { walkFiles } from "../../core/lib/safe-fs.ts";
import { pdfText } from "./pdf-text.ts";

/** The document reader, also installed as `scripts/read_doc.py` where a benchmark provides it. */
export const READ_DOC_SCRIPT = join(import.meta.dir, "read_doc.py");
let readDocText: string | null = null;

/** The reader's source, read once per process (a benchmark installs it in every workspace). */
export function readDocSource(): string {
  readDocText ??= readFileSync(READ_DOC_SCRIPT, "utf8");
  return readDocText;
}

/** Images of a deliverable shown to the improver (every benchmark's figure). */
export const IMAGES_MAX = 8;

/** Documents read_doc.py reads; PDFs are read on our side with pdf.js (pdf-text.ts). */
const DOCUMENTS = new Set([".docx", ".xlsx", ".xlsm", ".pptx"]);
const IMAGES = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);
const UTF8 = new TextDecoder("utf-8", { fatal: true });

function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n…(cut at ${max} of ${text.length} characters)`;
}

function plainOrNamed(path: string, max: number): string {
  const bytes = readFileSync(path);
  try {
    return capped(UTF8.decode(bytes), max);
  } catch {
    return `(binary file, ${bytes.length} bytes)`;
  }
}

async function documentTexts(
  root: string,
  rels: string[],
  env: Record<string, string | undefined>,
): Promise<Record<string, string>> {
  if (rels.length === 0) return {};
  const python = await resolvePython(env);
  const none = (why: string) => Object.fromEntries(rels.map((r) => [r, `(${why})`]));
  if (python === null) return none("no python3 to read this document");
  const exit = await runProcess({
    argv: [python, READ_DOC_SCRIPT, "--json", root, ...rels],
    env: pythonEnv(env),
    timeoutMs: 120_000,
  });
  if (exit.code !== 0) return none(`document reader failed: ${exit.stderrTail.trim().slice(-200)}`);
  return JSON.parse(exit.stdout) as Record<string, string>;
}

/** Deliverable file (relative to output/) → its text, at most `maxChars` each, in path order. */
export async function deliverableTexts(
  outputDir: string,
  env: Record<string, string | undefined>,
  maxChars: number,
): Promise<Record<string, string>> {
  const rels = walkFiles(outputDir);
  const docs = rels.filter((r) => DOCUMENTS.has(extname(r).toLowerCase()));
  const fromDocs = await documentTexts(outputDir, docs, env);
  const out: Record<string, string> = {};
  for (const rel of rels) {
    const ext = extname(rel).toLowerCase();
    const path = join(outputDir, rel);
    if (ext === ".pdf") out[rel] = capped(await pdfText(path), maxChars);
    else if (DOCUMENTS.has(ext)) out[rel] = capped(fromDocs[rel] ?? "(not read)", maxChars);
    else if (IMAGES.has(ext)) out[rel] = `(image, ${statSync(path).size} bytes)`;
    else out[rel] = plainOrNamed(path, maxChars);
  }
  return out;
}

/** Absolute paths of the deliverable's images, the first IMAGES_MAX in path order. */
export function deliverableImagePaths(outputDir: string): string[] {
  return walkFiles(outputDir)
    .filter((r) => IMAGES.has(extname(r).toLowerCase()))
    .slice(0, IMAGES_MAX)
    .map((r) => join(outputDir, r));
}
