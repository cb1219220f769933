// `harness2 browse` named by the sweep's flags, in a real terminal (tmux at 120×40 on its own
// socket): the flags open the newest matching sweep; flags no sweep matches are one line and exit
// 1, as for show, judge and report. Skipped, with the reason printed, where tmux is not installed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { type BrowseFixture, browseFixture } from "./browse-fixture.ts";

const ROOT = join(import.meta.dir, "..", "..");
const MAIN = join(ROOT, "src", "cli", "main.ts");
const TMUX = Bun.which("tmux");
const SOCKET = `h2browse-${process.pid}`;

if (!TMUX) console.log("browse.test.ts: skipped — tmux is not installed");

function tmux(...args: string[]): string {
  const r = Bun.spawnSync([TMUX as string, "-L", SOCKET, ...args], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

async function waitForScreen(session: string, ok: (text: string) => boolean, what: string) {
  // The first start of the CLI transpiles every module: a readiness wait with a generous deadline.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const text = tmux("capture-pane", "-p", "-t", session);
    if (ok(text)) return text;
    if (Date.now() > deadline) throw new Error(`never saw ${what}; the screen was:\n${text}`);
    await Bun.sleep(50);
  }
}

/** Starts `harness2 browse ARGS` in its own tmux session; the shell prints EXIT=<code> after. */
function startBrowse(session: string, args: string[]): void {
  const command = [
    `cd '${ROOT}'`,
    `CI=false '${process.execPath}' '${MAIN}' browse --runs '${fx.dir}' ${args.join(" ")}`,
    "echo EXIT=$?",
    "sleep 60",
  ].join("; ");
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command);
}

let fx: BrowseFixture;
beforeAll(() => {
  fx = browseFixture();
});
afterAll(() => {
  if (TMUX) {
    try {
      tmux("kill-server");
    } catch {
      // no session was started, or the server is already gone
    }
  }
  fx.cleanup();
});

describe.skipIf(!TMUX)("harness2 browse by the sweep's flags", () => {
  test(
    "--bench demo --k 2 opens the newest sweep that ran k=2, and q quits with 0",
    async () => {
      startBrowse("cell", ["--bench", "demo", "--k", "2"]);
      const s = await waitForScreen("cell", (t) => t.includes(`sweep ${fx.older}`), "the sweep");
      expect(s).toContain("tasks 3 ok, 1 failed, 0 running, 0 skipped of 4");
      expect(s).not.toContain(fx.newer);
      tmux("send-keys", "-t", "cell", "q");
      await waitForScreen("cell", (t) => t.includes("EXIT=0"), "exit 0");
    },
    { timeout: 150_000 },
  );

  test(
    "flags no sweep matches: one line and exit 1, before any screen is drawn",
    async () => {
      startBrowse("nomatch", ["--bench", "demo", "--k", "1", "--mode", "sequential"]);
      const s = await waitForScreen("nomatch", (t) => t.includes("EXIT="), "the exit");
      expect(s).toContain(
        "harness2 browse: no sweep matches --bench demo --k 1 --mode sequential in",
      );
      expect(s).toContain("EXIT=1");
    },
    { timeout: 150_000 },
  );
});

describe("harness2 browse: the sweep's flags on a bad command line", () => {
  test("RUN and flags together, or a bad --mode, are usage errors (exit 2)", async () => {
    const both = await runCli(["browse", "last", "--bench", "demo", "--runs", fx.dir]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("either by RUN or by its flags, not both");
    const mode = await runCli(["browse", "--mode", "diagonal", "--runs", fx.dir]);
    expect(mode.code).toBe(2);
    expect(mode.stderr.trim().split("\n")).toHaveLength(1);
    expect(mode.stderr).toContain('--mode: mode "diagonal" is not allowed');
  });
});
