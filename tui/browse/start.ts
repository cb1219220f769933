// Runs the run browser full-screen until the user quits, then gives the terminal back as it was.
// Read-only: it shows what the BrowseSource reads and never changes the store.

import { render } from "ink";
import { createElement } from "react";
import { BrowseApp } from "./browse-app.tsx";
import type { BrowseSource } from "./source.ts";

export type BrowserOptions = {
  source: BrowseSource;
  color: boolean;
  /** Open this sweep first. */
  initialSweep?: string;
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
};

export async function runBrowser(opts: BrowserOptions): Promise<void> {
  let quit: () => void = () => {};
  const instance = render(
    createElement(BrowseApp, {
      source: opts.source,
      color: opts.color,
      ...(opts.initialSweep === undefined ? {} : { initialSweep: opts.initialSweep }),
      onQuit: () => quit(),
    }),
    {
      stdout: opts.stdout ?? process.stdout,
      stdin: opts.stdin ?? process.stdin,
      stderr: opts.stderr ?? process.stderr,
      exitOnCtrlC: false,
      // The CLI chose this screen for a terminal (a TTY, no --no-tui): Ink's own guess from a CI
      // variable would hold every frame back until exit.
      interactive: true,
      alternateScreen: true,
    },
  );
  quit = () => instance.unmount();
  await instance.waitUntilExit();
}
