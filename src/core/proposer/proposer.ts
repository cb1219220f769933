// The proposer loop (docs/method.md §4): one improver call = cache lookup, then up to N transport
// attempts, each in a fresh workspace holding a copy of the evidence as `context/`, through the
// process-wide session limiter; harvest, audit, Reply. It never returns an empty text: every
// failure ends in a ProposerError carrying attempts and spent USD (an interrupt in an
// InterruptedError); it never starts another session once one has answered, and it never copies
// anything out of a session through a symlink.

import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { ProposerCall } from "../events/registry.ts";
import { type Clock, type EventSink, emit, NULL_SINK, SYSTEM_CLOCK } from "../events/sink.ts";
import { describeError } from "../lib/errors.ts";
import { hashDirectory } from "../lib/fingerprint.ts";
import { InterruptedError, runningSignal, throwIfInterrupted } from "../lib/interrupt.ts";
import { Limiter } from "../lib/limiter.ts";
import { roundUsd } from "../lib/money.ts";
import { copyTreeSafe, dirExists } from "../lib/safe-fs.ts";
import { ownedTempDir, removeTreeSoon } from "../lib/temp-dirs.ts";
import { timerDelay } from "../lib/timer.ts";
import {
  type CallOptions,
  type Channel,
  ChannelSetupError,
  ProposerError,
  type ProposerLike,
  type Reply,
} from "../seams/channel.ts";
import type { ChannelSpec } from "../seams/channel-spec.ts";
import { AuditFolder } from "./audit.ts";

/** Reply files of one call in the audit directory share this stem: `<safe label>.<cache key>`. */
export function auditStem(label: string, key: string): string {
  return `${label.replace(/[^A-Za-z0-9_.-]+/g, "_")}.${key}`;
}

/** Improver sessions running at once across the whole process (all proposers share it). */
let processSessions = new Limiter(2);

/** Sets the process-wide session limit (`HARNESS2_SESSION_LIMIT`; ≤ 0 = unlimited). */
export function setSessionLimit(limit: number): void {
  processSessions = new Limiter(limit);
}

export function sessionLimiter(): Limiter {
  return processSessions;
}

export type ProposerConfig = {
  channel: Channel;
  spec: ChannelSpec;
  /** Flat folder of mission/system/response/meta files and harvested workspaces; null = no audit, no cache. */
  auditDir: string | null;
  /**
   * The evidence folder enters the cache key relative to this root, so moving a runs directory
   * keeps its cache (docs/differences.md E25).
   */
  runsRoot: string;
  /** Transport attempts per call (default 2). */
  attempts?: number;
  /** Back-off before attempt a (a ≥ 2) is backoffS × (a − 1) seconds, ±20 % jitter. */
  backoffS?: number;
  sink?: EventSink;
  clock?: Clock;
  sweep?: string;
  /** Where temporary session workspaces are made (default: the OS temp dir). */
  tmpRoot?: string;
  /** Override of the process-wide limiter (tests). */
  limiter?: Limiter;
  sleep?: (ms: number) => Promise<void>;
};

type AttemptOutcome = { text: string; usd: number; error: string };

/** A session's non-blank reply, with what its harvest brought back (or why it could not). */
type Answer = {
  text: string;
  attempts: number;
  workspace: string | null;
  skippedLinks: string[];
  harvestError: string;
};

export class Proposer implements ProposerLike {
  readonly channelKind: string;
  readonly model: string;
  readonly #cfg: ProposerConfig;
  readonly #audit: AuditFolder;
  /** Every reply this proposer produced or served, in order (cached, fresh). */
  readonly calls: Reply[] = [];

