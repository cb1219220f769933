// `harness2 serve-model`: the offline way to run the task folder `harness2 init` writes, with no
// model provider. Starts two of the shipped scripted model servers on 127.0.0.1 — a solver and an
// improver (fixtures/servers/examples/init-*.json) — prints the exact `export` lines that point
// OpenCode and harness2 at them, and serves until Ctrl-C or SIGTERM. The scripted solver leaves the
// refunds out of its summary under the starting harness and counts them once the improvers' rule is
// in the harness, so `judge --bases` and `report` show a real, non-zero delta.

import { join } from "node:path";
import { defineCommand, type OptionSpecs } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { selfCommand } from "../self.ts";

const EXAMPLES = join(import.meta.dir, "../../../fixtures/servers/examples");
const SOLVER = { providerId: "h2solver", model: "solver-model" } as const;
const IMPROVER = { providerId: "h2improver", model: "improver-model" } as const;

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
  json: { type: "boolean", description: "print the env as one JSON object instead of lines" },
} as const satisfies OptionSpecs;

const serveModel = defineCommand({
  name: "serve-model",
  summary: "Serve scripted models offline for the task folder `harness2 init` writes (k=1)",
  args: "",
  help: [
    "Starts a scripted solver and a scripted improver on 127.0.0.1 and prints the env lines to",
    "paste into the shell where you run harness2; serves until Ctrl-C. Then, in that shell:",
    "  harness2 run --bench tasks --tasks DIR --k 1",
    "  harness2 judge last --bases && harness2 report last",
    "The replies are written for the task `init` scaffolds (reports/expense-summary) at --k 1;",
    "other tasks or k > 1 get answers that do not fit them.",
  ].join("\n"),
  options: OPTIONS,
  async run(args, io) {
    const solverPort = args.opts["solver-port"] ?? 0;
    const improverPort = args.opts["improver-port"] ?? 0;
    const { startChatServer } = await import("../../../fixtures/servers/chat-server.ts");
    const { opencodeProviderConfig } = await import("../../../fixtures/servers/opencode-config.ts");
    const script = (name: string) => Bun.file(join(EXAMPLES, name)).json();
    const solver = startChatServer(await script("init-solver.json"), { port: solverPort });
    const improver = startChatServer(await script("init-improver.json"), { port: improverPort });
    const provider = (url: string, who: { providerId: string; model: string }) =>
      opencodeProviderConfig(url, { ...who, cost: { input: 1, output: 2 } }).provider as object;
    const config = {
      autoupdate: false,
      share: "disabled",
      provider: { ...provider(solver.url, SOLVER), ...provider(improver.url, IMPROVER) },
    };
    const env: Record<string, string> = {
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      HARNESS2_SOLVER_MODEL: `${SOLVER.providerId}/${SOLVER.model}`,
      HARNESS2_IMPROVER_MODEL: `${IMPROVER.providerId}/${IMPROVER.model}`,
    };
    if (args.opts.json) {
      io.stdout(`${JSON.stringify({ solver: solver.url, improver: improver.url, env })}\n`);
    } else {
      const self = selfCommand(io.env, io.cwd);
      io.stdout(
        [
          `Scripted models: solver ${solver.url}, improver ${improver.url} (offline; Ctrl-C stops them).`,
          "Paste these lines into the shell where you run harness2:",
          ...Object.entries(env).map(([k, v]) => `export ${k}='${v}'`),
          "Then, for a folder made by harness2 init:",
          `  ${self} run --bench tasks --tasks DIR --k 1 && ${self} judge last --bases && ${self} report last`,
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
