// The benchmark-shaped words of the shared prompts (BenchPrompts), refused when any of them talks
// about how work is measured: the word scan every prompt text goes through.

import { z } from "zod";
import { GRADER_VERDICT_MARKERS, maskMarker } from "../safety/markers.ts";

// ── benchmark prompts ────────────────────────────────────────────────────────────────────────

/**
 * Words about measurement that prompt text must not contain: it describes the work, not how the
 * work is assessed. Matched as whole words in these exact forms, case-insensitively, with any
 * non-letter, non-digit character (space, `-`, `_`, punctuation) as a word edge — fix
 * docs/differences.md H19, where a plain substring test also refused `underscore`, `scoreboard` and
 * `benchmarked`. So `score`, `Scores`, `scored`, `scoring`, `pass_score` and `re-evaluation` hit;
 * `underscore`, `scoreboard`, `scorecard`, `evaluate` and `benchmarking` do not.
 */
export const FORBIDDEN_PROMPT_WORDS = [
  "benchmark",
  "benchmarks",
  "evaluation",
  "evaluations",
  "grader",
  "graders",
  "rubric",
  "rubrics",
  "score",
  "scores",
  "scored",
  "scoring",
] as const;

export const FORBIDDEN_RE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${FORBIDDEN_PROMPT_WORDS.join("|")})(?![\\p{L}\\p{N}])`,
  "giu",
);

/** The forbidden words in `text`, in order of appearance, lower-cased and without repeats. */
export function forbiddenWordsIn(text: string): string[] {
  return [...new Set([...text.matchAll(FORBIDDEN_RE)].map((m) => m[0].toLowerCase()))];
}

/**
 * BenchPrompts fields that reach the improver or selector as free text and are scanned.
 * `selectionLead` is scanned too (the original skipped it, docs/differences.md H19); the single
 * words `domainWord` and `deliverableWord` and the enums are not free text.
 */
export const SCANNED_PROMPT_FIELDS = [
  "work",
  "invLevers",
  "domLevers",
  "yardstick",
  "domainGuidance",
  "selectionChecks",
  "selectionLead",
] as const;

/** Benchmark-shaped text for the shared prompts (docs/method.md §4). */
export const BenchPrompts = z
  .object({
    /** What the work is, as the agent meets it: the `[WORK]` section of every prompt. */
    work: z
      .string()
      .refine((s) => s.trim() !== "", { error: "work must be non-blank text describing the work" }),
    domainWord: z
      .string()
      .min(1, { error: "domainWord must be non-empty (default: domain)" })
      .default("domain"),
    invLevers: z.string().default(""),
    domLevers: z.string().default(""),
    yardstick: z.string().default(""),
    deliverableWord: z
      .string()
      .min(1, { error: "deliverableWord must be non-empty (default: deliverable)" })
      .default("deliverable"),
    domainGuidance: z.string().default(""),
    selectionChecks: z.string().default(""),
    selectionLead: z.string().default(""),
    // Validated (docs/differences.md E7): any other value is refused.
    selectionConformance: z
      .enum(["full", "value_only"], {
        error: (iss) =>
          `selectionConformance ${JSON.stringify(iss.input)} is not allowed: full or value_only`,
      })
      .default("full"),
    promptPack: z
      .enum(["adapt", "tts"], {
        error: (iss) => `promptPack ${JSON.stringify(iss.input)} is not allowed: adapt or tts`,
      })
      .default("adapt"),
  })
  .superRefine((p, ctx) => {
    for (const field of SCANNED_PROMPT_FIELDS) {
      // A grader's own words never enter a prompt: every mission is scanned for them too.
      const marker = GRADER_VERDICT_MARKERS.find((m) => p[field].includes(m));
      if (marker !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `${field} holds the grader verdict marker ${maskMarker(marker)} (without the dot); prompt text must never carry a grader's words`,
        });
      }
      for (const word of forbiddenWordsIn(p[field])) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `${field} contains the word "${word}"; describe the work, not its measurement (forbidden: ${FORBIDDEN_PROMPT_WORDS.join(", ")})`,
        });
      }
    }
  })
  .readonly();
export type BenchPrompts = z.infer<typeof BenchPrompts>;
