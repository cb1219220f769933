// Watching an OpenCode session while it runs: the step watch that stops a runaway (past its
// step cap, empty step after step, failing without end, or silent too long) and the last error the
// CLI logged, so a stopped or timed-out session says why. Starts and kills nothing itself.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "./opencode.ts";

/** Consecutive steps without any content after which a session is taken for a runaway. */
export const EMPTY_STEPS_LIMIT = 5;
/** Steps a session may take past its own step cap before it is stopped. */
export const STEP_CAP_MARGIN = 2;

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
  #partial = "";
  #content = false;

  #idle: ReturnType<typeof setTimeout> | undefined;

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
    this.#arm();
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
    this.#idle = setTimeout(() => {
      const logged = this.opts.lastLogged?.() ?? "";
      const why = logged || this.lastError;
      this.#stop(
        `no progress: the session printed nothing for ${idleS}s${why ? ` (the CLI's last error: ${why})` : ""}`,
      );
    }, idleS * 1000);
    this.#idle.unref?.();
  }

  /** Feeds one chunk of stdout. */
  feed(chunk: Buffer | string): void {
    this.#arm();
    const text = this.#partial + chunk.toString();
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) this.#line(line.trim());
  }

  #line(line: string): void {
    if (!line.startsWith("{") || this.stopReason !== "") return;
    let ev: { type?: unknown; part?: { type?: unknown; text?: unknown }; error?: unknown };
    try {
      ev = JSON.parse(line);
    } catch {
      return;
    }
    const type = (typeof ev.part?.type === "string" ? ev.part.type : ev.type) as string;
    if (type === "text" || type === "reasoning") {
      if (typeof ev.part?.text === "string" && ev.part.text.trim() !== "") this.#content = true;
    } else if (type === "tool" || type === "tool_use") {
      this.#content = true;
    } else if (type === "error") {
      this.lastError = errorMessage(ev.error) || this.lastError;
      this.errorsInARow++;
      if (this.errorsInARow >= (this.opts.emptyLimit ?? EMPTY_STEPS_LIMIT)) {
        this.#stop(`the provider failed ${this.errorsInARow} times in a row: ${this.lastError}`);
      }
    } else if (type === "step-finish" || type === "step_finish") {
      this.steps++;
      this.emptyInARow = this.#content ? 0 : this.emptyInARow + 1;
      if (this.#content) this.errorsInARow = 0;
      this.#content = false;
      const why = this.lastError ? ` (the CLI's last error: ${this.lastError})` : "";
      if (this.emptyInARow >= (this.opts.emptyLimit ?? EMPTY_STEPS_LIMIT)) {
        this.#stop(`the model returned no content for ${this.emptyInARow} steps in a row${why}`);
      } else if (this.steps > this.stepCap + STEP_CAP_MARGIN) {
        this.#stop(`the session took ${this.steps} steps, past its cap of ${this.stepCap}`);
      }
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
