// The run configuration as a value: every path, model, endpoint and limit a run reads, each
// field validated with a message that names it. Built only by loadRunConfig (config.ts).

import { isAbsolute } from "node:path";
import { z } from "zod";
import { CHANNEL_KINDS } from "../seams/channel-spec.ts";

export const posInt = (field: string) =>
  z
    .number()
    .int()
    .min(1, { error: (iss) => `${field} must be an integer ≥ 1, got ${String(iss.input)}` });

export const RunConfig = z
  .object({
    /** Absolute root of all run state; each benchmark writes under `<runsDir>/<bench>`. */
    runsDir: z.string().refine(isAbsolute, {
      error: (iss) => `runsDir must be absolute, got ${JSON.stringify(iss.input)}`,
    }),
    /** The SQLite store's file, or a PostgreSQL store's URL without its password. */
    dbPath: z.string().refine((p) => isAbsolute(p) || /^postgres(ql)?:\/\//i.test(p), {
      error: (iss) =>
        `dbPath must be absolute or a postgres:// URL, got ${JSON.stringify(iss.input)}`,
    }),
    /** Executor model for the OpenCode substrate, `provider/model`; "" until validateModels. */
    solverModel: z.string(),
    /** Executor model for Codex (bare id). */
    codexModel: z.string(),
    /** Model of proposer, selector and reflection sessions. */
    improverModel: z.string(),
    /** Channel kind improver sessions use unless a benchmark's spec says otherwise. */
    improverChannel: z.enum(CHANNEL_KINDS),
    /** How improver sessions are started: in a bubblewrap sandbox, or (opted out) as they are. */
    improverSandbox: z.enum(["bwrap", "off"]),
    judgeModel: z.string(),
    judgeBaseUrl: z.string(),
    judgeApiKey: z.string(),
    codexBaseUrl: z.string(),
    codexContainerUrl: z.string(),
    codexApiKey: z.string(),
    /** Vertex project ("" when none). */
    project: z.string(),
    location: z.string().min(1, { error: "location must be non-empty (default: global)" }),
    /** An OpenCode source checkout to run instead of the pinned npm package; null = the package. */
    opencodeDir: z.string().nullable(),
    /** Proposals or rollouts running at once inside one phase. */
    phaseWidth: posInt("phaseWidth"),
    /** Improver/selector sessions running at once, process-wide; 0 = unlimited. */
    sessionLimit: z
      .number()
      .int()
      .min(0, {
        error: (iss) =>
          `sessionLimit must be an integer ≥ 0 (0 = unlimited), got ${String(iss.input)}`,
      }),
    /** Proposals per stage: one plus validation retries. */
    stageAttempts: posInt("stageAttempts"),
    /** Transport attempts of one proposer call. */
    transportAttempts: posInt("transportAttempts"),
    /** Wall-clock limit of one improver session, in seconds. */
    proposerTimeoutS: posInt("proposerTimeoutS"),
    proposerSteps: posInt("proposerSteps"),
    proposerEffort: z
      .string()
      .min(1, { error: "proposerEffort must be non-empty (default: high)" }),
    /** Executor rollout limit in seconds; null = each benchmark's own default. */
    rolloutTimeoutS: posInt("rolloutTimeoutS").nullable(),
    /** Domains processed at once (tasks inside a domain are always sequential). */
    domainWorkers: posInt("domainWorkers"),
    judgeParallel: posInt("judgeParallel"),
    /**
     * Library entries an improvement stage is shown: the most recent N of the domain's library,
     * in stream order; 0 = all of them (the original). Stored entries are never deleted by it.
     */
    libraryMaxEntries: z
      .number()
      .int()
      .min(0, {
        error: (iss) =>
          `libraryMaxEntries must be an integer ≥ 0 (0 = no cap), got ${String(iss.input)}`,
      }),
    /**
     * Bytes of library entries an improvement stage is shown: the most recent entries whose files
     * fit in this many bytes (the newest is always shown); 0 = no limit (the original).
     */
    libraryMaxBytes: z
      .number()
      .int()
      .min(0, {
        error: (iss) =>
          `libraryMaxBytes must be an integer ≥ 0 (0 = no cap), got ${String(iss.input)}`,
      }),
    /** 1 when the executor may reach the web (run --allow-web), 0 when not (core/run/web-policy.ts). */
    allowWeb: z
      .number()
      .int()
      .min(0, { error: (iss) => `allowWeb must be 0 or 1, got ${String(iss.input)}` })
      .max(1, { error: (iss) => `allowWeb must be 0 or 1, got ${String(iss.input)}` }),
    /**
     * Modes of one task run at once after its shared base rollouts (1 = one after the other, as
     * the original; 2 = parallel and sequential together). Records are the same either way.
     */
    modesAtOnce: z
      .number()
      .int()
      .min(1, { error: (iss) => `modesAtOnce must be 1 or 2, got ${String(iss.input)}` })
      .max(2, { error: (iss) => `modesAtOnce must be 1 or 2, got ${String(iss.input)}` }),
    /** Sleep between transport attempts: backoffS × (attempt − 1) seconds. */
    backoffS: z
      .number()
      .min(0, { error: (iss) => `backoffS must be ≥ 0 seconds, got ${String(iss.input)}` }),
  })
  .readonly();
export type RunConfig = z.infer<typeof RunConfig>;
