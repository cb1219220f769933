// The one spawn module (docs/architecture.md "Processes"): every subprocess of the project starts
// here, from an argv array with an explicit environment, bounded capture and a hard timeout that
// kills the whole process group (SIGTERM, then SIGKILL after a grace). Never runs a shell string; a
// child never inherits the parent's environment or stdin.

import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { OutputCapture } from "./output-capture.ts";
import { listForReaper, OWNER_VAR, startReaper } from "./reaper.ts";
import { SpawnError } from "./spawn-error.ts";
import { timerDelay } from "./timer.ts";

const DEFAULT_GRACE_MS = 5000;
const DEFAULT_MAX_CAPTURE_BYTES = 16 * 1024 * 1024;

export const SpawnOptionsSchema = z.object({
  argv: z
    .array(z.string())
    .min(1, "argv must name an executable: got an empty array")
    .refine((a) => (a[0] ?? "").length > 0, "argv[0] must be a non-empty executable name"),
  cwd: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()),
  stdin: z.union([z.string(), z.instanceof(Uint8Array), z.literal("ignore")]).optional(),
  timeoutMs: z.number().positive("timeoutMs must be > 0 (omit it for no timeout)").optional(),
  graceMs: z.number().nonnegative().optional(),
  stdoutFile: z.string().min(1).optional(),
  stderrFile: z.string().min(1).optional(),
  maxCaptureBytes: z.number().int().positive().optional(),
  signal: z.instanceof(AbortSignal).optional(),
  /** Sees every chunk of stdout as it arrives (a watcher of the child's event stream). */
  onStdout: z
    .custom<(chunk: Buffer) => void>((v) => typeof v === "function", "onStdout must be a function")
    .optional(),
});
/**
 * One subprocess to run. `stdin` defaults to "ignore" (never the parent's). With `stdoutFile` /
 * `stderrFile` the stream goes to that file and only its tail is kept in memory; otherwise up to
 * `maxCaptureBytes` (default 16 MiB) are kept — the last ones, when the output is longer.
 */
export type SpawnOptions = z.infer<typeof SpawnOptionsSchema>;

export const ExitRecordSchema = z.object({
  /** Exit code, or null when the process ended by a signal (or never started because aborted). */
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Killed because `timeoutMs` elapsed. */
  timedOut: z.boolean(),
  /** Killed (or never started) because `signal` aborted. */
  aborted: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** Captured stdout ("" when it went to `stdoutFile`). */
  stdout: z.string(),
  stderr: z.string(),
  /** The last few KiB of each stream, always kept (also when streamed to a file). */
  stdoutTail: z.string(),
  stderrTail: z.string(),
  /** Total bytes each stream produced. */
  stdoutBytes: z.number().int().nonnegative(),
  stderrBytes: z.number().int().nonnegative(),
  /** True when the in-memory capture dropped the beginning of a stream (over `maxCaptureBytes`). */
  truncated: z.boolean(),
  /** The child's pid, which is also its process-group id; 0 when it was never started. */
  pid: z.number().int().nonnegative(),
});
export type ExitRecord = z.infer<typeof ExitRecordSchema>;

/**
 * What a child needs to reach the network from behind a proxy or with a private certificate
 * authority: the proxy variables in both spellings and the CA bundle locations.
 */
export const NETWORK_ENV = [
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
] as const;

/**
 * The environment for a child: the variables in `names` that `source` defines, then `set` on top.
 * A name ending in `*` copies every variable with that prefix (e.g. `LC_*`).
 */
