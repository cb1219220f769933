// `harness2 help concepts`: the method's vocabulary, one definition per word, as the glossary of
// docs/method.md has it (that table is the one place the words are defined; this prints it
// wrapped for a terminal). The live view, `show`, `runs` and `browse` use these words.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const GLOSSARY_FILE = resolve(import.meta.dir, "../../../docs/method.md");

export type Concept = { word: string; meaning: string };

/** The rows of the `## Glossary` table in `markdown`, with inline code marks and bold removed. */
export function parseGlossary(markdown: string): Concept[] {
  const start = markdown.indexOf("\n## Glossary");
  if (start < 0) return [];
  const plain = (cell: string) => cell.trim().replaceAll("**", "").replaceAll("`", "");
  const rows: Concept[] = [];
  for (const line of markdown.slice(start).split("\n").slice(2)) {
    if (line.startsWith("## ")) break;
    if (!line.startsWith("|") || /^\|\s*-/.test(line) || /^\|\s*word\s*\|/.test(line)) continue;
    // A cell may hold an escaped pipe (`\|`), which is not a column break.
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.replaceAll("\\|", "|"));
    const [word, meaning] = cells;
    if (word !== undefined && meaning !== undefined) {
      rows.push({ word: plain(word), meaning: plain(meaning) });
    }
  }
  return rows;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** The glossary as text: each word on its own line, its meaning indented and wrapped. */
export function formatConcepts(concepts: readonly Concept[], columns = 100): string {
  const width = Math.max(40, Math.min(columns, 100) - 4);
  const out = ["The words harness2 uses (docs/method.md, Glossary):", ""];
  for (const c of concepts) {
    out.push(c.word);
    for (const l of wrap(c.meaning, width)) out.push(`    ${l}`);
  }
  return `${out.join("\n")}\n`;
}

/** Reads and formats the glossary; null when docs/method.md is not there. */
export function conceptsText(columns?: number): string | null {
  let markdown: string;
  try {
    markdown = readFileSync(GLOSSARY_FILE, "utf8");
  } catch {
    return null;
  }
  const concepts = parseGlossary(markdown);
  return concepts.length === 0 ? null : formatConcepts(concepts, columns);
}
