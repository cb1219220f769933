// `harness2 serve-model`: the offline way to run the task folder `harness2 init` writes, with no
// model provider. Starts two of the shipped scripted model servers on 127.0.0.1 — a solver and an
// improver (fixtures/servers/examples/init-*.json) — prints the exact `export` lines that point
// the agent CLI and harness2 at them, and serves until Ctrl-C or SIGTERM. The scripted solver
// leaves the refunds out of its summary under the starting harness and counts them once the
// improvers' rule is in the harness, so `judge --bases` and `report` show a real, non-zero delta.
// `--substrate oc` (default) serves chat completions for OpenCode; `--substrate cx` serves the
// Responses API for Codex, which then runs every session, rollouts and improvers alike.

import { join } from "node:path";
import type { ScriptedServer } from "../../../fixtures/servers/script.ts";
import { defineCommand, type OptionSpecs } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../help/self.ts";
import { SUBSTRATE_OPTION } from "../sweep/cell-options.ts";

const EXAMPLES = join(import.meta.dir, "../../../fixtures/servers/examples");
const SOLVER = { providerId: "h2solver", model: "solver-model" } as const;
const IMPROVER = { providerId: "h2improver", model: "improver-model" } as const;
/** What the scripted models cost, USD per million tokens (so spend columns show something). */
const PRICE = { input: 1, output: 2 } as const;

const OPTIONS = {
  "solver-port": {
    type: "int",
    min: 0,
    max: 65535,
    valueName: "N",
    description: "the solver's port (default: any free)",
  },
  "improver-port": {
    type: "int",
    min: 0,
    max: 65535,
    valueName: "N",
    description: "the improver's port (default: any free)",
  },
  ...SUBSTRATE_OPTION,
  json: { type: "boolean", description: "print the env as one JSON object instead of lines" },
} as const satisfies OptionSpecs;

type Served = { solver: ScriptedServer; improver: ScriptedServer; env: Record<string, string> };
type Ports = { solver: number; improver: number };
const script = (name: string) => Bun.file(join(EXAMPLES, name)).json();

/** OpenCode: chat-completions servers, one provider config naming both. */
async function serveOpencode(ports: Ports): Promise<Served> {
  const { startChatServer } = await import("../../../fixtures/servers/chat-server.ts");
  const { opencodeProviderConfig } = await import("../../../fixtures/servers/opencode-config.ts");
  const solver = startChatServer(await script("init-solver.json"), { port: ports.solver });
  const improver = startChatServer(await script("init-improver.json"), { port: ports.improver });
  const provider = (url: string, who: { providerId: string; model: string }) =>
    opencodeProviderConfig(url, { ...who, cost: PRICE }).provider as object;
  const config = {
    autoupdate: false,
    share: "disabled",
    provider: { ...provider(solver.url, SOLVER), ...provider(improver.url, IMPROVER) },
  };
  return {
    solver,
    improver,
    env: {
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      HARNESS2_SOLVER_MODEL: `${SOLVER.providerId}/${SOLVER.model}`,
      HARNESS2_IMPROVER_MODEL: `${IMPROVER.providerId}/${IMPROVER.model}`,
    },
  };
}

/** Codex: Responses servers, the executor and the improvers each pointed at theirs, both priced. */
async function serveCodex(ports: Ports): Promise<Served> {
  const { startResponsesServer } = await import("../../../fixtures/servers/responses-server.ts");
  const solver = startResponsesServer(await script("init-codex-solver.json"), {
    port: ports.solver,
  });
  const improver = startResponsesServer(await script("init-codex-improver.json"), {
    port: ports.improver,
  });
  return {
    solver,
    improver,
    env: {
      HARNESS2_CODEX_BASE_URL: solver.url,
      HARNESS2_CODEX_API_KEY: "scripted-solver-key",
      HARNESS2_CODEX_MODEL: SOLVER.model,
      HARNESS2_IMPROVER_CHANNEL: "codex",
      HARNESS2_IMPROVER_MODEL: IMPROVER.model,
      HARNESS2_IMPROVER_CODEX_BASE_URL: improver.url,
      HARNESS2_IMPROVER_CODEX_API_KEY: "scripted-improver-key",
      HARNESS2_CODEX_PRICES: JSON.stringify({ [SOLVER.model]: PRICE, [IMPROVER.model]: PRICE }),
    },
  };
}

const serveModel = defineCommand({
  name: "serve-model",
  summary: "Serve scripted models offline for the task folder `harness2 init` writes (k=1)",
  args: "",
  help: [
    "Starts a scripted solver and a scripted improver on 127.0.0.1 and prints the env lines to",
    "paste into the shell where you run harness2; serves until Ctrl-C. Then, in that shell:",
    "  harness2 run --bench tasks --tasks DIR --k 1        (add --substrate cx for Codex)",
    "  harness2 judge last --bases && harness2 report last",
    "--substrate cx serves the Responses API instead, and every session (rollouts and improvers)",
    "runs on Codex. The replies are written for the task `init` scaffolds",
    "(reports/expense-summary) at --k 1; other tasks or k > 1 get answers that do not fit them.",
  ].join("\n"),
  options: OPTIONS,
  async run(args, io) {
    const ports = {
      solver: args.opts["solver-port"] ?? 0,
      improver: args.opts["improver-port"] ?? 0,
    };
    const codex = args.opts.substrate === "cx";
    const { solver, improver, env } = codex ? await serveCodex(ports) : await serveOpencode(ports);
    if (args.opts.json) {
      io.stdout(`${JSON.stringify({ solver: solver.url, improver: improver.url, env })}\n`);
    } else {
      const self = selfCommand(io.env, io.cwd);
      const substrate = codex ? " --substrate cx" : "";
      io.stdout(
        [
          `Scripted models${codex ? " for Codex" : ""}: solver ${solver.url}, improver ${improver.url} (offline; Ctrl-C stops them).`,
          "Paste these lines into the shell where you run harness2:",
          ...Object.entries(env).map(([k, v]) => `export ${k}='${v}'`),
          "Then, for a folder made by harness2 init:",
          `  ${self} run --bench tasks${substrate} --tasks DIR --k 1 && ${self} judge last --bases && ${self} report last`,
          "",
        ].join("\n"),
      );
    }
    // Served until asked to stop; a stop is the normal end of this command.
    await new Promise<void>((done) => {
      process.once("SIGINT", done);
      process.once("SIGTERM", done);
    });
    await Promise.all([solver.stop(), improver.stop()]);
    return EXIT.ok;
  },
});

export default serveModel;
