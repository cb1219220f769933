// Text plumbing shared by every prompt builder: sections, tidy joining, counted nouns, argument
// checks and the surface lookup. Pure string functions; must never read files or the clock.

import { Harness2Error } from "../../lib/errors.ts";
import type { BenchPrompts } from "../../seams/bench-prompts.ts";

/** The two prompt packs (docs/method.md §4): the default "adapt" and "tts". */
export type PromptPack = BenchPrompts["promptPack"];

/** Version of the prompt texts; part of every call fingerprint through the mission itself. */
export const PROMPTS_VERSION = "harness2-ts-1";

/** A prompt builder was called with an argument outside its allowed set. */
export class PromptInputError extends Harness2Error {
  override readonly name = "PromptInputError";
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`${field} ${JSON.stringify(value)} is not allowed: ${allowed}`);
  }
}

/**
 * A level-1 markdown section: `# title`, a blank line, the body. An empty string when the body is
 * blank, so optional sections vanish when the parts are tidied.
 */
export function section(title: string, body: string): string {
  const text = body.trim();
  return text === "" ? "" : `# ${title}\n\n${text}`;
}

/**
 * Joins parts with blank lines, collapses every run of 3+ newlines to one blank line, trims, and
 * ends with exactly one newline. Empty parts disappear without leaving a gap.
 */
export function tidy(parts: readonly string[]): string {
  return `${parts
    .join("\n\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()}\n`;
}

/** Lines that must stay on their own line: list items, table rows, headings, fences, quotes. */
const STRUCTURAL = /^(?:[-*+] |\d+[.)] |\||#|```|>)/;

/**
 * Template tag for the fixed prose of the prompts: a single line break inside a paragraph of the
 * literal text becomes a space (indentation after it is dropped), so source can be wrapped at 100
 * columns while the prompt reads as whole paragraphs. Blank lines, list items, table rows,
 * headings and fenced code keep their breaks. Interpolated values are inserted verbatim and never
 * reflowed: benchmark text keeps its own line breaks.
 */
export function prose(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = "";
  let inFence = false;
  strings.forEach((chunk, i) => {
    const hasValue = i < values.length;
    const value = hasValue ? String(values[i]) : "";
    const pieces = chunk.split("\n");
    pieces.forEach((piece, j) => {
      if (j > 0) {
        const prev = pieces[j - 1] as string;
        const prevBlank = prev.trim() === "" && !(j - 1 === 0 && i > 0);
        const isLast = j === pieces.length - 1;
        const next = isLast && hasValue ? piece + value : piece;
        const keep =
          inFence ||
          prevBlank ||
          next.trim() === "" ||
          STRUCTURAL.test(next.trimStart()) ||
          prev.trimStart().startsWith("```");
        if (keep) out += `\n${piece}`;
        else out = `${out.trimEnd()} ${piece.trimStart()}`;
      } else {
        out += piece;
      }
      if (piece.trimStart().startsWith("```")) inFence = !inFence;
    });
    out += value;
  });
  return out;
}

/** `1 rollout`, `3 rollouts` (regular English plurals only). */
export function counted(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

/** Throws unless `k` is a positive integer and `1 <= value <= k` for each named value. */
export function checkK(k: number, named: Record<string, number | undefined> = {}): void {
  if (!Number.isInteger(k) || k < 1) throw new PromptInputError("k", k, "a positive integer");
  for (const [field, value] of Object.entries(named)) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1 || value > k) {
      throw new PromptInputError(field, value, `an integer from 1 to k (${k})`);
    }
  }
}

/** The surfaces the prompts know. The substrate enters the prompts only through this name. */
export const SURFACE_NAMES = ["opencode", "codex"] as const;
export type SurfaceName = (typeof SURFACE_NAMES)[number];

/** What a prompt needs of a surface: its name and its always-on character cap. */
export type PromptSurface = { readonly name: string; readonly alwaysOnMax: number };

/** The surface's name, or a PromptInputError listing the known ones. */
export function surfaceName(surface: PromptSurface): SurfaceName {
  const name = surface.name;
  if ((SURFACE_NAMES as readonly string[]).includes(name)) return name as SurfaceName;
  throw new PromptInputError("surface", name, SURFACE_NAMES.join(" or "));
}

/** `24,000` — a character count as the prompts print it. */
export function thousands(n: number): string {
  return n.toLocaleString("en-US");
}
