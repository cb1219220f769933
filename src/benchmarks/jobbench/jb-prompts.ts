// The words JobBench's improver and selector sessions get (BenchPrompts, docs/method.md §4): what
// the work is, the two proposal dimensions' levers, the question a run is judged by in the method,
// and a lens per occupation group. Written for harness2; every field passes the word scan, so none
// of it can say how the work is measured.

import { BenchPrompts, forbiddenWordsIn } from "../../core/seams/bench-prompts.ts";

const WORK = [
  "Professional workplace analysis across many occupations. Each task is a folder of mixed",
  "material (spreadsheets, documents, PDFs, databases, reference files) and an instruction",
  "file naming what a colleague needs back: spreadsheets, reports, reconciliations, plans,",
  "technical files. The result must be usable at once by someone in that occupation: faithful",
  "to the sources, computed reproducibly, in the conventions of the trade, and delivered as",
  "the files that were asked for. A paragraph of prose never stands in for a requested file.",
].join("\n");

const INV_LEVERS = [
  "- Inventory the inputs first: every file, its format, and which source is authoritative.",
  "- Compute and extract with code (python, sqlite, csv readers), not by eye; reconcile totals",
  "  against the sources before writing them down.",
  "- Turn the instructions into an output manifest (paths, sheets, columns, sections) and write",
  "  each file early, then improve it.",
  "- Reopen every written file with an independent reader and check it against the manifest.",
].join("\n");

const DOM_LEVERS = [
  "- Encode how a practitioner of the occupation decides: the source hierarchy, the methods and",
  "  the quality checks of the trade, never numbers that belong to one task.",
  "- Resolve conflicting sources explicitly and say which one won and why.",
  "- Check the standards, units and conventions the occupation works to.",
  "- Keep every recommendation traceable to the input it rests on.",
].join("\n");

const YARDSTICK = [
  "Did the run read every input that matters, compute what was asked with a reproducible",
  "method, write each requested file in the requested form, and reopen it before stopping?",
].join("\n");

const SELECTION_CHECKS = [
  "- Every file the instructions name exists, opens, and has the requested structure.",
  "- Figures agree with the inputs and with each other.",
  "- Claims and recommendations point at the material they come from.",
].join("\n");

const SELECTION_LEAD = [
  "Coverage of what was named: prefer the candidate that answers the most of the points the",
  "instructions explicitly ask for. A specific value the material supports beats a hedge;",
  "extra material costs nothing; a specific that the sources contradict counts against it.",
].join("\n");

/** Lens text per occupation group, appended as domain guidance. */
const GROUP_LENS: Record<string, string> = {
  finance: [
    "Finance and accounting work: tie every figure back to a ledger, statement or schedule;",
    "show the bridge between totals; keep signs, periods and currencies explicit; follow the",
    "reporting standard the material names.",
  ].join("\n"),
  engineering: [
    "Engineering and technical work: state units and tolerances, cite the standard or code",
    "clause a value rests on, keep calculations reproducible in a script or a sheet with",
    "formulas, and check results against physical sense.",
  ].join("\n"),
  health: [
    "Health and care work: follow the clinical or regulatory guideline the material names,",
    "keep patient data exactly as recorded, and separate observation from interpretation.",
  ].join("\n"),
  legal: [
    "Legal, compliance and public administration work: quote the controlling text with its",
    "location, keep dates, parties and conditions exact, and mark every inference as one.",
  ].join("\n"),
  operations: [
    "Operations, logistics and supply work: reconcile quantities across orders, stock and",
    "shipments; keep lead times and capacities explicit; make the plan executable by date.",
  ].join("\n"),
  business: [
    "Sales, marketing, HR and management work: ground every claim about customers, markets or",
    "people in the data given, segment before summarising, and end with decisions a manager",
    "can act on.",
  ].join("\n"),
  data: [
    "Data, research and science work: document the method, keep raw and derived data apart,",
    "report uncertainty, and make every chart or table reproducible from the inputs.",
  ].join("\n"),
};

/** Profession slug words → occupation group; the first rule whose pattern matches wins. */
const GROUP_RULES: [RegExp, string][] = [
  [/account|audit|tax|financ|bank|actuar|treasur|budget|invest|insur|bookkeep/, "finance"],
  [
    /engineer|architect|survey|electric|mechanic|civil|construct|technic|software|develop/,
    "engineering",
  ],
  [/nurs|health|clinic|medic|pharma|therap|physician|dental|care/, "health"],
  [/legal|law|paralegal|compliance|regulat|policy|govern|public/, "legal"],
  [/logist|supply|operat|procure|purchas|inventory|warehouse|manufactur|product/, "operations"],
  [/sales|market|hr|human|recruit|manag|consult|business|customer|retail/, "business"],
  [/data|analy|research|scien|statist|econom|chem|bio|lab/, "data"],
];

/** The occupation group of a profession slug (e.g. `financial_analyst` → finance), or null. */
export function occupationGroup(profession: string): string | null {
  const slug = profession.toLowerCase();
  for (const [re, group] of GROUP_RULES) if (re.test(slug)) return group;
  return null;
}

export const JB_PROMPTS: BenchPrompts = BenchPrompts.parse({
  work: WORK,
  domainWord: "profession",
  invLevers: INV_LEVERS,
  domLevers: DOM_LEVERS,
  yardstick: YARDSTICK,
  deliverableWord: "deliverable",
  selectionChecks: SELECTION_CHECKS,
  selectionLead: SELECTION_LEAD,
  selectionConformance: "value_only",
  promptPack: "tts",
});

/** The prompts of one profession: the shared ones with its group's lens appended. */
export function promptsForProfession(profession: string): BenchPrompts {
  const group = occupationGroup(profession);
  const lens = group === null ? "" : (GROUP_LENS[group] ?? "");
  const readable = profession.replaceAll(/[_-]+/g, " ");
  // A slug that happens to hold a refused word (say, an "evaluation analyst") is left out of the
  // text rather than refusing the task: the lens still applies.
  const named = forbiddenWordsIn(readable).length === 0 ? `Profession: ${readable}.` : "";
  const guidance = [named, lens].filter((s) => s !== "").join("\n");
  return BenchPrompts.parse({ ...JB_PROMPTS, domainGuidance: guidance });
}

/** The rollout's prompt: where the instructions and inputs are, where deliverables go. */
export function rolloutPrompt(instructions: string): string {
  return [
    "You are working in a copy of a professional task folder: the files in the working",
    "directory are your material, and TASK_INSTRUCTIONS.txt says what is needed.",
    "Save every file the instructions ask for under output/ (create the folder); only files",
    "there are collected. Use web search when the instructions need outside information.",
    "",
    "The instructions:",
    "",
    instructions.trim(),
    "",
  ].join("\n");
}
