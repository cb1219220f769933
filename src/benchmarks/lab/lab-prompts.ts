// The words of the LAB cell (docs/benchmarks.md "LAB"), written for harness2: the improver's and
// selector's BenchPrompts with a lens per practice-area group and per work type, the rollout's
// prompt, LAB's starting harness on each executor, the note the runtime appends last, and the
// follow-up sent when the agent stops before every named file exists. Every BenchPrompts text
// passes the word scan, so none of it says how the work is measured.

import { BenchPrompts, forbiddenWordsIn } from "../../core/seams/bench-prompts.ts";
import type { LabTask } from "./lab-data.ts";

const WORK = [
  "Legal work for a supervising lawyer: analysing a matter's records, reviewing and drafting",
  "instruments, and researching and advising. It is delivered as exactly the files the",
  "assignment names, and each must be matter-ready: internally consistent, traceable to the",
  "record, and usable without repair.",
].join("\n");

const INV_LEVERS = [
  "- Inventory the data room first and map each requested file to the documents it rests on.",
  "- Read binary documents with the documented extraction script and keep pinpoint locations",
  "  (section, page, clause) for everything taken from them.",
  "- Plan the outputs early, write every named file before the budget runs out, and reopen each",
  "  one to check it parses and says what was planned.",
  "- Reconcile names, dates and amounts across documents with an explicit source hierarchy.",
].join("\n");

const DOM_LEVERS = [
  "- Choose the work-product form the audience needs (issues list, memo, consent, advice letter).",
  "- Keep source text, fact, inference, risk and recommendation visibly apart.",
  "- Test parties, authority, jurisdiction, dates, conditions and cross-references.",
  "- Never invent a citation; say what would have to be checked instead.",
].join("\n");

const YARDSTICK = [
  "Did the run find the controlling record, perform the legal operation asked for, keep every",
  "statement traceable, produce each named file and inspect it before stopping?",
].join("\n");

const SELECTION_CHECKS = [
  "- The right instrument or memo form for the request, covering all of it.",
  "- Consistent with the record: names, dates, amounts and clause numbers match the documents.",
  "- Uncertainty stated explicitly; analysis that leads to action rather than a summary.",
].join("\n");

/** Lens per practice-area group, found from words in the area's folder name. */
const AREA_LENS: [RegExp, string][] = [
  [
    /m_?&_?a|merger|acquisition|corporate|governance|securities|capital/,
    "Corporate and transactional work: follow the deal documents' defined terms, check authority and approvals, and track conditions, dates and who bears each risk.",
  ],
  [
    /employ|labou?r|benefit|compensation|workplace/,
    "Employment work: identify the governing agreement and statute, compute entitlements from the record, and note conditions, deadlines and the employee's jurisdiction.",
  ],
  [
    /litigation|dispute|arbitration|court|trial|discovery/,
    "Disputes work: tie every assertion to the record, keep procedural posture and deadlines explicit, and separate the strong points from the weak.",
  ],
  [
    /real_?estate|property|lease|land/,
    "Real estate work: check parties, premises, term, rent and consents against the instruments, and flag title and registration points.",
  ],
  [
    /intellectual|ip|patent|trademark|copyright|licen[cs]/,
    "Intellectual property work: identify the rights, their owner and scope, the licence terms and their limits, and any registration facts.",
  ],
  [
    /tax/,
    "Tax work: name the provision, the facts it turns on and the computation, and keep periods and entities distinct.",
  ],
  [
    /regulat|compliance|privacy|data|antitrust|competition|environment/,
    "Regulatory work: identify the regime and the obligation, map the facts to each element, and state what must be done and by when.",
  ],
  [
    /bank|finance|lending|restructur|insolvency|bankrupt/,
    "Finance and restructuring work: follow the facility's definitions and waterfall, check covenants and defaults, and keep amounts and dates exact.",
  ],
];