export function pickEnv(
  source: Record<string, string | undefined>,
  names: readonly string[],
  set: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    if (name.endsWith("*")) {
      const prefix = name.slice(0, -1);
      for (const [key, value] of Object.entries(source)) {
        if (key.startsWith(prefix) && value !== undefined) out[key] = value;
      }
    } else {
      const value = source[name];
      if (value !== undefined) out[name] = value;
    }
  }
  return { ...out, ...set };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Absolute path of `name` as `env.PATH` would resolve it, else null. A name with a `/` is taken as
 * a path (relative ones against `cwd`, default this process's cwd).
 */
export function which(
  name: string,
  env: Record<string, string | undefined>,
  cwd?: string,
): string | null {
  if (name.length === 0) return null;
  if (name.includes("/")) {
    const path = cwd === undefined ? resolve(name) : resolve(cwd, name);
    return isExecutableFile(path) ? path : null;
  }
  for (const dir of (env.PATH ?? "").split(":")) {
    if (dir.length === 0 || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

// ── live process groups, killed when this process goes away (by the reaper if it dies) ─────────
const liveGroups = new Set<number>();
/** Groups already asked to stop: a second SIGTERM would read as "stop at once" to a harness2 child. */
const askedToStop = new Set<number>();
let parentHooksInstalled = false;

function askToStop(pgid: number): void {
  if (askedToStop.has(pgid)) return;
  askedToStop.add(pgid);
  signalGroup(pgid, "SIGTERM");
}

/** Signals a process group; false when it is already gone (ESRCH) or cannot be signalled. */
function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

function installParentHooks(): void {
  if (parentHooksInstalled) return;
  parentHooksInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  });
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      for (const pgid of liveGroups) askToStop(pgid);
      // Only we listen: do what the default action would have done (the exit hook SIGKILLs the
      // rest).
      if (process.listenerCount(sig) <= 1) process.exit(128 + (numbers[sig] ?? 0));
    };
    process.on(sig, onSignal);
  }
}

function checkCwd(argv0: string, cwd: string | undefined): void {
  if (cwd === undefined) return;
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new SpawnError(argv0, `working directory ${cwd} does not exist`);
  }
  if (!isDir) throw new SpawnError(argv0, `working directory ${cwd} is not a directory`);
}

/** The exit record of a process that never started (or was aborted before it could). */
export function emptyRecord(aborted: boolean): ExitRecord {
  return {
    code: null,
    signal: null,
    timedOut: false,
    aborted,
    durationMs: 0,
    stdout: "",
    stderr: "",
    stdoutTail: "",
    stderrTail: "",
    stdoutBytes: 0,
    stderrBytes: 0,
    truncated: false,
    pid: 0,
  };
}

/**
 * Runs one subprocess in its own process group and resolves with its exit record once it has exited
 * and its output is drained. At the timeout (or abort) the whole group gets SIGTERM, then SIGKILL
 * after `graceMs`; after a normal exit, members the leader left behind get the same treatment.
 * Rejects only with SpawnError, when the executable cannot be started.
 */
