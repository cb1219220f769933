// Starts the live run view for `harness2 run` / `harness2 demo`: mounts the Ink app and hands back
// the EventSink the run emits into. The caller owns the run; this module never starts or stops it,
// it only reports the user's stop requests through the callbacks.

import { render } from "ink";
import { createElement } from "react";
import type { EventSink } from "../../src/core/events/sink.ts";
import { colorWanted } from "../../src/core/lib/format.ts";
import { FrameBatcher } from "./batcher.ts";
import { LiveApp } from "./live-app.tsx";

export type LiveViewOptions = {
  /** What to call the run until sweep.started names it, e.g. "demo". */
  sweepLabel: string;
  /** Colours on: a terminal and no NO_COLOR. */
  color: boolean;
  /** The user pressed q once: start nothing new, leave in-flight work to resume. */
  onStopRequest: () => void;
  /** The user pressed q again or Ctrl-C: stop at once. */
  onForceStop: () => void;
  /** Streams (default: the process's own). */
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
};

export type LiveView = {
  /** Emit every run event here (fan it out with the store's writer). Never throws. */
  sink: EventSink;
  /** Folds in the last events, draws the final frame and unmounts; the frame stays on screen. */
  done(): Promise<void>;
};

/** Whether the live view should use colour: as every command decides (NO_COLOR, FORCE_COLOR). */
export function colorEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  return colorWanted(env, isTTY);
}

export function startLiveView(opts: LiveViewOptions): LiveView {
  const batcher = new FrameBatcher();
  const instance = render(
    createElement(LiveApp, {
      batcher,
      sweepLabel: opts.sweepLabel,
      color: opts.color,
      onStopRequest: opts.onStopRequest,
      onForceStop: opts.onForceStop,
    }),
    {
      stdout: opts.stdout ?? process.stdout,
      stdin: opts.stdin ?? process.stdin,
      stderr: opts.stderr ?? process.stderr,
      // Ctrl-C is a key of the view (force stop), handled by the caller's callback.
      exitOnCtrlC: false,
      // The CLI chose this screen for a terminal (a TTY, no --no-tui): Ink's own guess from a CI
      // variable would hold every frame back until exit.
      interactive: true,
      maxFps: 30,
    },
  );
  let finished: Promise<void> | null = null;
  return {
    sink: batcher,
    done() {
      finished ??= (async () => {
        batcher.close();
        await instance.waitUntilRenderFlush();
        instance.unmount();
        await instance.waitUntilExit();
      })();
      return finished;
    },
  };
}
