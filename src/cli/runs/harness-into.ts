// `harness export --into PROJECT` (issue 35): the adopted harness merged into a project that
// already has its own files, without clobbering any of them. The harness is rendered into a
// scratch folder first, then:
// - AGENTS.md: the harness's text goes between two marker lines, appended to the project's own
//   AGENTS.md (or replacing the section an earlier export wrote); the rest of the file is kept;
// - every other rendered file (.opencode/, .agents/, .codex/, scripts/, skills/): written when the
//   project has none at that path, left alone when it has the same bytes, and a different file
//   there stops the whole merge before anything is written;
// - opencode.json: written only when the project has none; the project's own is never changed;
// - the lessons and the provenance go to `.harness2/` (lessons.md, export.json).
// Nothing is followed through a link: a link where a file would go is a conflict.

import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { walkFiles, writeFileSafe } from "../../core/lib/safe-fs.ts";
import { CliError } from "../errors.ts";

export const SECTION_BEGIN =
  "<!-- harness2: adopted harness (begin; harness2 harness export rewrites this section) -->";
export const SECTION_END = "<!-- harness2: adopted harness (end) -->";

/** The project's AGENTS.md with the harness's section in place (appended, or replacing the last export's). */
export function withSection(existing: string | null, harnessText: string): string {
  const section = `${SECTION_BEGIN}\n${harnessText.trim()}\n${SECTION_END}\n`;
  if (existing === null || existing.trim() === "") return section;
  const begin = existing.indexOf(SECTION_BEGIN);
  const end = existing.indexOf(SECTION_END);
  if (begin >= 0 && end > begin) {
    return `${existing.slice(0, begin)}${section}${existing.slice(end + SECTION_END.length).replace(/^\n/, "")}`;
  }
  return `${existing.replace(/\n*$/, "")}\n\n${section}`;
}

export type MergeResult = { written: string[]; unchanged: string[]; kept: string[] };

/**
 * Merges the rendered harness in `rendered` into `project` (an existing folder). `extra` are files
 * to place under `.harness2/`. Throws a CliError (exit 1) naming the conflicts when any project
 * file would be overwritten; then nothing is written.
 */
export function mergeInto(
  project: string,
  rendered: string,
  extra: Record<string, string>,
): MergeResult {
  const result: MergeResult = { written: [], unchanged: [], kept: [] };
  const plan: [string, Buffer | string][] = [];
  const conflicts: string[] = [];
  const occupied = (rel: string) => lstatSync(join(project, rel), { throwIfNoEntry: false });
  for (const rel of walkFiles(rendered)) {
    const bytes = readFileSync(join(rendered, rel));
    const st = occupied(rel);
    if (rel === "AGENTS.md") {
      if (st !== undefined && !st.isFile()) conflicts.push(rel);
      else {
        const own = st === undefined ? null : readFileSync(join(project, rel), "utf8");
        plan.push([rel, withSection(own, bytes.toString("utf8"))]);
      }
      continue;
    }
    if (rel === "opencode.json" && st !== undefined) {
      if (st.isFile()) result.kept.push(rel);
      else conflicts.push(rel);
      continue;
    }
    if (st === undefined) plan.push([rel, bytes]);
    else if (st.isFile() && readFileSync(join(project, rel)).equals(bytes))
      result.unchanged.push(rel);
    else conflicts.push(rel);
  }
  for (const [name, text] of Object.entries(extra)) {
    const rel = join(".harness2", name);
    const st = occupied(rel);
    if (st !== undefined && !st.isFile()) conflicts.push(rel);
    else plan.push([rel, text]);
  }
  if (conflicts.length > 0) {
    const shown = conflicts.slice(0, 5).join(", ");
    const more = conflicts.length > 5 ? ` and ${conflicts.length - 5} more` : "";
    throw new CliError(
      `${project} already has ${shown}${more}, different from the harness's: nothing was written. Fix: move ${conflicts.length === 1 ? "it" : "them"} aside, or export into a new folder (harness export DIR)`,
    );
  }
  for (const [rel, data] of plan) {
    writeFileSafe(project, rel, data);
    result.written.push(rel);
  }
  return result;
}
