// Running one OpenCode session under watch, for the executor and the improver channel alike: the
// step watch that stops a runaway (past its step cap, empty step after step, failing without end,
// or silent too long) and the last error the CLI logged, so a stopped or timed-out session says
// why (docs/differences.md X15).

import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ExitRecord, runProcess, type SpawnOptions } from "../core/lib/process.ts";
import { timerDelay } from "../core/lib/timer.ts";
import type { OpencodeCli } from "./opencode.ts";
import {
  decodeOpencodeLine,
  type OpencodeStreamFacts,
  OpencodeStreamTally,
} from "./opencode-stream.ts";

/** Consecutive steps without any content after which a session is taken for a runaway. */
export const EMPTY_STEPS_LIMIT = 5;
/** Steps a session may take past its own step cap before it is stopped. */
export const STEP_CAP_MARGIN = 2;

/** The reason of an idle stop, naming the CLI's last error when one is known. */
function idleReason(idleS: number, why: string): string {
  return `no progress: the session printed nothing for ${idleS}s${why ? ` (the CLI's last error: ${why})` : ""}`;
}

/**
 * Watches an OpenCode `--format json` stream while the session runs and decides when it has run
 * away: more steps than its cap allows (plus a margin), or `EMPTY_STEPS_LIMIT` steps in a row that
 * produced nothing (no text, tool call or reasoning — what a provider's malformed or failing
 * replies look like: OpenCode asks again at once, forever, and each request is paid for). The
 * last error the CLI reported is kept, so a stopped or timed-out session says why.
 */
export class StepWatch {
  steps = 0;
  emptyInARow = 0;
  errorsInARow = 0;
  lastError = "";
  /** Why the session must stop, once it must; "" until then. */
  stopReason = "";
  /** The pieces of the line not finished yet. */
  #partial: string[] = [];
  readonly #utf8 = new TextDecoder("utf-8");
  /** Everything the stream said so far, whether or not the watch still judges it. */
  readonly #tally = new OpencodeStreamTally();
  #content = false;
  /** Empty steps, or provider errors, in a row that stop the session. */
  readonly #limit: number;

  #idle: ReturnType<typeof setTimeout> | undefined;
  /** The idle limit of an idle stop that fired knowing no error yet; null otherwise. */
  #idleUnexplained: number | null = null;

  /**
   * `idleS`: seconds without any event after which the session is stopped as making no progress
   * (a provider failing with 5xx or 429: the CLI retries on its own and prints nothing);
   * `lastLogged` reads the CLI's last logged error for that message. 0 = no idle limit.
   */
  constructor(
    private readonly stepCap: number,
    private readonly onStop: (reason: string) => void,
    private readonly opts: { idleS?: number; emptyLimit?: number; lastLogged?: () => string } = {},
  ) {
    this.#limit = opts.emptyLimit ?? EMPTY_STEPS_LIMIT;
    this.#arm();
  }

  /**
   * Why the session was stopped, once its process has ended: an idle stop that knew no error
   * when it fired asks the CLI's log again (a busy CLI may have logged it while being stopped).
   */
  reasonAfterExit(): string {
    if (this.#idleUnexplained === null) return this.stopReason;
    const logged = this.opts.lastLogged?.() ?? "";
    return logged === "" ? this.stopReason : idleReason(this.#idleUnexplained, logged);
  }

  /** Stops the idle timer (call when the process ended). */
  done(): void {
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  #arm(): void {
    const idleS = this.opts.idleS ?? 0;
    if (idleS <= 0 || this.stopReason !== "") return;
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = setTimeout(
      () => {
        if (this.stopReason !== "") return;
        const why = this.opts.lastLogged?.() || this.lastError;
        if (why === "") this.#idleUnexplained = idleS;
        this.#stop(idleReason(idleS, why));
      },
      timerDelay(idleS * 1000),
    );
    this.#idle.unref?.();
  }

  /**
   * Feeds one chunk of stdout. An unfinished line is kept as its pieces and joined once, when its
   * newline arrives: a 20 MB event in 64 KB chunks costs one pass, not one pass per chunk.
   */
  feed(chunk: Buffer | string): void {
    this.#arm();
    const text = typeof chunk === "string" ? chunk : this.#utf8.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      const head = text.slice(start, nl);
      const line = this.#partial.length === 0 ? head : `${this.#partial.join("")}${head}`;
      this.#partial = [];
      this.#line(line);
      start = nl + 1;
    }
    if (start < text.length) this.#partial.push(text.slice(start));
  }

  /**
   * What the whole stream said, as readOpencodeStream reads it from the stream's file: every
   * event fed so far plus an unterminated last line (call once the process has ended).
   */
  parsed(): OpencodeStreamFacts {
    const last = this.#partial.join("") + this.#utf8.decode();
    this.#partial = [];
    if (last !== "") this.#line(last);
    return this.#tally.facts();
  }

  #line(line: string): void {
    const ev = decodeOpencodeLine(line);
    if (ev === null) return;
    this.#tally.see(ev);
    if (this.stopReason !== "") return;
    switch (ev.kind) {
      case "text":
      case "reasoning":
        if (ev.text.trim() !== "") this.#content = true;
        return;
      case "tool":
        this.#content = true;
        return;
      case "error":
        this.lastError = ev.message || this.lastError;
        this.errorsInARow++;
        if (this.errorsInARow >= this.#limit) {
          this.#stop(`the provider failed ${this.errorsInARow} times in a row: ${this.lastError}`);
        }
        return;
      case "step":
        this.#stepFinished();
        return;
      default:
        return;
    }
  }

  #stepFinished(): void {
    this.steps++;
    this.emptyInARow = this.#content ? 0 : this.emptyInARow + 1;
    if (this.#content) this.errorsInARow = 0;
    this.#content = false;
    const why = this.lastError ? ` (the CLI's last error: ${this.lastError})` : "";
    if (this.emptyInARow >= this.#limit) {
      this.#stop(`the model returned no content for ${this.emptyInARow} steps in a row${why}`);
    } else if (this.steps > this.stepCap + STEP_CAP_MARGIN) {
      this.#stop(`the session took ${this.steps} steps, past its cap of ${this.stepCap}`);
    }
  }

  #stop(reason: string): void {
    if (this.stopReason !== "") return;
    this.stopReason = reason;
    this.done();
    this.onStop(reason);
  }
}

