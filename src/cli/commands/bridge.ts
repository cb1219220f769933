// `harness2 bridge`: serves a local Responses-API endpoint for the Codex executor in front of a
// chat-completions endpoint, until Ctrl-C. Its port and a generated key are kept in
// `<runs>/bridge.json` (mode 600), so a restart serves on the same port with the same key and the
// printed env lines stay valid. `--litellm` runs a LiteLLM proxy instead, as the original did.

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { pickEnv, runProcess, which } from "../../core/lib/process.ts";
import {
  type CliIO,
  defineCommand,
  type OptionSpecs,
  type ParsedArgs,
  UsageError,
} from "../command.ts";
import { CliError } from "../errors.ts";
import { EXIT } from "../exit-codes.ts";
import { checkedLocation } from "../runs/run-handle.ts";

const STATE_FILE = "bridge.json";
const UPSTREAM_KEY_VARS = ["HARNESS2_BRIDGE_UPSTREAM_KEY", "OPENAI_API_KEY"] as const;

const State = z.object({ port: z.number().int().min(1).max(65535), key: z.string().min(16) });
type State = z.infer<typeof State>;

/** The kept port and key, or null when there are none (or the file is not ours to trust). */
function readState(path: string): State | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = State.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function writeState(path: string, state: State & Record<string, unknown>): void {
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode on write: make it 600 either way
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * What the bridge prints: a headline, the env lines a Codex run needs (the model when --model
 * names one; the URL a container reaches it by when it listens beyond loopback), where they are
 * kept — or, with --json, the same as one object.
 */
function envLines(
  headline: string,
  url: string,
  host: string,
  port: number,
  key: string,
  model: string | undefined,
  statePath: string,
  json = false,
): string {
  const env: Record<string, string> = {
    HARNESS2_CODEX_BASE_URL: url,
    HARNESS2_CODEX_API_KEY: key,
    ...(model ? { HARNESS2_CODEX_MODEL: model } : {}),
    ...(LOOPBACK.has(host)
      ? {}
      : { HARNESS2_CODEX_CONTAINER_URL: `http://host.docker.internal:${port}/v1` }),
  };
  if (json) return `${JSON.stringify({ url, env, kept: statePath })}\n`;
  return [
    `${headline}${model ? ` (model ${model})` : ""}`,
    ...Object.entries(env).map(([k, v]) => `export ${k}=${v}`),
    `(kept in ${statePath}; Ctrl-C stops it)`,
    "",
  ].join("\n");
}

/** Resolves on SIGINT or SIGTERM (listeners removed afterwards). */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const on = (sig: string) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(sig);
    };
    const onInt = () => on("SIGINT");
    const onTerm = () => on("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
  });
}

const OPTIONS = {
  upstream: {
    type: "string",
    valueName: "URL",
    description: "chat-completions base URL, e.g. http://127.0.0.1:11434/v1 (required)",
  },
  model: { type: "string", valueName: "ID", description: "upstream model id for every request" },
  host: { type: "string", valueName: "HOST", description: "address to listen on (127.0.0.1)" },
  port: {
    type: "int",
    min: 0,
    max: 65535,
    valueName: "N",
    description: "port (default: the kept one, else a free one)",
  },
  runs: { type: "string", valueName: "DIR", description: "runs directory (keeps bridge.json)" },
  litellm: { type: "boolean", description: "run a LiteLLM proxy (litellm on PATH) instead" },
  json: { type: "boolean", description: "print the env as one JSON object instead of lines" },
} as const satisfies OptionSpecs;

type Args = ParsedArgs<typeof OPTIONS>;

const bridge = defineCommand({
  name: "bridge",
  summary: "Serve a Responses-API endpoint for Codex in front of a chat-completions endpoint",
  help: [
    "Codex speaks only the OpenAI Responses API; most providers and local servers speak chat",
    "completions. The bridge listens on --host:--port and forwards each request to --upstream",
    "(its key from HARNESS2_BRIDGE_UPSTREAM_KEY, else OPENAI_API_KEY, else none), streaming the",
    "answer back as Codex consumes it. It prints the two env lines a Codex run needs and serves",
    "until Ctrl-C. Port and key are kept in <runs>/bridge.json (mode 600) and reused next time.",
    "Function tools and free-form tools (apply_patch) cross; hosted tools (web search) do not.",
  ].join("\n"),
  options: OPTIONS,
  positionals: { min: 0, max: 0 },
  run: runBridge,
});

export default bridge;

