import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  PythonCheckError,
  PythonCheckKilledError,
  PythonUnavailableError,
  pythonSyntaxChecker,
} from "../../../src/core/harness/python-check.ts";
import { InterruptedError } from "../../../src/core/lib/interrupt.ts";
import { which } from "../../../src/core/lib/process.ts";
import { resolvePython } from "../../../src/core/lib/python.ts";

const made: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "h2-py-"));
  made.push(d);
  return d;
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

const REAL_PYTHON = which("python3", process.env);

/** An executable shell script standing in for python3; it logs each start to `log`. */
function wrapper(dir: string, body: string): { exe: string; log: string } {
  const exe = join(dir, "python3");
  const log = join(dir, "starts.log");
  writeFileSync(exe, `#!/bin/sh\necho start >> '${log}'\n${body}\n`);
  chmodSync(exe, 0o755);
  return { exe, log };
}

const starts = (log: string) =>
  existsSync(log) ? readFileSync(log, "utf8").split("\n").length - 1 : 0;

describe("pythonSyntaxChecker", () => {
  test("answers per file, in order, with the rel and a capped detail", async () => {
    const check = pythonSyntaxChecker();
    const out = await check([
      { rel: "scripts/ok.py", source: "import os\nprint(os.sep)\n" },
      { rel: "scripts/bad.py", source: "def f(:\n" },
      { rel: "scripts/indent.py", source: "if True:\nprint(1)\n" },
      { rel: "scripts/nul.py", source: "x = 1\0\n" },
      { rel: "scripts/bom.py", source: "\uFEFFx = 1\n" },
      { rel: "scripts/long.py", source: `x = (${"1 + ".repeat(60)}\n` },
    ]);
    expect(out[0]).toBeNull();
    expect(out[1]).toBe("scripts/bad.py does not compile: SyntaxError: invalid syntax (line 1)");
    expect(out[2]).toStartWith(
      "scripts/indent.py does not compile: SyntaxError: expected an indented block",
    );
    expect(out[3]).toStartWith("scripts/nul.py does not compile: SyntaxError:");
    expect(out[3]).not.toContain("(line None)");
    expect(out[4]).toBeNull();
    expect(out[5]).toStartWith("scripts/long.py does not compile: SyntaxError:");
  });

  test("compiles without running anything", async () => {
    const dir = tmp();
    const marker = join(dir, "ran");
    const out = await pythonSyntaxChecker()([
      { rel: "scripts/side.py", source: `open(${JSON.stringify(marker)}, "w").write("x")\n` },
      { rel: "scripts/exit.py", source: "raise SystemExit(3)\n" },
    ]);
    expect(out).toEqual([null, null]);
    expect(existsSync(marker)).toBe(false);
  });

  test("one interpreter start per call, and later calls skip a wrapper like a pyenv shim", async () => {
    expect(REAL_PYTHON).not.toBeNull();
    const dir = tmp();
    const { exe, log } = wrapper(dir, `exec '${REAL_PYTHON}' "$@"`);
    const check = pythonSyntaxChecker({ python: exe });
    expect(await check([])).toEqual([]);
    expect(starts(log)).toBe(0);
    const files = Array.from({ length: 25 }, (_, i) => ({
      rel: `scripts/f${i}.py`,
      source: "x=1",
    }));
    expect(await check(files)).toEqual(files.map(() => null));
    expect(starts(log)).toBe(1);
    expect(await check([{ rel: "scripts/b.py", source: "def (" }])).toHaveLength(1);
    expect(starts(log)).toBe(1);
  });

  test("a file already checked, or being checked by a concurrent call, is not sent to python3 again", async () => {
    // A wrapper that answers checks (-I …) but fails the interpreter lookup, so every check goes
    // through it.
    const { exe, log } = wrapper(tmp(), `[ "$1" = "-I" ] || exit 1\nexec '${REAL_PYTHON}' "$@"`);
    const check = pythonSyntaxChecker({ python: exe });
    const ok = { rel: "scripts/a.py", source: "x = 1\n" };
    const bad = { rel: "scripts/b.py", source: "def (" };
    const [first, second] = await Promise.all([check([ok, bad]), check([bad, ok])]);
    expect(first).toEqual([
      null,
      "scripts/b.py does not compile: SyntaxError: invalid syntax (line 1)",
    ]);
    expect(second).toEqual([first[1] ?? "", null]);
    expect(starts(log)).toBe(2); // the interpreter lookup, then one check for both calls
    expect(await check([ok])).toEqual([null]);
    expect(starts(log)).toBe(2);
    // The same source under another path is another file.
    expect(await check([{ ...ok, rel: "scripts/c.py" }])).toEqual([null]);
    expect(starts(log)).toBe(3);
  });

  test("a check that failed is not remembered: the next call runs it again", async () => {
    const dir = tmp();
    const flag = join(dir, "crashed");
    const { exe } = wrapper(
      dir,
      `[ "$1" = "-I" ] || exit 1\nif [ ! -e '${flag}' ]; then touch '${flag}'; echo boom >&2; exit 1; fi\nexec '${REAL_PYTHON}' "$@"`,
    );
    const check = pythonSyntaxChecker({ python: exe });
    const file = { rel: "scripts/a.py", source: "x = 1\n" };
    await expect(check([file])).rejects.toBeInstanceOf(PythonCheckError);
    expect(await check([file])).toEqual([null]);
  });

  test("a missing interpreter is PythonUnavailableError saying python3 is required", async () => {
    const check = pythonSyntaxChecker({ python: join(tmp(), "no-python3") });
    const run = check([{ rel: "scripts/a.py", source: "x = 1" }]);
    await expect(run).rejects.toBeInstanceOf(PythonUnavailableError);
    await expect(run).rejects.toThrow("python3 is required to check the harness's Python scripts");
    const offPath = pythonSyntaxChecker({ env: { PATH: tmp() } });
    await expect(offPath([{ rel: "a.py", source: "" }])).rejects.toBeInstanceOf(
      PythonUnavailableError,
    );
  });

  test("HARNESS2_PYTHON names the interpreter when python3 is not on PATH", async () => {
    const real = await resolvePython(process.env);
    expect(real).not.toBeNull();
    const empty = tmp();
    const check = pythonSyntaxChecker({ env: { PATH: empty, HARNESS2_PYTHON: real as string } });
    expect(
      await check([
        { rel: "a.py", source: "x = 1\n" },
        { rel: "b.py", source: "def (" },
      ]),
    ).toEqual([null, expect.stringContaining("b.py does not compile: SyntaxError")]);
    // The override is the one that was run: a missing one is named in the error.
    const gone = join(empty, "gone-python");
    const missing = pythonSyntaxChecker({ env: { PATH: empty, HARNESS2_PYTHON: gone } });
    await expect(missing([{ rel: "a.py", source: "" }])).rejects.toThrow(
      `'${gone}' could not be run`,
    );
  });

  test("an explicit python option wins over HARNESS2_PYTHON", async () => {
    const { exe, log } = wrapper(tmp(), `exec '${REAL_PYTHON}' "$@"`);
    const check = pythonSyntaxChecker({
      python: exe,
      env: { ...process.env, HARNESS2_PYTHON: join(tmp(), "not-this-one") },
    });
    expect(await check([{ rel: "a.py", source: "x = 1\n" }])).toEqual([null]);
    expect(starts(log)).toBeGreaterThan(0);
  });

  test("a shim that finds no interpreter (exit 127) is also unavailable", async () => {
    const { exe } = wrapper(tmp(), "echo 'pyenv: python3: command not found' >&2\nexit 127");
    const run = pythonSyntaxChecker({ python: exe })([{ rel: "a.py", source: "" }]);
    await expect(run).rejects.toBeInstanceOf(PythonUnavailableError);
    await expect(run).rejects.toThrow("command not found");
  });

  test("garbled answers are a PythonCheckError, never a silent pass", async () => {
    const { exe } = wrapper(tmp(), "cat > /dev/null\necho '[null]'");
    const run = pythonSyntaxChecker({ python: exe })([{ rel: "a.py", source: "" }]);
    await expect(run).rejects.toBeInstanceOf(PythonCheckError);
    const { exe: crash } = wrapper(tmp(), "echo boom >&2\nexit 1");
    const crashed = pythonSyntaxChecker({ python: crash })([{ rel: "a.py", source: "" }]);
    await expect(crashed).rejects.toThrow("boom");
  });

  describe("a checker killed by a signal", () => {
    // Answers checks (-I …) only, so the interpreter lookup keeps the wrapper itself.
    const checksOnly = '[ "$1" = "-I" ] || exit 1';
    const checks = (log: string) => starts(log) - 1; // minus the interpreter lookup

    test("killed by SIGINT as the sweep's signal aborts (a Ctrl-C to the group) is the interrupt", async () => {
      const controller = new AbortController();
      // The parent's SIGUSR2 handler stands in for the sweep's SIGINT handler: it aborts, and it
      // can run after the checker's death has been seen, as a real Ctrl-C's can.
      const onUsr2 = () => controller.abort();
      process.on("SIGUSR2", onUsr2);
      try {
        const { exe, log } = wrapper(tmp(), `${checksOnly}\nkill -USR2 $PPID\nkill -INT $$`);
        const run = pythonSyntaxChecker({ python: exe })([{ rel: "a.py", source: "x = 1\n" }], {
          signal: controller.signal,
        });
        await expect(run).rejects.toBeInstanceOf(InterruptedError);
        await expect(run).rejects.not.toBeInstanceOf(PythonCheckError);
        expect(controller.signal.aborted).toBe(true);
        expect(checks(log)).toBe(1); // not run again once the interrupt is known
      } finally {
        process.off("SIGUSR2", onUsr2);
      }
    });

    test("an abort while the check runs kills it and is the interrupt", async () => {
      const dir = tmp();
      const ready = join(dir, "ready");
      const { exe } = wrapper(dir, `${checksOnly}\ntouch '${ready}'\nexec sleep 30`);
      const controller = new AbortController();
      const run = pythonSyntaxChecker({ python: exe })([{ rel: "a.py", source: "" }], {
        signal: controller.signal,
      }).catch((e: unknown) => e);
      while (!existsSync(ready)) await Bun.sleep(5);
      controller.abort();
      expect(await run).toBeInstanceOf(InterruptedError);
    });

    test("killed by SIGINT with no abort pending: run once more, and killed again it says so", async () => {
      const { exe, log } = wrapper(tmp(), `${checksOnly}\nkill -INT $$`);
      const controller = new AbortController();
      const run = pythonSyntaxChecker({ python: exe })([{ rel: "a.py", source: "x = 1\n" }], {
        signal: controller.signal,
      });
      await expect(run).rejects.toBeInstanceOf(PythonCheckKilledError);
      await expect(run).rejects.toThrow(
        "the Python syntax check did not finish: the checker (" +
          exe +
          ") was killed by SIGINT, which is no verdict on the scripts; run the command again",
      );
      expect(checks(log)).toBe(2);
    });

    test("killed by SIGTERM once, the second run answers", async () => {
      const dir = tmp();
      const flag = join(dir, "killed");
      const { exe, log } = wrapper(
        dir,
        `${checksOnly}\nif [ ! -e '${flag}' ]; then touch '${flag}'; kill -TERM $$; fi\nexec '${REAL_PYTHON}' "$@"`,
      );
      const out = await pythonSyntaxChecker({ python: exe })([
        { rel: "a.py", source: "x = 1\n" },
        { rel: "b.py", source: "def (" },
      ]);
      expect(out).toEqual([null, "b.py does not compile: SyntaxError: invalid syntax (line 1)"]);
      expect(checks(log)).toBe(2);
    });

    test("a crash signal is still a check failure naming the signal, not run again", async () => {
      const { exe, log } = wrapper(tmp(), `${checksOnly}\nkill -SEGV $$`);
      const run = pythonSyntaxChecker({ python: exe })([{ rel: "a.py", source: "" }]);
      await expect(run).rejects.toBeInstanceOf(PythonCheckError);
      await expect(run).rejects.not.toBeInstanceOf(PythonCheckKilledError);
      await expect(run).rejects.toThrow("exited by signal SIGSEGV");
      expect(checks(log)).toBe(1);
    });
  });
});
