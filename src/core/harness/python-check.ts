// Syntax-checks a harness's Python scripts with at most ONE python3 process per call: the sources
// go in on stdin as JSON and each is passed to compile(), which builds code objects and never runs
// them. This module must never execute, import or write a harness script (no .pyc either).

import { createHash } from "node:crypto";
import { z } from "zod";
import { InterruptedError } from "../lib/interrupt.ts";
import { pickEnv, runProcess } from "../lib/process.ts";
import { resolvePython } from "../lib/python.ts";
import { SpawnError } from "../lib/spawn-error.ts";

export type PythonSource = { rel: string; source: string };

/**
 * Checks every file in one go. The result has one entry per input, in order: null when the file
 * compiles, else the problem as `<rel> does not compile: <Kind>: <detail>`.
 */
export type PythonChecker = (
  files: readonly PythonSource[],
  opts?: PythonCheckCallOptions,
) => Promise<(string | null)[]>;

export type PythonCheckCallOptions = {
  /**
   * The sweep's interrupt: aborting it kills the check, and a check that ends killed while it is
   * aborted throws InterruptedError — never an answer about the scripts.
   */
  signal?: AbortSignal;
};

/** python3 could not be started, so scripts cannot be checked. */
export class PythonUnavailableError extends Harness2Error {
  static override readonly errorKind = "environment";
  constructor(
    readonly python: string,
    readonly reason: string,
  ) {
    super(
      `python3 is required to check the harness's Python scripts, but '${python}' could not be run (${reason}); install Python 3 or put python3 on PATH`,
    );
  }
}

/** The checker process ran but did not answer as expected (crash, timeout, garbled output). */
export class PythonCheckError extends Harness2Error {
  constructor(
    readonly python: string,
    readonly code: number | null,
    readonly stderrTail: string,
    message = `the Python syntax check failed (${python} exited ${code ?? "by signal"}): ${stderrTail.trim().slice(-400)}`,
  ) {
    super(message);
  }
}

/**
 * The checker process was killed from outside (SIGINT, SIGTERM, SIGHUP, SIGKILL) with no interrupt
 * pending: that says nothing about the scripts, and running the check again can pass.
 */
export class PythonCheckKilledError extends PythonCheckError {
  readonly retryable = true;
  constructor(
    python: string,
    readonly signal: string,
  ) {
    super(
      python,
      null,
      "",
      `the Python syntax check did not finish: the checker (${python}) was killed by ${signal}, which is no verdict on the scripts; run the command again`,
    );
  }
}

/** Signals something outside sends to stop a process; never the checker's answer on a script. */
const STOP_SIGNALS: ReadonlySet<string> = new Set(["SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"]);

/**
 * How long a killed check waits before deciding it was not the interrupt's doing: a Ctrl-C reaches
 * the checker and this process together, and the child's exit can be seen before the sweep's own
 * signal handler has aborted.
 */
const KILLED_SETTLE_MS = 100;

/** The detail after "does not compile: " is capped at this many characters (docs/method.md §1). */
export const COMPILE_DETAIL_MAX = 160;

// compile() with dont_inherit=True builds the code object only: nothing in the source runs.
// Every failure of one file is reported for that file; SyntaxError subclasses (IndentationError,
// TabError) are reported as SyntaxError, the way the surface's messages name them.
const CHECK_SCRIPT = `
import json, sys, warnings
warnings.simplefilter("ignore")
files = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
out = []
for f in files:
    try:
        compile(f["source"], f["rel"], "exec", dont_inherit=True)
        out.append(None)
    except SyntaxError as e:
        line = " (line %d)" % e.lineno if e.lineno else ""
        out.append("SyntaxError: %s%s" % (e.msg, line))
    except Exception as e:
        out.append("%s: %s" % (type(e).__name__, e))
sys.stdout.write(json.dumps({"results": out}))
`;

import { Harness2Error } from "../lib/errors.ts";

