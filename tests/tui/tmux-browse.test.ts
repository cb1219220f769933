// `harness2 browse` in a real terminal: tmux runs it at 120×40 on its own server socket, the test
// sends keys and waits (polling capture-pane, with a deadline) for what should appear. Skipped,
// with the reason printed, where tmux is not installed.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "../helpers/temp.ts";
import { browseScenario, type StoreFixture, storeWith, writeHarnesses } from "./store-fixture.ts";

const ROOT = join(import.meta.dir, "..", "..");
const MAIN = join(ROOT, "src", "cli", "main.ts");
const TMUX = Bun.which("tmux");
const SOCKET = `h2tui-${process.pid}`;
const SESSION = "browse";

if (!TMUX) console.log("tmux-browse.test.ts: skipped — tmux is not installed");

function tmux(...args: string[]): string {
  const r = Bun.spawnSync([TMUX as string, "-L", SOCKET, ...args], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

const screen = () => tmux("capture-pane", "-p", "-t", SESSION);

async function waitForScreen(ok: (text: string) => boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = screen();
    if (ok(text)) return text;
    if (Date.now() > deadline) throw new Error(`never saw ${what}; the screen was:\n${text}`);
    await Bun.sleep(50);
  }
}

const keys = (...k: string[]) => tmux("send-keys", "-t", SESSION, ...k);

/** Whether the browser has put its terminal in raw mode (it reads keys from then on). */
function rawMode(): boolean {
  const tty = tmux("display-message", "-p", "-t", SESSION, "#{pane_tty}").trim();
  const r = Bun.spawnSync(["stty", "-a", "-F", tty], { stderr: "pipe" });
  return r.exitCode === 0 && /(^|\s)-icanon(\s|$)/.test(r.stdout.toString());
}

async function waitForRawMode(ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!rawMode()) {
    if (Date.now() > deadline) throw new Error("the browser never put its terminal in raw mode");
    await Bun.sleep(50);
  }
}

let fixture: StoreFixture;
let pagerGot = "";
beforeAll(() => {
  if (!TMUX) return;
  const dir = testTempDir("h2-tmux-");
  const harnesses = join(dir, "h");
  fixture = storeWith(browseScenario(harnesses), dir);
  writeHarnesses(harnesses);
  // A pager as a terminal program is one: it switches to the alternate screen, reads its stdin
  // (kept in a file for the test) and switches back when it ends.
  pagerGot = join(dir, "pager-got.txt");
  const pager = join(dir, "pager.sh");
  writeFileSync(
    pager,
    `#!/bin/sh\nprintf '\\033[?1049hPAGER SHOWING\\n'\ncat > '${pagerGot}'\nsleep 1\nprintf '\\033[?1049l'\n`,
    { mode: 0o755 },
  );
  const command = [
    `cd '${ROOT}'`,
    // A person's terminal: CI=false, or Ink (is-in-ci) draws only a final frame under CI.
    `CI=false PAGER='${pager}' '${process.execPath}' '${MAIN}' browse --runs '${fixture.runsDir}'`,
    "echo EXIT=$?",
    "sleep 60",
  ].join("; ");
  tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", command);
});

afterAll(() => {
  if (!TMUX) return;
  try {
    tmux("kill-server");
  } catch {
    // The server is already gone.
  }
  fixture.cleanup();
});

describe.skipIf(!TMUX)("harness2 browse in tmux", () => {
  test("walks sweeps → tasks → a stage with its real harness diff, back, and quits with 0", async () => {
    // The first start of the CLI in a fresh clone transpiles every module: allow for a slow,
    // loaded machine (this is a readiness wait, not a sleep).
    let s = await waitForScreen((t) => t.includes("sweeps (2)"), "the sweeps list", 120_000);
    expect(s).toMatch(/▶ swp_20261130_unfinished .*unfinished/);
    // The first frame can be drawn before the keyboard is read: wait for raw mode, not for time.
    await waitForRawMode();
    keys("Enter");
    s = await waitForScreen(
      (t) => t.includes("tasks 0 ok, 1 failed, 0 running, 1 stopped"),
      "the sweep",
    );
    expect(s).toMatch(/▶ ledger-1 .*partial/);
    keys("Enter");
    s = await waitForScreen((t) => t.includes("task ledger-1 k=2 in acct"), "the task");
    keys("Down");
    await waitForScreen((t) => /▶ {3}dom1 /.test(t), "the cursor on dom1");
    keys("Enter");
    s = await waitForScreen((t) => t.includes("stage dom1 (DOM)"), "the stage");
    expect(s).toContain("status fell back · attempts 2");
    // The diff is taken by the CLI from the harness folders on disk.
    s = await waitForScreen((t) => t.includes("+Sum every amount, refunds included."), "the diff");
    expect(s).toContain("--- a/base/AGENTS.md");
    expect(s).toContain("-Sum every amount.");
    keys("Escape");
    await waitForScreen((t) => t.includes("task ledger-1 k=2 in acct"), "the task again");
    // p: the pager gets the screen and the terminal; the browser draws itself again after it
    keys("p");
    await waitForScreen((t) => t.includes("PAGER SHOWING"), "the pager");
    s = await waitForScreen((t) => t.includes("back from the pager"), "the browser again");
    expect(s).toContain("task ledger-1 k=2 in acct");
    expect(readFileSync(pagerGot, "utf8")).toContain("task ledger-1 k=2 in acct");
    // / searches the screen: the cursor goes to the first rollout row of base2
    await waitForRawMode();
    keys("/");
    keys("-l", "base2");
    keys("Enter");
    await waitForScreen((t) => /▶ {3}\S+\s+│ base2/.test(t), "the cursor on base2");
    keys("q");
    await waitForScreen((t) => t.includes("EXIT=0"), "the exit code");
  }, 240_000);
});