async function runBridge(args: Args, io: CliIO): Promise<number> {
  const upstream = args.opts.upstream?.trim();
  if (!upstream)
    throw new UsageError("--upstream URL is required (a chat-completions base URL)", "bridge");
  let url: URL | null = null;
  try {
    url = new URL(upstream);
  } catch {
    url = null;
  }
  if (url === null || !/^https?:$/.test(url.protocol)) {
    throw new UsageError(`--upstream ${JSON.stringify(upstream)} is not an http(s) URL`, "bridge");
  }
  const host = args.opts.host ?? "127.0.0.1";
  const model = args.opts.model?.trim() || undefined;
  // --port 0 is the default: the kept port, else a free one.
  const portFlag = args.opts.port || undefined;
  // A runs dir that is a file is one line, as for every command (2 from --runs, 1 from the env).
  const loc = checkedLocation(args, io, { create: true });
  try {
    mkdirSync(loc.runsDir, { recursive: true });
  } catch (err) {
    throw new CliError(
      `cannot create the runs directory ${loc.runsDir}: ${(err as Error).message}`,
    );
  }
  const statePath = join(loc.runsDir, STATE_FILE);
  const kept = readState(statePath);
  const key = kept?.key ?? `h2b-${randomBytes(24).toString("hex")}`;
  const upstreamKey = UPSTREAM_KEY_VARS.map((v) => io.env[v]?.trim()).find((v) => v) ?? "none";

  if (args.opts.litellm) {
    return runLitellm({
      io,
      host,
      port: portFlag ?? kept?.port ?? 4000,
      upstream,
      upstreamKey,
      model,
      key,
      statePath,
      json: args.opts.json,
    });
  }

  const { probeUpstream, startBridge, BridgeUpstreamError } = await import(
    "../../bridge/server.ts"
  );
  try {
    await probeUpstream(upstream, upstreamKey);
  } catch (err) {
    if (err instanceof BridgeUpstreamError) throw new CliError(err.message);
    throw err;
  }
  const listen = (port: number) =>
    startBridge({
      host,
      port,
      upstream,
      upstreamKey,
      key,
      ...(model ? { model } : {}),
      log: (line) => io.stderr(`bridge: ${line}\n`),
    });
  let server: ReturnType<typeof startBridge>;
  try {
    server = listen(portFlag ?? kept?.port ?? 0);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (portFlag === undefined && kept !== null && code === "EADDRINUSE") {
      // The kept port is taken by something else now: take a free one (and keep that).
      server = listen(0);
      io.stderr(
        `bridge: the kept port ${kept.port} is in use; serving on ${server.port} instead (the env lines below changed)\n`,
      );
    } else {
      throw new CliError(
        `cannot listen on ${host}:${portFlag ?? kept?.port ?? 0} (${code ?? (err as Error).message}). Pick another --port.`,
      );
    }
  }
  writeState(statePath, { port: server.port, key, upstream, model: model ?? null, host });
  // Listening for the stop before the lines are printed: whoever reads them may stop us at once.
  const stopped = untilStopped();
  io.stdout(
    envLines(
      `Bridge ready: ${server.url} → ${upstream}`,
      server.url,
      host,
      server.port,
      key,
      model,
      statePath,
      args.opts.json,
    ),
  );
  await stopped;
  await server.stop();
  io.stderr("bridge: stopped\n");
  return EXIT.ok;
}

async function runLitellm(o: {
  io: CliIO;
  host: string;
  port: number;
  upstream: string;
  upstreamKey: string;
  model: string | undefined;
  key: string;
  statePath: string;
  json: boolean;
}): Promise<number> {
  const bin = which("litellm", o.io.env);
  if (bin === null) {
    throw new CliError(
      "--litellm: litellm is not on PATH. Install it (pip install 'litellm[proxy]') or drop --litellm to use the built-in bridge.",
    );
  }
  if (o.model === undefined) {
    throw new UsageError(
      "--litellm needs --model ID (the upstream model LiteLLM routes to)",
      "bridge",
    );
  }
  writeState(o.statePath, {
    port: o.port,
    key: o.key,
    upstream: o.upstream,
    model: o.model,
    host: o.host,
    litellm: true,
  });
  const url = `http://${o.host}:${o.port}/v1`;
  const stop = new AbortController();
  void untilStopped().then(() => stop.abort());
  o.io.stdout(
    envLines(
      `LiteLLM proxy starting: ${url} → ${o.upstream}`,
      url,
      o.host,
      o.port,
      o.key,
      o.model,
      o.statePath,
      o.json,
    ),
  );
  const exit = await runProcess({
    argv: [
      bin,
      "--host",
      o.host,
      "--port",
      String(o.port),
      "--model",
      `openai/${o.model}`,
      "--api_base",
      o.upstream,
    ],
    env: pickEnv(o.io.env, ["PATH", "HOME", "LANG", "LC_*", "TMPDIR"], {
      LITELLM_MASTER_KEY: o.key,
      OPENAI_API_KEY: o.upstreamKey,
    }),
    signal: stop.signal,
    stderrFile: `${o.statePath}.litellm.log`,
  });
  if (exit.aborted) return EXIT.ok;
  if (exit.code !== 0) {
    throw new CliError(
      `--litellm: litellm exited with ${exit.code ?? exit.signal}: ${exit.stderrTail.trim().split("\n").at(-1) ?? ""} (log: ${o.statePath}.litellm.log)`,
    );
  }
  return EXIT.ok;
}