export type PythonCheckerOptions = {
  /** Interpreter to run; default `env.HARNESS2_PYTHON`, else `python3` looked up on PATH. */
  python?: string;
  /** Environment the interpreter's PATH / pyenv lookup comes from; default process.env. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
};

/** Distinct (path, source) answers a checker remembers; the oldest is forgotten past this. */
const MEMO_MAX = 4096;

export function pythonSyntaxChecker(opts: PythonCheckerOptions = {}): PythonChecker {
  const source = opts.env ?? process.env;
  // The same override every other python3 start honours (python.ts): without it, a machine whose
  // python3 is only reachable through HARNESS2_PYTHON passes the demo's preflight and then fails
  // every syntax check.
  const python = opts.python ?? source.HARNESS2_PYTHON ?? "python3";
  const env = pickEnv(source, ["PATH", "HOME", "PYENV_*", "LANG", "LC_*"], {
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  // A version-manager shim (pyenv) can cost more than half a second per start, the interpreter
  // itself a few ms: run the interpreter the name resolves to, resolved once per process and
  // shared with everything else that starts python3 (python.ts).
  let interpreter: Promise<string> | undefined;
  const interpreterPath = () => {
    interpreter ??= resolvePython({ ...source, HARNESS2_PYTHON: python }).then((p) => p ?? python);
    return interpreter;
  };
  // compile() answers depend only on the interpreter, the path and the source, so a file already
  // checked (or being checked by a concurrent call) is not sent to python3 again. Failures of the
  // checker itself are never remembered.
  const memo = new Map<string, Promise<string | null>>();

  const compileOnce = async (
    files: readonly PythonSource[],
    signal: AbortSignal | undefined,
  ): Promise<(string | null)[]> => {
    let rec: Awaited<ReturnType<typeof runProcess>>;
    try {
      rec = await runProcess({
        // -I: ignore PYTHON* variables, user site and the cwd; -S: no site import (not needed).
        argv: [await interpreterPath(), "-I", "-S", "-c", CHECK_SCRIPT],
        env,
        stdin: JSON.stringify(files.map((f) => ({ rel: f.rel, source: stripBom(f.source) }))),
        timeoutMs,
        graceMs: 1000,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (err instanceof SpawnError) throw new PythonUnavailableError(python, err.reason);
      throw err;
    }
    if (rec.aborted || (rec.code === null && signal?.aborted)) {
      throw new InterruptedError("interrupted: the Python syntax check was stopped");
    }
    if (rec.timedOut) {
      throw new PythonCheckError(
        python,
        null,
        rec.stderrTail,
        `the Python syntax check timed out after ${Math.round(timeoutMs / 1000)} s (${python}); run the command again, or check that ${python} starts`,
      );
    }
    if (rec.code === null && rec.signal !== null && STOP_SIGNALS.has(rec.signal)) {
      throw new PythonCheckKilledError(python, rec.signal);
    }
    // 126/127: a wrapper (e.g. a pyenv shim) found no interpreter to hand over to.
    if (rec.code === 126 || rec.code === 127) {
      throw new PythonUnavailableError(python, rec.stderrTail.trim() || `exit ${rec.code}`);
    }
    const parsed = rec.code === 0 ? parseAnswers(rec.stdout, files.length) : null;
    if (parsed === null) {
      const how = rec.code ?? `by signal ${rec.signal ?? "?"}`;
      throw new PythonCheckError(
        python,
        rec.code,
        rec.stderrTail,
        `the Python syntax check failed (${python} exited ${how}): ${rec.stderrTail.trim().slice(-400)}`,
      );
    }
    return parsed.results.map((detail, i) =>
      detail === null
        ? null
        : `${files[i]?.rel} does not compile: ${detail.slice(0, COMPILE_DETAIL_MAX)}`,
    );
  };

  // A checker killed from outside is given a moment for a pending interrupt to land (then it is
  // the interrupt), else run once more; killed again, PythonCheckKilledError says so.
  const compileAll = async (
    files: readonly PythonSource[],
    signal: AbortSignal | undefined,
  ): Promise<(string | null)[]> => {
    try {
      return await compileOnce(files, signal);
    } catch (err) {
      if (!(err instanceof PythonCheckKilledError)) throw err;
      await new Promise((r) => setTimeout(r, KILLED_SETTLE_MS));
      if (signal?.aborted) throw new InterruptedError(`interrupted: ${err.message}`);
      return await compileOnce(files, signal);
    }
  };

  return async (files, callOpts = {}) => {
    if (files.length === 0) return [];
    const fresh: PythonSource[] = [];
    const freshKeys: string[] = [];
    const pending: PromiseWithResolvers<string | null>[] = [];
    const answers = files.map((file) => {
      const key = memoKey(file);
      const known = memo.get(key);
      if (known !== undefined) return known;
      const answer = Promise.withResolvers<string | null>();
      answer.promise.catch(() => {}); // the caller that runs the check rethrows the failure
      memo.set(key, answer.promise);
      fresh.push(file);
      freshKeys.push(key);
      pending.push(answer);
      return answer.promise;
    });
    while (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value as string);
    if (fresh.length > 0) {
      try {
        const compiled = await compileAll(fresh, callOpts.signal);
        for (const [j, p] of pending.entries()) p.resolve(compiled[j] ?? null);
      } catch (err) {
        for (const key of freshKeys) memo.delete(key);
        for (const p of pending) p.reject(err);
        throw err;
      }
    }
    return Promise.all(answers);
  };
}

function memoKey(f: PythonSource): string {
  return createHash("sha256").update(f.rel).update("\0").update(f.source).digest("hex");
}

const Answers = z.object({
  results: z.array(z.string().nullable()),
});

function parseAnswers(stdout: string, n: number): z.infer<typeof Answers> | null {
  try {
    const v = Answers.safeParse(JSON.parse(stdout));
    return v.success && v.data.results.length === n ? v.data : null;
  } catch {
    return null;
  }
}

/** Python runs a script file with a UTF-8 BOM fine, but compile() of a string rejects U+FEFF. */
function stripBom(source: string): string {
  return source.startsWith("\uFEFF") ? source.slice(1) : source;
}

let defaultChecker: PythonChecker | undefined;

/** The checker `validate` uses unless given another: $HARNESS2_PYTHON, else python3 on PATH. */
export function defaultPythonChecker(): PythonChecker {
  defaultChecker ??= pythonSyntaxChecker();
  return defaultChecker;
}
