// Shared fixtures for the prompt tests: BenchPrompts with recognisable slot values, the real
// surfaces, heading extraction, and every prompt variant the method can send.
import {
  aggregate,
  composeRound,
  type Dim,
  experience,
  propose,
  select,
} from "../../../../src/core/proposer/prompts/index.ts";
import { BenchPrompts } from "../../../../src/core/seams/bench-prompts.ts";
import { CODEX_SURFACE } from "../../../../src/substrate/codex/surface.ts";
import { OPENCODE_SURFACE } from "../../../../src/substrate/opencode/surface.ts";

export const SURFACES = [OPENCODE_SURFACE, CODEX_SURFACE] as const;
export const PACKS = ["adapt", "tts"] as const;
export const CONFORMANCES = ["full", "value_only"] as const;
export const KS = [1, 2, 4] as const;

/** Slot values that are easy to find in a prompt and carry no measurement words. */
export const SLOTS = {
  work: "WORK-SLOT: draft the quarterly memo for the finance team.",
  domainWord: "bookkeeping",
  invLevers: "INV-LEVERS-SLOT",
  domLevers: "DOM-LEVERS-SLOT",
  yardstick: "YARDSTICK-SLOT",
  deliverableWord: "ledgerbook",
  domainGuidance: "LENS-SLOT",
  selectionChecks: "CHECKS-SLOT",
  selectionLead: "LEAD-SLOT",
} as const;

export function bench(overrides: Partial<Record<keyof BenchPrompts, string>> = {}): BenchPrompts {
  return BenchPrompts.parse({ ...SLOTS, ...overrides });
}

/** A BenchPrompts with only the required `work` (every optional slot blank). */
export function bareBench(pack: "adapt" | "tts" = "adapt"): BenchPrompts {
  return BenchPrompts.parse({ work: SLOTS.work, promptPack: pack });
}

/** The level-1 headings of a prompt, in order, without the `# `. */
export function headings(text: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    else if (!fence && line.startsWith("# ")) out.push(line.slice(2));
  }
  return out;
}

/** The body of the section titled `title` (up to the next level-1 heading), or "" if absent. */
export function sectionBody(text: string, title: string): string {
  const start = text.indexOf(`\n# ${title}\n`);
  if (start < 0) return "";
  const from = start + title.length + 4;
  const next = text.indexOf("\n# ", from);
  return text.slice(from, next < 0 ? undefined : next);
}

export type Variant = { name: string; text: string };

/** Every prompt variant: both packs × both surfaces × dims × k ∈ {1,2,4} × conformance × pool kinds. */
export function allVariants(): Variant[] {
  const out: Variant[] = [];
  for (const pack of PACKS) {
    for (const conformance of CONFORMANCES) {
      const bp = bench({ promptPack: pack, selectionConformance: conformance });
      const bare = BenchPrompts.parse({
        work: SLOTS.work,
        promptPack: pack,
        selectionConformance: conformance,
      });
      for (const [tag, b] of [
        ["slots", bp],
        ["bare", bare],
      ] as const) {
        const at = `${pack}/${conformance}/${tag}`;
        for (const k of KS) {
          for (const poolKind of ["mixed", "finals"] as const) {
            out.push({
              name: `${at}/select/k${k}/${poolKind}`,
              text: select(b, 2 * k, { poolKind, assetsNote: "" }),
            });
          }
          for (const surface of SURFACES) {
            const s = `${at}/${surface.name}/k${k}`;
            for (const dim of ["INV", "DOM"] as Dim[]) {
              for (let index = 1; index <= k; index++) {
                out.push({
                  name: `${s}/propose/${dim}/i${index}`,
                  text: propose(b, dim, surface, { k, index }),
                });
                out.push({
                  name: `${s}/propose/${dim}/r${index}`,
                  text: propose(b, dim, surface, { k, index, roundT: index }),
                });
              }
            }
            for (let index = 1; index <= k; index++) {
              out.push({
                name: `${s}/aggregate/i${index}`,
                text: aggregate(b, surface, { k, index }),
              });
              out.push({
                name: `${s}/compose/t${index}`,
                text: composeRound(b, surface, { t: index, k }),
              });
            }
          }
        }
        out.push({ name: `${at}/experience`, text: experience(b) });
      }
    }
  }
  return out;
}
