// The seam between the method and an improver CLI (docs/architecture.md "Layout"). A Channel runs
// ONE model session in a workspace the proposer prepared (it holds `context/`) and reports text,
// cost and error; it never retries, caches, harvests or audits — the Proposer (proposer.ts) does
// that.

import { Harness2Error } from "../lib/errors.ts";

/** What one channel session is asked to do. */
export type ChannelRequest = {
  /**
   * Fresh temporary directory, the session's cwd. For an isolated channel it holds `context/`, a
   * copy of the evidence; for an in-place channel only the part it edits (`context/harness`).
   */
  workspace: string;
  /**
   * Where the session reads the evidence: `<workspace>/context` for an isolated channel, the
   * evidence folder itself for an in-place one (which must not write there). Null: no evidence.
   */
  context: string | null;
  /** Scratch directory owned by this session for the CLI's own state (XDG dirs, HOME, …). */
  sessionDir: string;
  mission: string;
  /** System text; empty when the prompt has none. */
  system: string;
  model: string;
  effort: string;
  steps: number;
  /** Hard wall-clock limit for the session, in seconds. */
  timeoutS: number;
  /** Aborts the session (SIGTERM to its process group, SIGKILL after a grace). */
  signal?: AbortSignal;
};

/** What one channel session produced. An empty `text` means the session failed; `error` says why. */
export type ChannelResult = {
  text: string;
  /** USD spent by this session as reported by the CLI (0 when it reports nothing). */
  usd: number;
  error: string;
  /** True when the session was killed at its timeout. */
  timedOut: boolean;
};

/**
 * What workspace a channel needs. `isolated` (the default, every real CLI): a full private copy of
 * the evidence, since an agent may read, change or delete anything in its workspace. `in-place`
 * (an in-process channel, e.g. the demo's scripted one): it reads the evidence where it is and
 * gets a fresh copy of only the folder it edits — no tree copy on the hot path.
 */
export type WorkspaceNeed = "isolated" | "in-place";

export interface Channel {
  /** "opencode", "claude_cli", or a scripted channel's own name. */
  readonly kind: string;
  /** Default "isolated". */
  readonly workspace?: WorkspaceNeed;
  run(request: ChannelRequest): Promise<ChannelResult>;
}

/** The answer of one proposer call (cached, fresh, or after retries). */
export type Reply = {
  label: string;
  text: string;
  usd: number;
  wallS: number;
  /** Transport attempts actually launched; 0 for a cache hit. */
  attempts: number;
  cached: boolean;
  channel: string;
  model: string;
  /** Path of the audit response file, or "" when no audit directory is configured. */
  audit: string;
  /** The harvested subfolder (e.g. the edited `context/harness`), or null when none was asked or found. */
  workspace: string | null;
  /**
   * Symlinks the session left in the harvested folder, relative to it: never copied (a link is
   * never followed out of a workspace), so a caller must not read their absence as a deletion.
   */
  skippedLinks?: string[];
};

export type CallOptions = {
  system?: string;
  /** Seconds per attempt; defaults to the channel spec's timeout. */
  timeoutS?: number;
  maxAttempts?: number;
  /** Sub-path of the session workspace to copy out before it is deleted, e.g. "context/harness". */
  harvest?: string;
  /** What the call is for, carried into its `proposer.call` event. */
  purpose?: "stage" | "selection" | "reflection" | "probe";
  /** Where the call happens, carried into its `proposer.call` event. */
  where?: { domain?: string; task?: string; mode?: "agg" | "seq"; k?: number };
  /**
   * The sweep's interrupt. Once aborted the call starts no session (and is not served from the
   * cache), a running session is killed, nothing is retried or cached, and the call throws an
   * InterruptedError carrying what it spent.
   */
  signal?: AbortSignal;
};

/** The narrow view of the Proposer that recursion, selection and reflection depend on. */
export interface ProposerLike {
  readonly channelKind: string;
  readonly model: string;
  /**
   * Runs (or serves from cache) one improver session over `contextDir`. Never returns an empty
   * text: every failure path throws a ProposerError carrying attempts and spent USD, except an
   * interrupt (`opts.signal`), which throws an InterruptedError (interrupt.ts).
   */
  call(
    mission: string,
    contextDir: string | null,
    label: string,
    opts?: CallOptions,
  ): Promise<Reply>;
}

/** Every failure of a proposer call. Never swallowed into an empty string. */
export class ProposerError extends Harness2Error {
  constructor(
    message: string,
    readonly attempts: number,
    readonly usd: number,
    readonly label: string,
  ) {
    super(message);
  }
}

/**
 * A channel that cannot run at all (binary missing, bad configuration). Permanent: the proposer
 * does not retry it with back-off (docs/differences.md E26).
 */
export class ChannelSetupError extends Harness2Error {
  constructor(
    message: string,
    readonly channel: string,
  ) {
    super(message);
  }
}