export async function runProcess(opts: SpawnOptions): Promise<ExitRecord> {
  const parsed = SpawnOptionsSchema.safeParse(opts);
  if (!parsed.success) {
    throw new SpawnError(
      String(opts.argv?.[0] ?? ""),
      `invalid options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const o = parsed.data;
  const argv0 = o.argv[0] as string;
  if (o.signal?.aborted) return emptyRecord(true);
  checkCwd(argv0, o.cwd);
  const exe = which(argv0, o.env, o.cwd);
  if (exe === null) {
    throw new SpawnError(
      argv0,
      argv0.includes("/")
        ? "no executable file at that path"
        : `not found on PATH (${o.env.PATH ?? "PATH unset"})`,
    );
  }

  const graceMs = o.graceMs ?? DEFAULT_GRACE_MS;
  const cap = o.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES;
  const out = new OutputCapture(cap, o.stdoutFile, argv0);
  let errOut: OutputCapture;
  try {
    errOut = new OutputCapture(cap, o.stderrFile, argv0);
  } catch (err) {
    await out.finish();
    throw err;
  }
  const started = performance.now();
  // Before the spawn: a signal that arrives while it is in flight is then handled, not fatal,
  // and the reaper already runs when the child exists.
  installParentHooks();
  startReaper();

  // Bun.spawn rather than node:child_process: the same setsid, argv0 and explicit env, with
  // native pipes instead of node streams. Each node-style spawn kept about 0.1 MiB of memory
  // after the child had gone, so a process that starts hundreds of children grew with every run
  // (bench/README.md, "Round 4").
  let child: Bun.Subprocess<"ignore" | Uint8Array, "pipe", "pipe">;
  try {
    child = Bun.spawn([exe, ...o.argv.slice(1)], {
      argv0,
      ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
      // The one variable a child gets beyond the explicit env: whose it is, for the reaper.
      env: { ...o.env, [OWNER_VAR]: String(process.pid) },
      detached: true,
      // Bun writes a given input itself and closes it; a child that exits without reading it all
      // only ends that write (no EPIPE reaches this process).
      stdin: stdinBytes(o.stdin),
      stdout: "pipe",
      stderr: "pipe",
    });
  } catch (err) {
    await Promise.all([out.finish(), errOut.finish()]);
    throw new SpawnError(argv0, err instanceof Error ? err.message : String(err));
  }
  const pid = child.pid;
  liveGroups.add(pid);
  listForReaper(liveGroups);

  let timedOut = false;
  let aborted = false;
  const timers: ReturnType<typeof setTimeout>[] = [];
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const terminate = () => {
    askToStop(pid);
    timers.push(setTimeout(() => signalGroup(pid, "SIGKILL"), graceMs));
  };
  const onAbort = () => {
    if (exited()) return;
    aborted = true;
    terminate();
  };
  if (o.timeoutMs !== undefined) {
    timers.push(
      setTimeout(() => {
        if (exited()) return;
        timedOut = true;
        terminate();
      }, timerDelay(o.timeoutMs)),
    );
  }
  o.signal?.addEventListener("abort", onAbort, { once: true });

  const readers = [child.stdout.getReader(), child.stderr.getReader()] as const;
  // When output last arrived: a pipe still delivering after the child exited is read to its end.
  let lastData = performance.now();
  const drained = Promise.all([
    pump(readers[0], (c) => {
      lastData = performance.now();
      out.write(c);
      try {
        o.onStdout?.(c);
      } catch {
        // A watcher's own failure must not disturb the child or its record.
      }
    }),
    pump(readers[1], (c) => {
      lastData = performance.now();
      errOut.write(c);
    }),
  ]);

  await child.exited;
  // What the leader left in its group dies with it (closing pipes they hold); a group gone is left.
  if (signalGroup(pid, "SIGTERM"))
    timers.push(setTimeout(() => signalGroup(pid, "SIGKILL"), graceMs));
  await new Promise<void>((done) => {
    // A member that escaped the group (setsid) may hold a pipe open: stop waiting for it once the
    // pipes have been quiet that long. Output still arriving (a large reply being drained) is
    // read to its end, however long that takes.
    const quietMs = graceMs + 1000;
    const check = () => {
      const idle = performance.now() - lastData;
      if (idle < quietMs) {
        timers.push(setTimeout(check, quietMs - idle));
        return;
      }
      for (const r of readers) r.cancel().catch(() => {});
      done();
    };
    timers.push(setTimeout(check, quietMs));
    void drained.then(() => done());
  });
  const durationMs = performance.now() - started;
  for (const t of timers) clearTimeout(t);
  o.signal?.removeEventListener("abort", onAbort);
  askedToStop.delete(pid);
  if (liveGroups.delete(pid)) listForReaper(liveGroups);
  await Promise.all([out.finish(), errOut.finish()]);
  return {
    code: child.exitCode,
    signal: child.signalCode === null ? null : String(child.signalCode),
    timedOut,
    aborted,
    durationMs,
    stdout: out.text(),
    stderr: errOut.text(),
    stdoutTail: out.tailText(),
    stderrTail: errOut.tailText(),
    stdoutBytes: out.bytes,
    stderrBytes: errOut.bytes,
    truncated: out.truncated || errOut.truncated,
    pid,
  };
}

/** Reads one output pipe to its end (or until cancelled), handing each chunk on as a Buffer. */
async function pump(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || value === undefined) return;
      onChunk(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } catch {
    // A cancelled or broken pipe ends the capture; what arrived is kept.
  }
}

function stdinBytes(input: SpawnOptions["stdin"]): "ignore" | Uint8Array {
  if (input === undefined || input === "ignore") return "ignore";
  return typeof input === "string" ? Buffer.from(input, "utf8") : input;
}

/**
 * Hands the terminal to an interactive program (the user's pager or editor) until it exits: its
 * stdout and stderr are the terminal, its stdin is `stdinText` when given (a pager reads its keys
 * from the terminal itself), else the terminal. argv only, explicit env. Returns the exit code, or
 * null when the program could not be started.
 */
export function runInTerminal(
  argv: string[],
  opts: { env: Record<string, string>; stdinText?: string; cwd?: string },
): number | null {
  try {
    const done = Bun.spawnSync(argv, {
      cwd: opts.cwd,
      env: opts.env,
      stdin: opts.stdinText === undefined ? "inherit" : Buffer.from(opts.stdinText),
      stdout: "inherit",
      stderr: "inherit",
    });
    return done.exitCode;
  } catch {
    return null;
  }
}
