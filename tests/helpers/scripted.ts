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
