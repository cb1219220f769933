// What the improver sees of a JobBench deliverable (docs/benchmarks.md "JobBench"): each file of
// output/ as text, capped per file. Plain text is read as is; .docx, .xlsx and .pptx go through
// office_text.py (standard-library python, one process per rollout); a PDF through `pdftotext`
// when it is installed. Anything else is named with its size. Images are listed separately.

import { readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { pickEnv, runProcess, which } from "../../core/lib/process.ts";
import { pythonEnv, resolvePython } from "../../core/lib/python.ts";
import { walkFiles } from "../../core/lib/safe-fs.ts";

/** Characters of one file's text the improver is shown (the JobBench judge's own cap). */
export const JB_FILE_TEXT_MAX = 200_000;
/** Images of a deliverable shown to the improver. */
export const JB_IMAGES_MAX = 8;

const OFFICE = new Set([".docx", ".xlsx", ".xlsm", ".pptx"]);
const IMAGES = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);
const OFFICE_SCRIPT = join(import.meta.dir, "office_text.py");
const UTF8 = new TextDecoder("utf-8", { fatal: true });

function capped(text: string): string {
  if (text.length <= JB_FILE_TEXT_MAX) return text;
  return `${text.slice(0, JB_FILE_TEXT_MAX)}\n…(cut at ${JB_FILE_TEXT_MAX} of ${text.length} characters)`;
}

function plainOrNamed(path: string): string {
  const bytes = readFileSync(path);
  try {
    return capped(UTF8.decode(bytes));
  } catch {
    return `(binary file, ${bytes.length} bytes)`;
  }
}

async function officeTexts(
  root: string,
  rels: string[],
  env: Record<string, string | undefined>,
): Promise<Record<string, string>> {
  if (rels.length === 0) return {};
  const python = await resolvePython(env);
  const none = (why: string) => Object.fromEntries(rels.map((r) => [r, `(${why})`]));
  if (python === null) return none("no python3 to read this office file");
  const exit = await runProcess({
    argv: [python, OFFICE_SCRIPT, root, ...rels],
    env: pythonEnv(env),
    timeoutMs: 120_000,
  });
  if (exit.code !== 0) return none(`office reader failed: ${exit.stderrTail.trim().slice(-200)}`);
  const parsed = JSON.parse(exit.stdout) as Record<string, string>;
  return Object.fromEntries(rels.map((r) => [r, capped(parsed[r] ?? "(not read)")]));
}

async function pdfText(path: string, env: Record<string, string | undefined>): Promise<string> {
  const tool = which("pdftotext", env);
  const size = statSync(path).size;
  if (tool === null) return `(PDF, ${size} bytes; install poppler-utils to see its text here)`;
  const exit = await runProcess({
    argv: [tool, "-layout", path, "-"],
    env: pickEnv(env, ["PATH", "LANG", "LC_*"]),
    timeoutMs: 60_000,
  });
  return exit.code === 0 ? capped(exit.stdout) : `(PDF, ${size} bytes, unreadable by pdftotext)`;
}

/** Deliverable file (relative to output/) → its text, in path order. */
export async function deliverableTexts(
  outputDir: string,
  env: Record<string, string | undefined>,
): Promise<Record<string, string>> {
  const rels = walkFiles(outputDir);
  const office = rels.filter((r) => OFFICE.has(extname(r).toLowerCase()));
  const fromOffice = await officeTexts(outputDir, office, env);
  const out: Record<string, string> = {};
  for (const rel of rels) {
    const ext = extname(rel).toLowerCase();
    const path = join(outputDir, rel);
    if (OFFICE.has(ext)) out[rel] = fromOffice[rel] ?? "(not read)";
    else if (ext === ".pdf") out[rel] = await pdfText(path, env);
    else if (IMAGES.has(ext)) out[rel] = `(image, ${statSync(path).size} bytes)`;
    else out[rel] = plainOrNamed(path);
  }
  return out;
}

/** Absolute paths of the deliverable's images, the first JB_IMAGES_MAX in path order. */
export function deliverableImagePaths(outputDir: string): string[] {
  return walkFiles(outputDir)
    .filter((r) => IMAGES.has(extname(r).toLowerCase()))
    .slice(0, JB_IMAGES_MAX)
    .map((r) => join(outputDir, r));
}
