// What the end-to-end sweeps script the same way: an improver that makes one edit and then replies
// with notes and an experience entry, and one OpenCode config naming several scripted providers.

import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import type { ScriptedServer } from "../../fixtures/servers/script.ts";

export type ImproverReply = {
  /** The edit, as `context/harness/<file>`. */
  file: string;
  content: string;
  notes: string;
  cue: string;
  lesson: string;
  evidence: string;
};

/** Turns for an improver that writes one harness file, then replies (every stage, and reflection). */
export function improverTurns(r: ImproverReply) {
  return [
    {
      toolCalls: [
        { name: "write", arguments: { filePath: `context/harness/${r.file}`, content: r.content } },
      ],
    },
    {
      text: [
        "<notes>",
        `- ${r.notes}`,
        "</notes>",
        "",
        "<experience>",
        `cue: ${r.cue}`,
        `lesson: ${r.lesson}`,
        `evidence: ${r.evidence}`,
        "confidence: medium",
        "</experience>",
      ].join("\n"),
    },
  ];
}

/** OPENCODE_CONFIG_CONTENT naming each scripted server as its own provider. */
export function providersConfig(
  ...servers: {
    server: ScriptedServer;
    providerId: string;
    model: string;
    cost?: { input: number; output: number };
  }[]
): string {
  const provider = Object.assign(
    {},
    ...servers.map(
      (s) =>
        opencodeProviderConfig(s.server.url, {
          providerId: s.providerId,
          model: s.model,
          cost: s.cost,
        }).provider as object,
    ),
  );
  return JSON.stringify({ autoupdate: false, share: "disabled", provider });
}

/**
 * The environment of a benchmark sweep against scripted servers: the improver on OpenCode, the
 * solver on OpenCode (a chat server) or Codex (a Responses server), the benchmark installed under
 * `deps`, generous limits, no back-off, and an offline judge endpoint (plus `extra`).
 */
export function benchSweepEnv(opts: {
  executor: "oc" | "cx";
  solver: ScriptedServer;
  improver: ScriptedServer;
  deps: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  const improver = { server: opts.improver, providerId: "improver", model: "improver-model" };
  const solverEnv: Record<string, string> =
    opts.executor === "oc"
      ? {
          OPENCODE_CONFIG_CONTENT: providersConfig(
            { server: opts.solver, providerId: "solver", model: "solver-model" },
            improver,
          ),
          HARNESS2_SOLVER_MODEL: "solver/solver-model",
        }
      : {
          OPENCODE_CONFIG_CONTENT: providersConfig(improver),
          HARNESS2_CODEX_BASE_URL: opts.solver.url,
          HARNESS2_CODEX_API_KEY: "scripted-key",
          HARNESS2_CODEX_MODEL: "mock-model",
          HARNESS2_CODEX_PRICES: '{"mock-model": {"input": 1, "output": 2}}',
        };
  return {
    ...solverEnv,
    HARNESS2_IMPROVER_MODEL: "improver/improver-model",
    HARNESS2_DEPENDENCIES: opts.deps,
    HARNESS2_ROLLOUT_TIMEOUT: "300",
    HARNESS2_PROPOSER_TIMEOUT: "300",
    HARNESS2_BACKOFF_S: "0",
    HARNESS2_JUDGE_BASE_URL: "http://judge.invalid/v1",
    HARNESS2_JUDGE_API_KEY: "offline-key",
    ...opts.extra,
  };
}