  constructor(cfg: ProposerConfig) {
    if (cfg.spec.model.trim() === "") {
      throw new ChannelSetupError(
        "no improver model is set: set HARNESS2_IMPROVER_MODEL (provider/model for opencode, a bare id for claude_cli or codex)",
        cfg.spec.kind,
      );
    }
    this.#cfg = cfg;
    this.channelKind = cfg.channel.kind;
    this.model = cfg.spec.model;
    this.#audit = new AuditFolder(
      cfg.auditDir,
      cfg.tmpRoot,
      cfg.channel.kind,
      cfg.spec.model,
      cfg.spec.effort,
    );
  }

  async call(
    mission: string,
    contextDir: string | null,
    label: string,
    opts: CallOptions = {},
  ): Promise<Reply> {
    const cfg = this.#cfg;
    const clock = cfg.clock ?? SYSTEM_CLOCK;
    const signal = opts.signal;
    throwIfInterrupted(signal, `improver call ${label}`);
    const system = opts.system ?? "";
    const harvest = opts.harvest ? normaliseHarvest(opts.harvest) : null;
    const key = await this.cacheKey(label, mission, system, contextDir);
    const stem = auditStem(label, key);

    const cached = this.#audit.cached(label, stem, harvest !== null);
    if (cached) {
      this.#record(cached, opts, "");
      return cached;
    }

    const tries = Math.max(1, opts.maxAttempts ?? cfg.attempts ?? 2);
    const wallLimit = opts.timeoutS ?? cfg.spec.timeout;
    let spent = 0;
    let last = "";
    let launched = 0;
    let busyMs = 0;
    let interrupted = false;
    let answer: Answer | null = null;
    // A session is killed by a user's stop, never by a soft one (a spending cap): what a running
    // session was paying for is kept (docs/method.md "Spending cap").
    const running = runningSignal(signal);
    try {
      for (let a = 1; a <= tries; a++) {
        if (a > 1) await this.#backoff(a, signal);
        // An interrupted call is never retried.
        if (signal?.aborted) {
          interrupted = true;
          break;
        }
        const started = clock.now();
        const tmp = ownedTempDir("prop", cfg.tmpRoot ?? tmpdir());
        try {
          const workspace = join(tmp, "work");
          const sessionDir = join(tmp, "session");
          mkdirSync(workspace, { recursive: true });
          mkdirSync(sessionDir, { recursive: true });
          const context = this.#prepare(workspace, contextDir, harvest);
          const outcome = await this.#attempt(
            { workspace, context, sessionDir, mission, system, timeoutS: wallLimit },
            { start: signal, running: running.signal },
            () => {
              launched = a;
            },
          );
          spent += outcome.usd; // fix: a timed-out or failed attempt's reported spend still counts
          // A session killed by the interrupt is no reply, whatever text it left: never cached.
          if (running.signal?.aborted) {
            interrupted = true;
            break;
          }
          if (outcome.text.trim() === "") {
            last = outcome.error || "empty reply";
            continue;
          }
          // The session answered: whatever fails from here on is local and starts no other session
          // (fix docs/differences.md E31: the original re-ran the model when a copy or a write
          // failed).
          answer = {
            text: outcome.text,
            attempts: a,
            workspace: null,
            skippedLinks: [],
            harvestError: "",
          };
          if (harvest) {
            try {
              // An in-place channel runs in this process (WorkspaceNeed): its folder can be moved.
              const inProcess = cfg.channel.workspace === "in-place";
              const got = this.#audit.harvest(workspace, harvest, stem, inProcess);
              answer.workspace = got?.dir ?? null;
              answer.skippedLinks = got?.skippedLinks ?? [];
            } catch (err) {
              answer.harvestError = describeError(err);
              this.#audit.dropWorkspace(stem); // a half copy must never be served as a cache hit
            }
          }
          break;
        } catch (err) {
          if (err instanceof InterruptedError || running.signal?.aborted) {
            interrupted = true;
            break;
          }
          if (err instanceof ChannelSetupError) {
            // Permanent: retrying a missing binary with back-off only wastes minutes.
            last = err.message;
            break;
          }
          last = describeError(err);
        } finally {
          busyMs += clock.now() - started;
          void removeTreeSoon(tmp);
        }
      }
    } finally {
      running.done();
    }
    // Wall time excludes back-off sleeps: it is time spent in sessions (docs/differences.md E30).
    const wallS = Math.round(busyMs / 100) / 10;
    if (answer !== null && answer.harvestError === "") {
      const reply: Reply = {
        label,
        text: answer.text,
        usd: roundUsd(spent),
        wallS,
        attempts: answer.attempts,
        cached: false,
        channel: this.channelKind,
        model: this.model,
        audit: "",
        workspace: answer.workspace,
        ...(answer.workspace !== null ? { skippedLinks: answer.skippedLinks } : {}),
      };
      // A reply whose audit could not be written is still the reply; the event carries a note.
      const audit = this.#audit.tryWrite(stem, mission, system, reply, "");
      reply.audit = audit.path;
      this.#record(reply, opts, audit.note);
      return reply;
    }
    if (answer !== null) {
      // The harness did not come back because of a local failure, not the model's doing: the
      // stage falls back with this error rather than asking the model again (and paying again).
      last = `the session answered but its harness could not be copied out: ${answer.harvestError}; no new session was started`;
      launched = answer.attempts;
    }

    const failed: Reply = {
      label,
      text: "",
      usd: roundUsd(spent),
      wallS,
      attempts: launched,
      cached: false,
      channel: this.channelKind,
      model: this.model,
      audit: "",
      workspace: null,
    };
    if (interrupted) last = "interrupted";
    const audit = this.#audit.tryWrite(stem, mission, system, failed, last);
    failed.audit = audit.path;
    this.#record(failed, opts, audit.note === "" ? last : `${last}; ${audit.note}`);
    if (interrupted) {
      throw new InterruptedError(
        `[${label}] ${this.channelKind}/${this.model}: interrupted`,
        roundUsd(spent),
      );
    }
    throw new ProposerError(
      `[${label}] ${this.channelKind}/${this.model}: ${last}`,
      launched,
      roundUsd(spent),
      label,
    );
  }

  /**
   * Content address of a call: label, mission, system, channel kind, model, effort and steps (fix
   * of docs/differences.md E25: the original left them out, so switching the model,
   * HARNESS2_PROPOSER_EFFORT or HARNESS2_PROPOSER_STEPS served stale replies), the evidence
   * folder's path relative to the runs root, and every file's path and bytes (streamed by
   * hashDirectory).
   */
  async cacheKey(
    label: string,
    mission: string,
    system: string,
    contextDir: string | null,
  ): Promise<string> {
    const h = createHash("sha256");
    const { effort, steps } = this.#cfg.spec;
    for (const part of [label, mission, system, this.channelKind, this.model, effort, `${steps}`]) {
      h.update(part, "utf8");
      h.update("\0");
    }
    if (contextDir !== null) {
      const abs = resolve(contextDir);
      const rel = relative(resolve(this.#cfg.runsRoot), abs);
      h.update(rel.startsWith("..") || isAbsolute(rel) ? abs : rel, "utf8");
      h.update("\0");
      if (dirExists(abs)) h.update(await hashDirectory(abs, { algorithm: "sha256" }));
    }
    return h.digest("hex").slice(0, 16);
  }

  /**
   * Lays out a session's workspace as its channel needs (see WorkspaceNeed) and returns where the
   * session reads the evidence. An in-place channel gets a private copy of only the harvested part
   * of `context/` (the harness it edits); everything else it reads from the evidence folder.
   */
  #prepare(workspace: string, contextDir: string | null, harvest: string | null): string | null {
    if (contextDir === null || !dirExists(contextDir)) return null;
    if (this.#cfg.channel.workspace !== "in-place") {
      copyTreeSafe(contextDir, join(workspace, "context"));
      return join(workspace, "context");
    }
    if (harvest?.startsWith("context/")) {
      const part = join(contextDir, harvest.slice("context/".length));
      if (dirExists(part)) copyTreeSafe(part, join(workspace, harvest));
    }
    return contextDir;
  }

  /** One session through the limiter; `onLaunch` runs only when the session really starts. */
  async #attempt(
    req: {
      workspace: string;
      context: string | null;
      sessionDir: string;
      mission: string;
      system: string;
      timeoutS: number;
    },
    signals: { start: AbortSignal | undefined; running: AbortSignal | undefined },
    onLaunch: () => void,
  ): Promise<AttemptOutcome> {
    const cfg = this.#cfg;
    const limiter = cfg.limiter ?? processSessions;
    const result = await limiter.run(() => {
      // Stopped while waiting for a session slot, softly or not: no session starts.
      throwIfInterrupted(signals.start, "an improver session");
      onLaunch();
      const signal = signals.running;
      return cfg.channel.run({
        ...req,
        model: cfg.spec.model,
        effort: cfg.spec.effort,
        steps: cfg.spec.steps,
        ...(signal ? { signal } : {}),
      });
    });
    const timeoutS = req.timeoutS;
    // A timeout keeps the cause the channel knew (the CLI's last error, a provider's HTTP 500).
    const error = result.timedOut ? result.error || `timeout after ${timeoutS}s` : result.error;
    return { text: result.timedOut ? "" : result.text, usd: result.usd, error };
  }

  #record(reply: Reply, opts: CallOptions, error: string): void {
    this.calls.push(reply);
    const cfg = this.#cfg;
    const sink = cfg.sink ?? NULL_SINK;
    emit(sink, ProposerCall, {
      ts: (cfg.clock ?? SYSTEM_CLOCK).now(),
      sweep: cfg.sweep ?? "adhoc",
      domain: opts.where?.domain,
      task: opts.where?.task,
      mode: opts.where?.mode,
      k: opts.where?.k,
      label: reply.label,
      purpose: opts.purpose ?? "stage",
      attempts: reply.attempts,
      channel: reply.channel,
      model: reply.model,
      cached: reply.cached,
      wallS: reply.wallS,
      usd: reply.usd,
      error,
      auditPath: reply.audit,
    });
  }

  /** Sleeps before attempt `attempt`; an interrupt ends the sleep at once. */
  async #backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const base = (this.#cfg.backoffS ?? 10) * (attempt - 1) * 1000;
    if (base <= 0 || signal?.aborted) return;
    const ms = Math.max(0, base + base * 0.2 * (Math.random() * 2 - 1));
    const sleep = this.#cfg.sleep;
    await new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      signal?.addEventListener("abort", done, { once: true });
      if (sleep) sleep(ms).then(done, done);
      else timer = setTimeout(done, timerDelay(ms));
    });
  }
}

function normaliseHarvest(sub: string): string {
  const parts = sub.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.length === 0 || parts.includes("..") || sub.startsWith("/")) {
    throw new ProposerError(
      `harvest path '${sub}' must be a relative sub-path of the workspace`,
      0,
      0,
      "",
    );
  }
  return parts.join("/");
}
