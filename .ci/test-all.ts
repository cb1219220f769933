// The whole test suite in one command (the README's second command, and what .ci/run calls):
// typecheck, lint, then `bun test`; prints a closing `N passed, N failed` line computed from the
// real results. A failed typecheck or lint counts as one failed check each.

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";

type Step = { name: string; argv: string[] };

const workers = testWorkers(process.env.HARNESS2_TEST_WORKERS);

const bin = (name: string) => `${import.meta.dir}/../node_modules/.bin/${name}`;
const steps: Step[] = [
  // TypeScript's native compiler (tsgo): the same errors as tsc, about three times faster here.
  { name: "typecheck", argv: [bin("tsgo"), "--noEmit", "-p", "."] },
  { name: "lint", argv: [bin("biome"), "check", "."] },
];

function testWorkers(value: string | undefined): number {
  if (value === undefined || value === "") return Math.min(4, Math.max(1, availableParallelism()));
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    console.error(
      `HARNESS2_TEST_WORKERS=${value} is not a whole number from 1 to 64: unset it to use one worker per core`,
    );
    process.exit(2);
  }
  return n;
}

/**
 * The interpreter the demo's executions and the harness syntax checks use in the suite
 * (HARNESS2_PYTHON): a virtual environment of the machine's python3 without its site-packages,
 * made once per run under .tmp/. A python3 whose site-packages runs start-up hooks (a `.pth`
 * importing certifi, here) pays ~40 ms more CPU at each of the suite's thousands of starts, and
 * no test's script needs a third-party package; tests of a missing or other python set their own.
 * An existing HARNESS2_PYTHON is kept; a venv that cannot be made leaves python3 on PATH.
 */
function testPython(): Record<string, string> {
  if (process.env.HARNESS2_PYTHON) return {};
  const dir = `${import.meta.dir}/../.tmp/test-python`;
  const made = spawnSync("python3", ["-m", "venv", "--without-pip", "--clear", dir], {
    stdio: "ignore",
  });
  const bin = `${dir}/bin/python3`;
  if (made.status !== 0 || spawnSync(bin, ["-c", "pass"]).status !== 0) return {};
  return { HARNESS2_PYTHON: bin };
}

let failedChecks = 0;
for (const step of steps) {
  const started = performance.now();
  const r = spawnSync(step.argv[0] as string, step.argv.slice(1), {
    stdio: "inherit",
    cwd: `${import.meta.dir}/..`,
  });
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  if (r.status === 0) {
    console.log(`${step.name}: ok (${secs}s)`);
  } else {
    failedChecks += 1;
    console.log(`${step.name}: FAILED (exit ${r.status ?? r.signal}, ${secs}s)`);
  }
}

// Test files run in worker processes, one per core (at most 4; HARNESS2_TEST_WORKERS overrides,
// 1 runs every file in one process, one after another). Most of the wall clock is real opencode and codex
// sessions, each waiting on its own scripted model server, so two at once overlap well even on
// two cores. tests/timings.json (each file's last measured time) makes the slowest start first;
// `bun run test:timings` measures it again.
const extra = process.argv.slice(2);
const parallel =
  workers > 1
    ? [`--parallel=${workers}`, `--timings=${import.meta.dir}/../tests/timings.json`]
    : [];
const test = Bun.spawn([process.execPath, "test", "--timeout", "120000", ...parallel, ...extra], {
  cwd: `${import.meta.dir}/..`,
  stdout: "pipe",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0", ...testPython() },
});
let tail = "";
const pump = async (stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) => {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    out.write(text);
    tail = (tail + text).slice(-20000);
  }
};
await Promise.all([pump(test.stdout, process.stdout), pump(test.stderr, process.stderr)]);
const code = await test.exited;
// Whatever a test's own cleanup missed: `.tmp/` (ignored by git) belongs to the tests alone.
rmSync(`${import.meta.dir}/../.tmp`, { recursive: true, force: true });

const count = (word: string) => {
  const m = [...tail.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "gm"))].pop();
  return m ? Number.parseInt(m[1] as string, 10) : 0;
};
const passed = count("pass");
let failed = count("fail") + failedChecks;
if (code !== 0 && failed === 0) failed = 1; // the runner itself failed (no test files, crash)
const skipped = count("skip");
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 && code === 0 ? 0 : 1);