/**
 * The last error OpenCode logged in a session's own data folder (`<sessionDir>/xdg/data/opencode/
 * log/*.log`, `error.error="…"`), or "". A provider failing with 5xx or 429 shows only there.
 */
export function lastLoggedError(sessionDir: string): string {
  const dir = join(sessionDir, "xdg", "data", "opencode", "log");
  let last = "";
  try {
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith(".log")) continue;
      const text = readFileSync(join(dir, name), "utf8");
      for (const m of text.matchAll(/level=ERROR[^\n]*?error\.error="([^"]*)"/g))
        last = m[1] ?? last;
    }
  } catch {
    return "";
  }
  return last.length > 300 ? `${last.slice(0, 299)}…` : last;
}

/** How a watched session ended. */
export type WatchedSession = {
  exit: ExitRecord;
  /** What its event stream said, read as it arrived (the stream itself is in `stdoutFile`). */
  parsed: OpencodeStreamFacts;
  /** Why the watch stopped it as a runaway; "" when it did not. */
  stopReason: string;
  /**
   * The last error the CLI reported on its stream; for a session that timed out, else the last one
   * it logged (the log is read only then). "" when none.
   */
  lastError: string;
};

/**
 * Runs one OpenCode session with `spawn` (argv, env, workspace, stream files) under a StepWatch:
 * creates the session's private HOME and XDG folders under `sessionDir` first, stops it once the
 * watch says it ran away (or `signal` aborts), and reads its event stream as it arrives. Throws SpawnError
 * when opencode cannot start.
 */
export async function runWatchedSession(
  cli: OpencodeCli,
  spawn: Omit<SpawnOptions, "signal" | "onStdout"> & { stdoutFile: string },
  session: { sessionDir: string; steps: number; signal?: AbortSignal },
): Promise<WatchedSession> {
  const { sessionDir } = session;
  for (const d of ["xdg/data", "xdg/state", "xdg/config", "xdg/cache", "home"]) {
    mkdirSync(join(sessionDir, d), { recursive: true });
  }
  const runaway = new AbortController();
  const watch = new StepWatch(session.steps, () => runaway.abort(), {
    idleS: cli.idleS,
    lastLogged: () => lastLoggedError(sessionDir),
  });
  let exit: ExitRecord;
  try {
    exit = await runProcess({
      ...spawn,
      signal: session.signal ? AbortSignal.any([session.signal, runaway.signal]) : runaway.signal,
      onStdout: (chunk) => watch.feed(chunk),
    });
  } finally {
    watch.done();
  }
  return {
    exit,
    parsed: watch.parsed(),
    stopReason: session.signal?.aborted ? "" : watch.reasonAfterExit(),
    lastError: watch.lastError || (exit.timedOut ? lastLoggedError(sessionDir) : ""),
  };
}
