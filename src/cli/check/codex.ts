// The check command's Codex executor checks (`check --substrate cx`): the codex binary and its
// pinned version, the endpoint, key, model, effort, sandbox and price settings, and whether the
// endpoint's port answers. Sends no model request.

import pkg from "../../../package.json" with { type: "json" };
import type { RunConfig } from "../../core/run/run-config.ts";
import type { Report } from "./report.ts";

export async function checkCodex(
  report: Report,
  env: Record<string, string | undefined>,
  config: RunConfig,
  scratch: string,
): Promise<boolean> {
  const { CodexSubstrate } = await import("../../substrate/codex/substrate.ts");
  const { CodexSetupError } = await import("../../agent-cli/codex.ts");
  const { loadPriceTable } = await import("../../agent-cli/codex-prices.ts");
  const codex = new CodexSubstrate({ env });
  const before = report.problems;
  const fail = (err: unknown, subject: string): void => {
    if (!(err instanceof CodexSetupError)) throw err;
    report.line("FAIL", subject, err.reason, err.hint);
  };
  try {
    const version = await codex.version(scratch);
    const pinned = pkg.dependencies["@openai/codex"];
    const source = codex.command.source;
    if (env.HARNESS2_CODEX_BIN) {
      report.line("ok", "codex", `${version} from ${source} (HARNESS2_CODEX_BIN: not pinned)`);
    } else if (version !== pinned) {
      report.line(
        "FAIL",
        "codex",
        `${source} is version ${version}, not the pinned ${pinned}`,
        "run `bun install` in the harness2 folder",
      );
    } else report.line("ok", "codex", `${version} (${source})`);
  } catch (err) {
    fail(err, "codex");
  }
  const model = codex.modelOf(config);
  try {
    codex.preflight(model);
    const prices = loadPriceTable(env);
    const priced = prices[model] !== undefined;
    report.line(
      "ok",
      "codex model",
      `${model} at ${config.codexBaseUrl} (sandbox ${env.HARNESS2_CODEX_SANDBOX?.trim() || "workspace-write"})`,
    );
    report.line(
      priced ? "ok" : "note",
      "codex prices",
      priced
        ? `${model} is priced from HARNESS2_CODEX_PRICES`
        : `${model} has no price in HARNESS2_CODEX_PRICES: rollout costs are recorded as unknown`,
    );
    await codex.reachable(model);
    report.line("ok", "codex endpoint", `${config.codexBaseUrl} accepts connections`);
  } catch (err) {
    fail(err, "codex setup");
  }
  return report.problems === before;
}
