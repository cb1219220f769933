// What the store hands the judge and the report about a sweep's finished work: one record per
// task × mode × k (its status, selection and rollouts, its spend) and one per task's base
// rollouts. Types only; store/report-queries.ts reads them, src/judge turns them into subjects.

export type Similarity = { n: number; nDistinct: number; meanLineJaccard: number };

export type StoredRollout = {
  label: string;
  runId: string;
  runDir: string;
  finished: boolean;
  ok: boolean;
};

export type StoredSelection = {
  chosenLabel: string;
  ok: boolean;
  fallback: boolean;
  trivial: boolean;
  error: string;
  chosenRunId: string | null;
  chosenRunDir: string | null;
};

/** One task × mode × k, from the newest record (at or before the sweep) that has the mode. */
export type StoredCell = {
  /** The sweep whose record this is (an earlier one when the task was skipped on resume). */
  sweepId: string;
  domain: string;
  task: string;
  k: number;
  mode: string;
  carried: boolean;
  /** null when the mode never started in any record. */
  modeStatus: string | null;
  modeError: string;
  fellBack: string[];
  similarity: Similarity | null;
  selection: StoredSelection | null;
  /** Every rollout of the record (both modes share one task record), to locate the chosen run. */
  rollouts: StoredRollout[];
  /** Uncached improver calls of this mode, by purpose ("probe" counts as stage work). */
  improver: { stages: number; selection: number; reflection: number };
  /** This mode's executor rollouts that ran (not reused), bases excluded. */
  executor: number;
};

/** The base rollouts of one task and k (shared by the modes). */
export type StoredBase = {
  sweepId: string;
  domain: string;
  task: string;
  k: number;
  /** The modes the record declares (the first files the base judgments). */
  modes: string[];
  carried: boolean;
  rollouts: StoredRollout[];
  executor: number;
};