const WORK_TYPE_LENS: Record<string, string> = {
  analyze: "Analysis: state the question, the facts that decide it, the answer and its confidence.",
  review:
    "Review: go clause by clause, say why each point matters to this client, and propose the change.",
  draft:
    "Drafting: use the form's conventions, defined terms used consistently, and complete signature blocks.",
  research:
    "Research: name the governing rule with its source, apply it to these facts, and say what remains open.",
};

export const LAB_PROMPTS: BenchPrompts = BenchPrompts.parse({
  work: WORK,
  domainWord: "practice area",
  invLevers: INV_LEVERS,
  domLevers: DOM_LEVERS,
  yardstick: YARDSTICK,
  deliverableWord: "work product",
  selectionChecks: SELECTION_CHECKS,
});

/** The prompts of one task: the shared ones with its practice area's and work type's lenses. */
export function promptsForTask(task: Pick<LabTask, "area" | "workType">): BenchPrompts {
  const slug = task.area.toLowerCase();
  const readable = task.area.replaceAll(/[_-]+/g, " ");
  const parts = [
    forbiddenWordsIn(readable).length === 0 ? `Practice area: ${readable}.` : "",
    AREA_LENS.find(([re]) => re.test(slug))?.[1] ?? "",
    WORK_TYPE_LENS[task.workType] ?? "",
  ];
  return BenchPrompts.parse({ ...LAB_PROMPTS, domainGuidance: parts.filter(Boolean).join("\n") });
}

/** The assignment as the agent sees it: no criteria (they were never read). */
export function labPrompt(task: LabTask): string {
  const files = Object.entries(task.deliverables).map(
    ([name, what]) => `- output/${name}: ${what}`,
  );
  return [
    `# ${task.title}`,
    "",
    task.instructions.trim(),
    "",
    "Deliver exactly these files:",
    ...files,
    "",
    task.documentsDir === null
      ? "There are no documents for this matter."
      : "The matter's documents are in documents/ (read-only). Read PDFs and Word, Excel and PowerPoint files with `python3 scripts/read_doc.py documents/<file>`.",
    "",
  ].join("\n");
}

/** The note the runtime appends last to AGENTS.md: how this workspace is laid out. */
export const LAB_ENV_NOTE = [
  "# This workspace",
  "",
  "- `documents/` holds the matter's records; it is read-only.",
  "- `python3 scripts/read_doc.py <file>` prints the text of a PDF, .docx, .xlsx or .pptx file.",
  "- Only files under `output/` are delivered; write each requested file there.",
].join("\n");

/** LAB's starting system prompt on OpenCode (the other always-on files start empty). */
export const LAB_SYSTEM_PROMPT = [
  "You are a careful associate preparing legal work product for a supervising lawyer.",
  "",
  "- The matter's records are in `documents/` and are read-only. Read every document that could",
  "  matter before you write; for PDFs and office files run `python3 scripts/read_doc.py <file>`.",
  "- Write each requested file under `output/` with exactly the requested name. Nothing else is",
  "  delivered.",
  "- Ground every statement in the documents and cite where it comes from (document and clause or",
  "  page). Say so when the record does not answer something; never invent authority.",
  "- Before you stop, reopen every file you wrote and check it against the assignment.",
  "",
].join("\n");

/** LAB's starting AGENTS.md on Codex. */
export const LAB_CODEX_AGENTS = [
  "# Working on a legal matter",
  "",
  "- `documents/` is the matter's data room: read-only. Read binary documents with",
  "  `python3 scripts/read_doc.py documents/<file>`.",
  "- Deliverables count only as files under `output/<file>`, named exactly as requested.",
  "- Build office files (docx, xlsx) with Python when they are asked for, then open them again",
  "  to verify them.",
  "- Ground every claim in the documents, with the document and clause or page it comes from.",
  "",
].join("\n");

/** The follow-up when named files are still missing, or null when every one exists. */
export function missingDeliverablesNudge(missing: readonly string[]): string | null {
  if (missing.length === 0) return null;
  return [
    "Continue the assignment: these requested files do not exist yet under output/:",
    ...missing.map((m) => `- output/${m}`),
    "Write each of them now, then reopen them to check them.",
  ].join("\n");
}
