// Improver sessions in an operating-system sandbox (docs/method.md §9, docs/differences.md X39):
// each OpenCode, Claude Code or Codex improver session runs under bubblewrap with a root built from
// nothing — the system's programs and settings (/usr, /etc) read-only, the session's throwaway
// workspace and private folder read-write, the CLI's own package and the provider files it must
// read read-only, a private /tmp, /proc and /dev — so neither its own tools nor a program its shell
// starts can read the runs folder, the task folders, the library, other sessions or the user's
// home, or write outside its workspace. Its network is the host's (its model endpoint may be on
// loopback). HARNESS2_IMPROVER_SANDBOX=off runs sessions unsandboxed; a sweep records which.

import { realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";
import { Harness2Error } from "../core/lib/errors.ts";
import { runProcess, which } from "../core/lib/process.ts";
import { SpawnError } from "../core/lib/spawn-error.ts";

export const SANDBOX_SETTING = "HARNESS2_IMPROVER_SANDBOX";
export const SANDBOX_MODES = ["bwrap", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Settings whose value is a file or folder a session's CLI must read (provider files, CAs). */
const READ_PATHS = [
  "OPENCODE_CONFIG",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_CONFIG",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
] as const;

export class SandboxSetupError extends Harness2Error {
  static override readonly errorKind = "environment";
  constructor(
    readonly reason: string,
    readonly hint: string,
  ) {
    super(`${reason}. ${hint}`);
  }
}

/** The mode the environment asks for (bwrap by default); a bad value is a SandboxSetupError. */
export function sandboxMode(env: Record<string, string | undefined>): SandboxMode {
  const v = env[SANDBOX_SETTING]?.trim() || "bwrap";
  if (!(SANDBOX_MODES as readonly string[]).includes(v)) {
    throw new SandboxSetupError(
      `${SANDBOX_SETTING}=${JSON.stringify(env[SANDBOX_SETTING])} is not allowed`,
      "Use bwrap (the default: every improver session in a bubblewrap sandbox) or off",
    );
  }
  return v as SandboxMode;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The folder to bind for a program: its package (`…/<pkg>/bin/x` → `…/<pkg>`), else its folder. */
function programRoot(path: string): string {
  const real = realpathSync(path);
  if (statSync(real).isDirectory()) return real;
  const dir = dirname(real);
  return basename(dir) === "bin" ? dirname(dir) : dir;
}

/** The host's top-level system entries: a symlink is recreated, a folder bound read-only. */
function systemRoot(): string[] {
  const out = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"];
  for (const d of ["/bin", "/sbin", "/lib", "/lib64", "/lib32"]) {
    try {
      const target = realpathSync(d);
      if (target !== d) out.push("--symlink", target.replace(/^\//, ""), d);
      else out.push("--ro-bind", d, d);
    } catch {
      // not on this system
    }
  }
  return [...out, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"];
}

export type SandboxPlace = { workspace: string; sessionDir: string };

/** One way to start sessions: under bubblewrap, or (opted out) as they are. */
export class SessionSandbox {
  readonly mode: SandboxMode;
  readonly bwrap: string | null;

  constructor(env: Record<string, string | undefined>) {
    this.mode = sandboxMode(env);
    this.bwrap = this.mode === "off" ? null : env.HARNESS2_BWRAP || which("bwrap", env);
  }

  /** What a sweep records of it. */
  describe(): string {
    return this.mode === "off"
      ? `off (${SANDBOX_SETTING}=off: improver sessions are not sandboxed)`
      : "bwrap (each improver session sees only its workspace, its own folder and the programs it needs)";
  }

  /**
   * `argv` started inside the sandbox: `program` and every absolute path among the argv and the
   * READ_PATHS settings of `env` are bound read-only; the workspace and session folder read-write.
   */
  wrap(argv: readonly string[], place: SandboxPlace, env: Record<string, string>): string[] {
    if (this.mode === "off") return [...argv];
    if (this.bwrap === null) throw unavailable("bwrap was not found on PATH");
    const binds = new Set<string>();
    for (const a of argv) if (isAbsolute(a) && exists(a)) binds.add(programRoot(a));
    for (const name of READ_PATHS) {
      const v = env[name];
      if (v && isAbsolute(v) && exists(v)) binds.add(realpathSync(v));
    }
    const ro = [...binds]
      .filter(
        (p) => !p.startsWith("/usr/") && !p.startsWith("/etc/") && p !== "/usr" && p !== "/etc",
      )
      .sort()
      .flatMap((p) => ["--ro-bind", p, p]);
    return [
      this.bwrap,
      "--die-with-parent",
      ...systemRoot(),
      ...ro,
      "--bind",
      place.sessionDir,
      place.sessionDir,
      "--bind",
      place.workspace,
      place.workspace,
      "--chdir",
      place.workspace,
      "--",
      // The program by its real path: a link to it (node_modules/.bin/…) is not in the sandbox.
      ...argv.map((a, i) => (i === 0 && isAbsolute(a) && exists(a) ? realpathSync(a) : a)),
    ];
  }

  /** null when a session can be started in the sandbox here, else why not (with the fix). */
  async problem(env: Record<string, string | undefined>): Promise<SandboxSetupError | null> {
    if (this.mode === "off") return null;
    if (this.bwrap === null) return unavailable("bwrap was not found on PATH");
    try {
      const exit = await runProcess({
        argv: [
          this.bwrap,
          "--die-with-parent",
          ...systemRoot(),
          "--",
          "/bin/sh",
          "-c",
          "test -d /proc/self",
        ],
        env: { PATH: env.PATH ?? "/usr/bin:/bin" },
        timeoutMs: 30_000,
      });
      if (exit.code === 0) return null;
      const why = exit.stderrTail.trim().split("\n").pop() || `exit ${exit.code ?? exit.signal}`;
      return unavailable(`bwrap cannot build a sandbox here (${why})`);
    } catch (err) {
      if (err instanceof SpawnError) return unavailable(`bwrap cannot start (${err.message})`);
      throw err;
    }
  }
}

function unavailable(reason: string): SandboxSetupError {
  return new SandboxSetupError(
    `improver sessions run in a sandbox and ${reason}`,
    `Install bubblewrap (e.g. apt-get install bubblewrap), or set ${SANDBOX_SETTING}=off to run them unsandboxed (the sweep records it)`,
  );
}
