// Shows the home screen until the user picks something, gives the terminal back, then carries out
// the choice through the callbacks the CLI passes (so the demo or the browser gets a clean screen).

import { render } from "ink";
import { createElement } from "react";
import type { SweepSummary } from "../../store/views.ts";
import { HomeApp, type HomeChoice } from "./home-app.tsx";

export type HomeActions = {
  demo(): Promise<number>;
  resume(sweep: SweepSummary): Promise<number>;
  browse(): Promise<number>;
  help(): Promise<number> | number;
};

export type HomeOptions = {
  version: string;
  location: string;
  sweeps: SweepSummary[] | null;
  color: boolean;
  actions: HomeActions;
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
};

/** Waits for the user's choice on the home screen (quit when the app ends without one). */
export async function chooseOnHome(opts: Omit<HomeOptions, "actions">): Promise<HomeChoice> {
  let choice: HomeChoice = { action: "quit" };
  let finish: () => void = () => {};
  const instance = render(
    createElement(HomeApp, {
      version: opts.version,
      location: opts.location,
      sweeps: opts.sweeps,
      color: opts.color,
      onChoose: (c: HomeChoice) => {
        choice = c;
        finish();
      },
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
  finish = () => instance.unmount();
  await instance.waitUntilExit();
  return choice;
}

/**
 * The home screen, then the chosen action; resolves with the action's exit code (0 on quit).
 * Browsing comes back to the home screen when the browser is left (q), as from any other screen.
 */
export async function runHome(opts: HomeOptions): Promise<number> {
  for (;;) {
    const choice = await chooseOnHome(opts);
    switch (choice.action) {
      case "demo":
        return opts.actions.demo();
      case "resume":
        return opts.actions.resume(choice.sweep);
      case "browse": {
        const code = await opts.actions.browse();
        if (code !== 0) return code;
        continue;
      }
      case "help":
        return opts.actions.help();
      case "quit":
        return 0;
    }
  }
}
