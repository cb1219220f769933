// How the `tasks` benchmark describes the work to the improver (BenchPrompts), generically or from
// a root's prompts.toml, and the exact first message a task's agent receives. The text describes
// the work only — never how it is checked — and BenchPrompts refuses measurement words.

import { z } from "zod";
import { BenchPrompts } from "../../core/seams/bench-prompts.ts";

/** The prompts used when a root has no prompts.toml (or for the fields it leaves out). */
export const DEFAULT_TASKS_PROMPTS: BenchPrompts = BenchPrompts.parse({
  work: "Carry out a self-contained task from its written instructions, using the input files placed in the working directory, and save every requested file under output/.",
  domainWord: "domain",
  deliverableWord: "output files",
  invLevers: [
    "- how the agent reads the instructions and every input before acting",
    "- a short plan, then steps that check their own intermediate results",
    "- helper scripts for steps that are repeated or easy to get wrong by hand",
    "- a last pass confirming each requested file exists under output/ and follows the instructions",
  ].join("\n"),
  domLevers: [
    "- durable facts and conventions of this domain the agent had to rediscover",
    "- a skill holding a worked procedure for the kind of task seen here",
    "- pitfalls in this domain's inputs, formats and terminology",
  ].join("\n"),
  yardstick:
    "Would the person who wrote these instructions accept the files under output/ as finished, without rework?",
  selectionChecks: [
    "- every file the instructions ask for exists and is complete",
    "- the content follows the instructions exactly: names, formats, constraints",
    "- nothing is invented beyond what the inputs and instructions support",
  ].join("\n"),
});

/** prompts.toml: snake_case BenchPrompts fields, plus per-domain guidance. */
export const PromptsToml = z.strictObject({
  work: z.string().optional(),
  domain_word: z.string().optional(),
  inv_levers: z.string().optional(),
  dom_levers: z.string().optional(),
  yardstick: z.string().optional(),
  deliverable_word: z.string().optional(),
  domain_guidance: z.string().optional(),
  selection_checks: z.string().optional(),
  selection_lead: z.string().optional(),
  /** `[domains.<name>] guidance = "…"`: appended to domain_guidance for that domain's tasks. */
  domains: z.record(z.string(), z.strictObject({ guidance: z.string() })).optional(),
});

const FIELD_MAP = {
  work: "work",
  domain_word: "domainWord",
  inv_levers: "invLevers",
  dom_levers: "domLevers",
  yardstick: "yardstick",
  deliverable_word: "deliverableWord",
  domain_guidance: "domainGuidance",
  selection_checks: "selectionChecks",
  selection_lead: "selectionLead",
} as const;

export type PromptsFile = {
  prompts: BenchPrompts;
  /** Domain → guidance appended for that domain. */
  domainGuidance: Readonly<Record<string, string>>;
};

/**
 * Parses prompts.toml (null = no file). Fields it sets replace the defaults; a problem makes the
 * whole file count as absent (the defaults are used) and is reported.
 */
export function parsePromptsToml(text: string | null): {
  file: PromptsFile;
  problems: { problem: string; fix: string }[];
} {
  const fallback = { file: { prompts: DEFAULT_TASKS_PROMPTS, domainGuidance: {} }, problems: [] };
  if (text === null) return fallback;
  let raw: unknown;
  try {
    raw = Bun.TOML.parse(text);
  } catch (err) {
    return {
      ...fallback,
      problems: [
        { problem: `is not valid TOML (${(err as Error).message})`, fix: "fix the syntax" },
      ],
    };
  }
  // Every problem of the file is reported at once (one each, never a whole file silently
  // dropped for its first mistake); any problem refuses the folder, so nothing runs on a file
  // that is partly ignored.
  const problems: { problem: string; fix: string }[] = [];
  const keysFix = `allowed keys: ${Object.keys(FIELD_MAP).join(", ")} and [domains.<name>] guidance`;
  let table: Record<string, unknown> =
    raw !== null && typeof raw === "object" && !Array.isArray(raw) ? { ...(raw as object) } : {};
  const unknown = Object.keys(table).filter((k) => k !== "domains" && !(k in FIELD_MAP));
  if (unknown.length > 0) {
    problems.push({ problem: `unknown key(s) ${unknown.join(", ")}`, fix: keysFix });
    table = Object.fromEntries(Object.entries(table).filter(([k]) => !unknown.includes(k)));
  }
  const parsed = PromptsToml.safeParse(table);
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      problems.push({
        problem:
          i.code === "unrecognized_keys"
            ? `${i.path.join(".")}: unknown key(s) ${i.keys.join(", ")}`
            : `${i.path.join(".")}: ${i.message}`,
        fix: keysFix,
      });
    }
    return { ...fallback, problems };
  }
  const fields: Record<string, string> = { ...DEFAULT_TASKS_PROMPTS };
  for (const [key, camel] of Object.entries(FIELD_MAP)) {
    const v = parsed.data[key as keyof typeof FIELD_MAP];
    if (v !== undefined) fields[camel] = v;
  }
  const prompts = BenchPrompts.safeParse(fields);
  if (!prompts.success) {
    for (const i of prompts.error.issues) {
      problems.push({
        problem: i.message,
        fix: "describe the work itself; how it is checked stays in tests/",
      });
    }
  }
  // Each domain's guidance is checked too, against the defaults when the fields above failed.
  const base = prompts.success ? prompts.data : BenchPrompts.parse(DEFAULT_TASKS_PROMPTS);
  const domainGuidance: Record<string, string> = {};
  for (const [domain, { guidance }] of Object.entries(parsed.data.domains ?? {})) {
    const check = BenchPrompts.safeParse({ ...base, domainGuidance: guidance });
    if (check.success) domainGuidance[domain] = guidance;
    else {
      for (const i of check.error.issues) {
        problems.push({
          problem: `domains.${domain}.guidance: ${i.message}`,
          fix: "describe the work itself; how it is checked stays in tests/",
        });
      }
    }
  }
  if (problems.length > 0 || !prompts.success) return { ...fallback, problems };
  return { file: { prompts: prompts.data, domainGuidance }, problems: [] };
}

/** The prompts of one domain: the root's, with that domain's guidance appended. */
export function promptsForDomain(file: PromptsFile, domain: string): BenchPrompts {
  const extra = file.domainGuidance[domain];
  if (extra === undefined || extra.trim() === "") return file.prompts;
  const base = file.prompts.domainGuidance.trim();
  return BenchPrompts.parse({
    ...file.prompts,
    domainGuidance: base === "" ? extra : `${base}\n\n${extra}`,
  });
}

/**
 * The first message of a rollout: task.md as written, then one fixed paragraph saying where
 * deliverables go (and, when task.toml names them, which files are expected).
 */
export function composeTaskPrompt(task: {
  instructions: string;
  deliverables: readonly string[];
  hasInputs: boolean;
}): string {
  const named =
    task.deliverables.length === 0
      ? ""
      : ` Expected: ${task.deliverables.map((d) => `\`output/${d}\``).join(", ")}.`;
  const inputs = task.hasInputs ? " The task's input files are in the working directory." : "";
  return `${task.instructions.trim()}\n\n---\nSave every file you deliver under \`output/\` in the working directory.${named}${inputs}\n`;
}
