// What the end-to-end sweeps script the same way: an improver that makes one edit and then replies
// with notes and an experience entry, and one OpenCode config naming several scripted providers.
//
// The benchmark cells' sweeps run their improvers on the real codex binary (a session starts in
// ~0.3 s; an OpenCode one costs ~6 s and ~7 s of CPU): the cell under test is the benchmark × the
// executor. The OpenCode improver channel keeps its own end-to-end sweep (serve-model, the
// tasks × OpenCode cell) and its channel tests.

import { dirname } from "node:path";
import { opencodeProviderConfig } from "../../fixtures/servers/opencode-config.ts";
import { startResponsesServer } from "../../fixtures/servers/responses-server.ts";
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
    { text: improverAnswer(r) },
  ];
}

/** The closing reply of an improver session: its notes and the experience entry it proposes. */
function improverAnswer(r: ImproverReply): string {
  return [
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
  ].join("\n");
}

/** The same improver as Codex plays it: one shell command writes the file, then the reply. */
export function codexImproverTurns(r: ImproverReply) {
  const path = `context/harness/${r.file}`;
  const body = r.content.endsWith("\n") ? r.content : `${r.content}\n`;
  if (body.split("\n").includes("H2_EDIT_END")) throw new Error("the edit holds the heredoc's end");
  return [
    {
      toolCalls: [
        {
          name: "exec_command",
          arguments: {
            cmd: `mkdir -p '${dirname(path)}' && cat > '${path}' <<'H2_EDIT_END'\n${body}H2_EDIT_END`,
          },
        },
      ],
    },
    { text: improverAnswer(r) },
  ];
}

/** A scripted improver model on a Responses server, for improver sessions on the codex binary. */
export function startCodexImprover(r: ImproverReply): ScriptedServer {
  return startResponsesServer({ model: "improver-model", turns: codexImproverTurns(r) });
}

/**
 * The settings that put every improver session on the real codex binary against `improver` (its
 * model priced, as the codex channel requires), with `solverPrices` beside it in the price table.
 */
export function codexImproverEnv(
  improver: ScriptedServer,
  solverPrices: Record<string, { input: number; output: number }> = {},
): Record<string, string> {
  return {
    HARNESS2_IMPROVER_CHANNEL: "codex",
    HARNESS2_IMPROVER_MODEL: "improver-model",
    HARNESS2_IMPROVER_CODEX_BASE_URL: improver.url,
    HARNESS2_IMPROVER_CODEX_API_KEY: "improver-key",
    HARNESS2_CODEX_PRICES: JSON.stringify({
      ...solverPrices,
      "improver-model": { input: 3, output: 15 },
    }),
  };
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
 * The environment of a benchmark sweep against scripted servers: the improver on the codex binary
 * (a Responses server, see startCodexImprover), the solver on OpenCode (a chat server) or Codex (a
 * Responses server), the benchmark installed under `deps`, generous limits, no back-off, and an
 * offline judge endpoint (plus `extra`).
 */
export function benchSweepEnv(opts: {
  executor: "oc" | "cx";
  solver: ScriptedServer;
  improver: ScriptedServer;
  deps: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  const solverEnv: Record<string, string> =
    opts.executor === "oc"
      ? {
          OPENCODE_CONFIG_CONTENT: providersConfig({
            server: opts.solver,
            providerId: "solver",
            model: "solver-model",
          }),
          HARNESS2_SOLVER_MODEL: "solver/solver-model",
          ...codexImproverEnv(opts.improver),
        }
      : {
          HARNESS2_CODEX_BASE_URL: opts.solver.url,
          HARNESS2_CODEX_API_KEY: "scripted-key",
          HARNESS2_CODEX_MODEL: "mock-model",
          ...codexImproverEnv(opts.improver, { "mock-model": { input: 1, output: 2 } }),
        };
  return {
    ...solverEnv,
    HARNESS2_DEPENDENCIES: opts.deps,
    HARNESS2_ROLLOUT_TIMEOUT: "300",
    HARNESS2_PROPOSER_TIMEOUT: "300",
    HARNESS2_BACKOFF_S: "0",
    HARNESS2_JUDGE_BASE_URL: "http://judge.invalid/v1",
    HARNESS2_JUDGE_API_KEY: "offline-key",
    ...opts.extra,
  };
}
