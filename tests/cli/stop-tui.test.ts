// The stop keys in the live view of a real terminal (tmux on its own server socket): the first q
// only asks (another key withdraws it), the second asks for a graceful stop, the third stops at
// once even though the work in hand ignores the second — exit 130, the sweep recorded as
// interrupted, and one closing line with what was kept and the command that resumes. Skipped,
// with the reason printed, without tmux.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../store/db.ts";
import { listSweeps } from "../../store/sweep-list.ts";
import { removeTempDirs, tempDir } from "../core/fakes.ts";

const ROOT = join(import.meta.dir, "..", "..");
const TMUX = Bun.which("tmux");
const SOCKET = `h2stop-${process.pid}`;
const SESSION = "stop";

if (!TMUX) console.log("stop-tui.test.ts: skipped — tmux is not installed");

function tmux(...args: string[]): string {
  const r = Bun.spawnSync([TMUX as string, "-L", SOCKET, ...args], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

const screen = () => tmux("capture-pane", "-p", "-t", SESSION);

async function waitFor(ok: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`never saw ${what}; the screen was:\n${screen()}`);
    await Bun.sleep(50);
  }
}

afterAll(() => {
  if (TMUX) {
    try {
      tmux("kill-server");
    } catch {
      // The server is already gone.
    }
  }
  removeTempDirs();
});

describe.skipIf(!TMUX)("the live view's stop keys", () => {
  test("q then q stops a sweep whose work ignores the first q: exit 130 at once, store says interrupted", async () => {
    const root = tempDir("stop-tui");
    const command = [
      `cd '${ROOT}'`,
      // A person's terminal: CI=false, or Ink (is-in-ci) draws only a final frame under CI.
      `CI=false '${process.execPath}' '${join(ROOT, "tests/cli/stop-child.ts")}' '${root}' tui`,
      "echo EXIT=$?",
      "sleep 60",
    ].join("; ");
    tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", command);
    // A cold first start on a loaded machine transpiles every module: a readiness wait.
    await waitFor(() => existsSync(join(root, "executing")), "an execution start", 120_000);
    // The first q only asks: nothing is stopped yet, and another key answers "go on".
    tmux("send-keys", "-t", SESSION, "q");
    await waitFor(
      () => screen().includes("stop? running work is cancelled"),
      "the question",
      20_000,
    );
    tmux("send-keys", "-t", SESSION, "x");
    await waitFor(() => !screen().includes("stop?"), "the question withdrawn", 20_000);
    expect(screen()).not.toContain("EXIT=");
    tmux("send-keys", "-t", SESSION, "q");
    await waitFor(() => screen().includes("stop? running work"), "the question again", 20_000);
    tmux("send-keys", "-t", SESSION, "q");
    await waitFor(() => screen().includes("stopping: running work"), "the stop request", 20_000);
    const sent = performance.now();
    tmux("send-keys", "-t", SESSION, "q");
    await waitFor(() => screen().includes("EXIT="), "the process exit", 10_000);
    expect((performance.now() - sent) / 1000).toBeLessThan(5);
    expect(screen()).toContain("EXIT=130");
    // One line says what was kept, what was lost and the exact command that resumes.
    expect(screen().replaceAll("\n", "")).toMatch(
      /interrupted: 0 task\(s\) finished and kept; the unfinished work of t1 resumes from its last checkpoint\. Resume with: \S*harness2 run --bench fake --k 1/,
    );

    const db = openStore(join(root, "harness2.db"), { create: false });
    try {
      expect(listSweeps(db).map((s) => s.status)).toEqual(["interrupted"]);
    } finally {
      db.close();
    }
  }, 180_000);
});
