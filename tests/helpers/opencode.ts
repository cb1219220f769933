// Shared by the tests that drive the REAL opencode binary against the scripted chat server: where
// the binary is, a session request in a fresh folder, and the environment that points OpenCode at
// a server. Starts no process itself.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ChannelRequest } from "../../src/core/seams/channel.ts";
import { testTempDir } from "./temp.ts";

/** The pinned opencode-ai binary the channel finds first (node_modules/.bin/opencode). */
export const OPENCODE_BIN = join(import.meta.dir, "../../node_modules/.bin/opencode");

/** One real OpenCode session is ~6 s idle, far more on a loaded 2-core machine. */
export const SESSION_TEST_MS = 180_000;

/** USD per million tokens the scripted model is priced at, so sessions report a cost. */
export const COST = { input: 1, output: 2 } as const;

/** What OpenCode reports for one step with this usage at COST. */
export const stepCost = (input: number, output: number): number =>
  (input * COST.input + output * COST.output) / 1e6;

/** A channel request whose workspace and session folders are `root/work` and `root/session`. */
export function sessionRequest(root: string, over: Partial<ChannelRequest> = {}): ChannelRequest {
  const workspace = join(root, "work");
  const sessionDir = join(root, "session");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(sessionDir, { recursive: true });
  return {
    workspace,
    context: join(workspace, "context"),
    sessionDir,
    mission: "Improve the system prompt.",
    system: "",
    model: "local/mock-model",
    effort: "",
    steps: 40,
    timeoutS: 120,
    ...over,
  };
}

export type ScriptedEnvOptions = {
  /** Model variants to define (e.g. `{ high: { reasoningEffort: "high" } }` for `--variant`). */
  variants?: Record<string, Record<string, unknown>>;
};

export type ScriptedEnv = {
  PATH: string;
  HOME: string;
  OPENCODE_CONFIG_CONTENT: string;
  ANTHROPIC_API_KEY: string;
};

/**
 * The channel environment for a scripted chat server at `url` (its `/v1` base): PATH, a throwaway
 * HOME, the provider config priced at COST for `local/mock-model`, and one credential of another
 * provider that must never reach a session.
 */
export function scriptedOpencodeEnv(url: string, opts: ScriptedEnvOptions = {}): ScriptedEnv {
  const config = opencodeProviderConfig(url, { cost: COST }) as {
    provider: { local: { models: Record<string, Record<string, unknown>> } };
  };
  if (opts.variants) {
    (config.provider.local.models["mock-model"] as Record<string, unknown>).variants =
      opts.variants;
  }
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: testTempDir("h2-ochome-"),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    ANTHROPIC_API_KEY: "must-not-leak",
  };
}
