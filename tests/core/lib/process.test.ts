// The spawn module against real processes: exit codes, stdin, env isolation, group kills at the
// timeout (grandchildren included), SIGTERM → SIGKILL escalation, abort, file output, spawn errors.
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pickEnv, runProcess, which } from "../../../src/core/lib/process.ts";
import { SpawnError } from "../../../src/core/lib/spawn-error.ts";
import { testTempDir } from "../../helpers/temp.ts";

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

/** Alive = exists and is not a zombie (a reparented zombie waits for init to reap it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits (bounded) for a process to disappear; a signal is delivered, not acted on, when kill returns. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await Bun.sleep(10);
  return !alive(pid);
}

/** Waits for a file a child writes as its readiness signal, and returns its trimmed content. */
async function untilFile(path: string): Promise<string> {
  for (;;) {
    const text = await Bun.file(path)
      .text()
      .catch(() => "");
    if (text.endsWith("\n")) return text.trim();
    await Bun.sleep(10);
  }
}

describe("runProcess", () => {
  test("reports exit codes and captures both streams", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "echo out; echo err >&2; exit 3"],
      env: ENV,
    });
    expect(r.code).toBe(3);
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe("out\n");
    expect(r.stderr).toBe("err\n");
    expect(r.stderrTail).toBe("err\n");
    expect(r.timedOut).toBe(false);
    expect(r.pid).toBeGreaterThan(0);
  });

  test("a timeout longer than a timer can hold does not kill the child at once", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "sleep 0.3; echo done"],
      env: ENV,
      timeoutMs: 3_000_000_000,
    });
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toBe("done\n");
  });

  test("a relative executable path resolves against the child's cwd", async () => {
    const dir = testTempDir("h2-proc-");
    await Bun.write(join(dir, "hello.sh"), "#!/bin/sh\necho hello from $0\n");
    chmodSync(join(dir, "hello.sh"), 0o755);
    const r = await runProcess({ argv: ["./hello.sh"], env: ENV, cwd: dir });
    expect(r.stdout).toBe(`hello from ${dir}/hello.sh\n`);
  });

  test("feeds stdin and runs in the given cwd", async () => {
    const dir = testTempDir("h2-proc-");
    const r = await runProcess({
      argv: ["sh", "-c", "pwd; cat"],
      env: ENV,
      cwd: dir,
      stdin: "from stdin ✓",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${dir}\nfrom stdin ✓`);
  });

  test("a child that exits without reading its input still gets an exit record", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "exit 3"],
      env: ENV,
      stdin: new Uint8Array(8 * 1024 * 1024), // far more than a pipe holds
    });
    expect(r.code).toBe(3);
    expect(r.signal).toBeNull();
  });

  test("a member that left the group and holds the pipe open is waited for only a grace", async () => {
    // setsid puts the sleeper outside the group the exit kill reaches; it keeps stdout open.
    const r = await runProcess({
      argv: ["sh", "-c", "setsid sleep 30 & echo $!; echo leader-done"],
      env: ENV,
      graceMs: 200,
    });
    const sleeper = Number(r.stdout.split("\n")[0]);
    try {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("leader-done");
      expect(r.durationMs).toBeLessThan(25_000); // not the sleeper's 30 s
    } finally {
      if (sleeper > 0) process.kill(sleeper, "SIGKILL");
    }
  }, 40_000);

  test("output still arriving after the leader exited is read to its end, not cut after a grace", async () => {
    // The leader exits after 0.3 s; a member outside its group goes on writing for about 2 s, far
    // longer than grace + 1 s, with short pauses: the pipes are never quiet that long.
    const writer =
      'for i in $(seq 40); do head -c 100000 /dev/zero | tr "\\000" a; echo; sleep 0.05; done; echo END';
    let fed = 0;
    const r = await runProcess({
      argv: ["sh", "-c", `setsid sh -c '${writer}' & sleep 0.3; exit 0`],
      env: ENV,
      graceMs: 100,
      onStdout: (c) => {
        fed += c.length;
      },
    });
    expect(r.code).toBe(0);
    expect(r.stdoutBytes).toBe(40 * 100_001 + 4);
    expect(fed).toBe(r.stdoutBytes);
    expect(r.stdoutTail.endsWith("END\n")).toBe(true);
  }, 60_000);

  test("stdin is never inherited: without stdin the child reads EOF", async () => {
    const r = await runProcess({ argv: ["sh", "-c", "cat; echo end"], env: ENV });
    expect(r.stdout).toBe("end\n");
  });

  test("the child sees only the variables it was given", async () => {
    process.env.H2_PROCESS_TEST_SECRET = "leak";
    try {
      const r = await runProcess({ argv: ["env"], env: { ...ENV, ONLY_THIS: "yes" } });
      const names = r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("=")[0]);
      expect(names).toContain("ONLY_THIS");
      expect(names).not.toContain("H2_PROCESS_TEST_SECRET");
      expect(names).not.toContain("HOME");
    } finally {
      delete process.env.H2_PROCESS_TEST_SECRET;
    }
  });

  test("a timeout kills the whole process group, grandchildren included", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "sleep 100 & echo $!; wait"],
      env: ENV,
      // Long enough for a loaded machine to reach the echo before the timeout fires.
      timeoutMs: 1000,
      graceMs: 2000,
    });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe("SIGTERM");
    const grandchild = Number(r.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await gone(grandchild)).toBe(true);
  });

  test("a child that traps SIGTERM gets SIGKILL after the grace", async () => {
    const dir = testTempDir("h2-proc-");
    const ac = new AbortController();
    const run = runProcess({
      argv: ["sh", "-c", `trap '' TERM; echo ready > ${dir}/ready; while :; do sleep 0.05; done`],
      env: ENV,
      signal: ac.signal,
      graceMs: 200,
    });
    await untilFile(join(dir, "ready"));
    ac.abort();
    const r = await run;
    expect(r.aborted).toBe(true);
    expect(r.signal).toBe("SIGKILL");
  });

  test("the timeout escalates to SIGKILL too", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"],
      env: ENV,
      timeoutMs: 1500,
      graceMs: 200,
    });
    expect(r.stdout).toBe("ready\n");
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe("SIGKILL");
  });

  test("an abort signal kills the group and says so", async () => {
    const dir = testTempDir("h2-proc-");
    const ac = new AbortController();
    const run = runProcess({
      argv: ["sh", "-c", `echo up; sleep 100 & echo $! > ${dir}/gc; wait`],
      env: ENV,
      signal: ac.signal,
      graceMs: 1000,
    });
    const grandchild = Number(await untilFile(join(dir, "gc")));
    ac.abort();
    const r = await run;
    expect(r.aborted).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBe("SIGTERM");
    expect(r.stdout).toBe("up\n");
    expect(await gone(grandchild)).toBe(true);
  });

  test("an already-aborted signal starts nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await runProcess({ argv: ["sh", "-c", "exit 0"], env: ENV, signal: ac.signal });
    expect(r.aborted).toBe(true);
    expect(r.pid).toBe(0);
  });

  test("large output streams to a file and keeps only the tail in memory", async () => {
    const dir = testTempDir("h2-proc-");
    const file = join(dir, "out.txt");
    const r = await runProcess({
      argv: ["sh", "-c", "head -c 5000000 /dev/zero | tr '\\0' 'a'; echo END"],
      env: ENV,
      stdoutFile: file,
    });
    expect(r.code).toBe(0);
    expect(statSync(file).size).toBe(5_000_004);
    expect(r.stdoutBytes).toBe(5_000_004);
    expect(r.stdout).toBe("");
    expect(r.stdoutTail.endsWith("aaaEND\n")).toBe(true);
    expect(r.stdoutTail.length).toBeLessThanOrEqual(8192);
  });

  test("in-memory capture is bounded and keeps the end", async () => {
    const r = await runProcess({
      argv: ["sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' 'b'; echo END"],
      env: ENV,
      maxCaptureBytes: 10_000,
    });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(10_000);
    expect(r.stdout.endsWith("bEND\n")).toBe(true);
  });

  test("a missing executable rejects with SpawnError naming it", async () => {
    const missing = runProcess({ argv: ["h2-no-such-binary"], env: ENV });
    await expect(missing).rejects.toBeInstanceOf(SpawnError);
    await expect(missing).rejects.toMatchObject({ argv0: "h2-no-such-binary" });
    await expect(runProcess({ argv: ["/nonexistent/bin/x"], env: ENV })).rejects.toThrow(
      /cannot start "\/nonexistent\/bin\/x"/,
    );
    await expect(runProcess({ argv: ["sh"], env: ENV, cwd: "/nonexistent/dir" })).rejects.toThrow(
      /working directory/,
    );
    await expect(runProcess({ argv: [], env: ENV })).rejects.toBeInstanceOf(SpawnError);
    await expect(
      runProcess({ argv: ["sh"], env: ENV, stdoutFile: "/nonexistent/dir/out.txt" }),
    ).rejects.toThrow(/cannot open output file/);
  });

  /** A parent process running one child group with a grandchild; resolves with both. */
  async function parentWithGrandchild() {
    const dir = testTempDir("h2-proc-");
    const script = join(dir, "parent.ts");
    await Bun.write(
      script,
      `import { runProcess } from ${JSON.stringify(join(import.meta.dir, "../../../src/core/lib/process.ts"))};
void runProcess({ argv: ["sh", "-c", "sleep 100 & echo $! > ${dir}/gc; wait"], env: { PATH: process.env.PATH ?? "" } });
setInterval(() => {}, 1000);
`,
    );
    const parent = Bun.spawn([process.execPath, script], { env: ENV, stdout: "ignore" });
    const grandchild = Number(await untilFile(join(dir, "gc")));
    return { parent, grandchild };
  }

  test("groups still running when the parent is terminated are killed", async () => {
    const { parent, grandchild } = await parentWithGrandchild();
    expect(alive(grandchild)).toBe(true);
    parent.kill("SIGTERM");
    expect(await parent.exited).toBe(143);
    expect(await gone(grandchild)).toBe(true);
  });

  test("a parent killed with SIGKILL (no exit hook runs) leaves no child running: the reaper ends its groups", async () => {
    const { parent, grandchild } = await parentWithGrandchild();
    expect(alive(grandchild)).toBe(true);
    parent.kill("SIGKILL");
    expect(await parent.exited).not.toBe(0);
    // SIGTERM at once when the parent's pipe closes, SIGKILL two seconds later at the latest.
    expect(await gone(grandchild)).toBe(true);
  });
});

describe("pickEnv and which", () => {
  test("pickEnv copies named and prefixed variables, then applies overrides", () => {
    const env = pickEnv(
      { PATH: "/bin", LC_ALL: "C", LC_CTYPE: "UTF-8", SECRET: "x", GONE: undefined },
      ["PATH", "LC_*", "GONE", "MISSING"],
      { HOME: "/h" },
    );
    expect(env).toEqual({ PATH: "/bin", LC_ALL: "C", LC_CTYPE: "UTF-8", HOME: "/h" });
  });

  test("which resolves on the given PATH only", () => {
    expect(which("sh", ENV)).toMatch(/\/sh$/);
    expect(which("sh", { PATH: "/nonexistent" })).toBeNull();
    expect(which("/bin/sh", {})).toBe("/bin/sh");
    expect(which("h2-no-such-binary", ENV)).toBeNull();
    expect(which("./sh", {}, "/bin")).toBe("/bin/sh");
  });
});
