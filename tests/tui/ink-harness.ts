// Renders an Ink tree into fake streams with a settable terminal size (ink-testing-library fixes
// the width and leaves the height to the real terminal), types keys, and waits on frames by
// condition with a deadline — never by a fixed sleep.

import { EventEmitter } from "node:events";
import { render } from "ink";
import type { ReactElement } from "react";

export class FakeStdout extends EventEmitter {
  readonly isTTY = true;
  readonly frames: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  /** Like a stream's write: the callback runs once the chunk is taken (Ink waits on it). */
  write = (chunk: string, ...rest: unknown[]): boolean => {
    this.frames.push(chunk);
    const done = rest.find((r): r is () => void => typeof r === "function");
    if (done) queueMicrotask(done);
    return true;
  };
}

export class FakeStdin extends EventEmitter {
  readonly isTTY = true;
  private pending: string[] = [];
  write(data: string): void {
    this.pending.push(data);
    this.emit("readable");
    this.emit("data", data);
  }
  read(): string | null {
    return this.pending.shift() ?? null;
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** Fake terminal streams for code that calls Ink's render itself (startLiveView, runHome, …). */
export function fakeTerminal(size = { columns: 100, rows: 40 }) {
  const stdout = new FakeStdout(size.columns, size.rows);
  const stdin = new FakeStdin();
  return {
    stdout,
    stdin,
    streams: {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: new FakeStdout(size.columns, size.rows) as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    },
    written: () => stdout.frames.join(""),
  };
}

export const KEYS = {
  tab: "\t",
  shiftTab: "\u001b[Z",
  left: "\u001b[D",
  right: "\u001b[C",
  up: "\u001b[A",
  down: "\u001b[B",
  enter: "\r",
  escape: "\u001b",
  ctrlC: "\u0003",
} as const;

export type Rendered = {
  lastFrame(): string;
  /** Everything written to the terminal, in order (what a real terminal would have received). */
  written(): string;
  /** How many frames Ink wrote (debug mode writes one per render). */
  frameCount(): number;
  type(keys: string): void;
  resize(columns: number, rows: number): void;
  /** Resolves once the last frame satisfies `ok`; rejects with the frame after `timeoutMs`. */
  waitFor(ok: (frame: string) => boolean, timeoutMs?: number): Promise<string>;
  unmount(): void;
};

/**
 * debug (the default) writes each render as one whole frame, static output included — what
 * lastFrame() reads. debug: false drives Ink as in a real terminal, for written().
 */
export function renderInk(
  tree: ReactElement,
  size = { columns: 100, rows: 40 },
  opts: { debug?: boolean } = {},
): Rendered {
  const stdout = new FakeStdout(size.columns, size.rows);
  const stdin = new FakeStdin();
  const instance = render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: new FakeStdout(size.columns, size.rows) as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: opts.debug ?? true,
    interactive: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const lastFrame = () => stdout.frames.at(-1) ?? "";
  return {
    lastFrame,
    written: () => stdout.frames.join(""),
    frameCount: () => stdout.frames.length,
    type: (keys) => stdin.write(keys),
    resize(columns, rows) {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit("resize");
    },
    async waitFor(ok, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const frame = lastFrame();
        if (ok(frame)) return frame;
        if (Date.now() > deadline) {
          const recent = stdout.frames.slice(-3).map((f) => JSON.stringify(f.slice(0, 300)));
          throw new Error(
            `no frame matched within ${timeoutMs} ms (${stdout.frames.length} writes); last writes:\n${recent.join("\n")}`,
          );
        }
        await new Promise((r) => setImmediate(r));
      }
    },
    unmount: () => instance.unmount(),
  };
}

/** Waits until Ink has drawn whatever was scheduled (a frame, or nothing new). */
export async function settle(r: Rendered): Promise<void> {
  let count = -1;
  let stable = 0;
  while (stable < 3) {
    await new Promise((res) => setImmediate(res));
    const now = r.frameCount();
    stable = now === count ? stable + 1 : 0;
    count = now;
  }
}
