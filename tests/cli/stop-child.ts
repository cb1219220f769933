// A sweep run through the CLI's sweep session whose executions never return and ignore the
// abort signal, so a graceful stop can never finish it: only the forced stop ends this process.
// Usage: bun stop-child.ts ROOT [tui] — prints "executing" (and writes ROOT/executing) once an
// execution hangs; with `tui` it shows the live view, as in a person's terminal.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSweepSession } from "../../src/cli/sweep/sweep-session.ts";
import { FakeAdapter, LIMITS, ScriptedProposer } from "../core/fakes.ts";

const root = process.argv[2];
if (root === undefined) throw new Error("usage: stop-child.ts ROOT [tui]");
const tui = process.argv[3] === "tui";

const adapter = new FakeAdapter({
  root,
  tasks: { t1: "books", t2: "books" },
  onExecute: async () => {
    if (!tui) process.stdout.write("executing\n");
    writeFileSync(join(root, "executing"), "");
    // A live timer keeps the process up while the execution hangs forever.
    setInterval(() => {}, 60_000);
    await new Promise(() => {});
  },
});

const session = await runSweepSession({
  io: {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    isTTY: tui,
    env: process.env,
    cwd: root,
  },
  location: { runsDir: root, dbPath: join(root, "harness2.db"), pg: null },
  frontEnd: tui ? "tui" : "lines",
  title: "hanging",
  sessionLimit: 2,
  makeProposer: () => new ScriptedProposer(join(root, "sessions")),
  inputs: {
    adapter,
    limits: LIMITS,
    runsRoot: join(root, "adapt"),
    libraryRoot: join(root, "library"),
    k: 1,
    modes: ["agg"],
  },
  sweepOptions: { argv: ["run", "--bench", "fake", "--k", "1"] },
});
process.stdout.write(`returned ${session.exitCode}\n`);
process.exitCode = session.exitCode;
