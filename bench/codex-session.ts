// One Codex session's cost on this machine (bench/README.md): wall time, CPU and peak RSS of a
// real `codex exec --json` as the executor starts it (same argv, environment and config.toml),
// against the scripted Responses server: three model turns, one shell command, one apply_patch.
// Prints figures; never asserts, never run by tests.
//   node_modules/.bin/bun bench/codex-session.ts [--runs N]

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startResponsesServer } from "../fixtures/servers/responses-server.ts";
import {
  codexConfigToml,
  codexExecArgv,
  codexSessionEnv,
  codexSettings,
  resolveCodex,
} from "../src/agent-cli/codex.ts";
import { hashFile } from "../src/core/lib/fingerprint.ts";
import { load, machine, median, min } from "./stats.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(1, Number(arg("--runs") ?? 5));

const SCRIPT = {
  turns: [
    { toolCalls: [{ name: "exec_command", arguments: { cmd: "cat notes.txt; ls" } }] },
    {
      toolCalls: [
        {
          name: "exec_command",
          arguments: {
            cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: output/answer.md\n+done\n*** End Patch\nEOF",
          },
        },
      ],
    },
    { text: "Done." },
  ],
};
const server = startResponsesServer(SCRIPT);
const cmd = resolveCodex(process.env);
const settings = codexSettings(
  { HARNESS2_CODEX_BASE_URL: server.url, HARNESS2_CODEX_API_KEY: "bench" },
  "mock-model",
);

type Sample = { wallS: number; cpuS: number; rssMiB: number };

async function once(): Promise<Sample> {
  const root = mkdtempSync(join(tmpdir(), "h2-bench-codex-"));
  try {
    const ws = join(root, "workspace");
    const home = join(root, "home");
    const codexHome = join(root, "codex-home");
    const tmp = join(root, "tmp");
    for (const d of [ws, home, codexHome, tmp]) mkdirSync(d, { recursive: true });
    writeFileSync(join(ws, "notes.txt"), "alpha\n");
    writeFileSync(join(ws, "AGENTS.md"), "Write under output/.\n");
    Bun.spawnSync(["git", "init", "-q"], { cwd: ws });
    writeFileSync(join(codexHome, "config.toml"), codexConfigToml(settings, ws));
    const t0 = performance.now();
    const proc = Bun.spawn(codexExecArgv(cmd, settings, ws), {
      cwd: ws,
      env: codexSessionEnv(cmd, process.env, settings, { home, codexHome, tmp }),
      stdin: new Blob(["Do the task."]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    const code = await proc.exited;
    const wallS = (performance.now() - t0) / 1000;
    if (code !== 0 || readFileSync(join(ws, "output", "answer.md"), "utf8") !== "done\n") {
      throw new Error(`codex exited ${code} without the expected edit:\n${out.slice(-2000)}`);
    }
    const u = proc.resourceUsage();
    const cpuS = u ? Number(u.cpuTime.total) / 1e6 : Number.NaN;
    const rssMiB = u ? u.maxRSS / (1024 * 1024) : Number.NaN; // Bun reports bytes
    return { wallS, cpuS, rssMiB };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const fmt = (n: number, d = 2) => n.toFixed(d);
// The inputs, hashed: the codex binary, the model script and the session's config.toml.
const inputs = createHash("sha256")
  .update(await hashFile(realpathSync(cmd.bin)))
  .update(JSON.stringify(SCRIPT))
  .update(codexConfigToml(settings, "workspace"))
  .digest("hex")
  .slice(0, 16);
console.log(machine());
console.log(`codex ${cmd.source}; inputs sha256/16 ${inputs}; ${RUNS} runs; load ${load()}`);
await once(); // warm the page cache: the binary is 100+ MB
const samples: Sample[] = [];
for (let i = 0; i < RUNS; i++) samples.push(await once());
const col = (f: (s: Sample) => number) => samples.map(f);
console.log(
  `one session (3 turns, 2 commands): wall min ${fmt(min(col((s) => s.wallS)))} s, median ${fmt(median(col((s) => s.wallS)))} s; CPU median ${fmt(median(col((s) => s.cpuS)))} s; peak RSS median ${fmt(median(col((s) => s.rssMiB)), 0)} MiB`,
);
console.log(`load after: ${load()}`);
await server.stop();
