// The check command's model checks: the solver and improver model settings, the channel each
// improver runs on, and whether the provider's credentials are present (offline; never sends).

import { existsSync, readFileSync } from "node:fs";
import type { RunConfig } from "../../core/run/run-config.ts";
import type { Report } from "./report.ts";

// ── models ───────────────────────────────────────────────────────────────────────────────────

/** Provider ids defined in the user's OpenCode config (file or inline), or null when unreadable. */
export function configuredProviders(
  report: Report,
  env: Record<string, string | undefined>,
): Set<string> {
  const out = new Set<string>();
  const add = (raw: string, where: string, fix: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      report.line("FAIL", where, `is not valid JSON (${(err as Error).message})`, fix);
      return;
    }
    const providers = (parsed as { provider?: unknown } | null)?.provider;
    if (providers !== null && typeof providers === "object") {
      for (const id of Object.keys(providers)) out.add(id);
    }
  };
  const inline = env.OPENCODE_CONFIG_CONTENT;
  if (inline) add(inline, "OPENCODE_CONFIG_CONTENT", "give it the JSON of an opencode.json");
  const file = env.HARNESS2_OPENCODE_CONFIG;
  if (file && existsSync(file)) {
    add(readFileSync(file, "utf8"), `HARNESS2_OPENCODE_CONFIG=${file}`, "fix the file's JSON");
  }
  return out;
}

/** Credential variables of the built-in providers (any one of them is enough). */
export async function providerKeys(provider: string): Promise<readonly string[]> {
  const { OPENCODE_PROVIDER_ENV } = await import("../../agent-cli/opencode.ts");
  return (OPENCODE_PROVIDER_ENV[provider] ?? []).filter((v) => /_(API_KEY|TOKEN_BEDROCK)$/.test(v));
}

export async function checkModels(
  report: Report,
  env: Record<string, string | undefined>,
  config: RunConfig,
  opts: { solverOnOpencode?: boolean } = {},
): Promise<boolean> {
  const before = report.problems;
  const onOpencode = opts.solverOnOpencode ?? true;
  const solver = onOpencode ? config.solverModel : "";
  const example = "anthropic/claude-sonnet-4-5";
  if (!onOpencode) {
    // The Codex executor's model is checked with its endpoint (check/codex.ts).
  } else if (solver === "") {
    report.line(
      "FAIL",
      "HARNESS2_SOLVER_MODEL",
      "is not set: the executor model, as provider/model",
      `set HARNESS2_SOLVER_MODEL=provider/model (e.g. ${example}) in .env or the shell`,
    );
  } else if (!solver.includes("/")) {
    report.line(
      "FAIL",
      "HARNESS2_SOLVER_MODEL",
      `${JSON.stringify(solver)} has no provider prefix; OpenCode needs provider/model`,
      `write it as provider/model, e.g. ${example}`,
    );
  } else report.line("ok", "solver model", `${solver} (HARNESS2_SOLVER_MODEL)`);

  const kind = config.improverChannel;
  const improver = config.improverModel;
  if (improver === "" && (solver !== "" || !onOpencode)) {
    report.line("FAIL", "HARNESS2_IMPROVER_MODEL", "is not set", "set HARNESS2_IMPROVER_MODEL");
  } else if (improver !== "") {
    // Unset, the improver model is the solver's: a problem with it must say where it came from.
    const inherited = env.HARNESS2_IMPROVER_MODEL?.trim()
      ? ""
      : " (unset, so inherited from HARNESS2_SOLVER_MODEL)";
    if (kind === "opencode" && !improver.includes("/")) {
      report.line(
        "FAIL",
        "HARNESS2_IMPROVER_MODEL",
        `${JSON.stringify(improver)}${inherited} has no provider prefix, which the opencode channel needs`,
        `write it as provider/model (e.g. ${example}), or set HARNESS2_IMPROVER_CHANNEL=claude_cli for a bare Claude id`,
      );
    } else if (kind === "claude_cli" && improver.includes("/")) {
      report.line(
        "FAIL",
        "HARNESS2_IMPROVER_MODEL",
        `${JSON.stringify(improver)}${inherited} has a provider prefix, but the claude_cli channel takes a bare Claude id`,
        "drop the prefix (e.g. claude-sonnet-4-5), or set HARNESS2_IMPROVER_CHANNEL=opencode",
      );
    } else {
      const from = env.HARNESS2_IMPROVER_MODEL?.trim()
        ? "HARNESS2_IMPROVER_MODEL"
        : "the solver model";
      report.line("ok", "improver model", `${improver} on the ${kind} channel (${from})`);
    }
  }

  for (const [variable, model] of [
    ["HARNESS2_SOLVER_MODEL", solver],
    ["HARNESS2_IMPROVER_MODEL", improver],
  ] as const) {
    if (model.startsWith("google-vertex") && config.project === "") {
      report.line(
        "FAIL",
        variable,
        `${model} runs on Vertex AI and needs a project`,
        "set GOOGLE_CLOUD_PROJECT (or HARNESS2_VERTEX_PROJECT)",
      );
    }
  }
  if (kind === "codex" && improver !== "") {
    const { makeChannel } = await import("../../channels/make-channel.ts");
    const { ChannelSetupError } = await import("../../agent-cli/session-env.ts");
    try {
      await makeChannel("codex", env, improver);
      report.line("ok", "codex improvers", `${improver}, priced from HARNESS2_CODEX_PRICES`);
    } catch (err) {
      if (!(err instanceof ChannelSetupError)) throw err;
      report.line("FAIL", "codex improvers", err.reason, err.hint);
    }
  }
  if (kind === "claude_cli") {
    const { ClaudeChannel } = await import("../../channels/claude-channel.ts");
    const { ChannelSetupError } = await import("../../agent-cli/session-env.ts");
    try {
      const claude = new ClaudeChannel({ env });
      report.line("ok", "claude", `${claude.executable} (improver channel claude_cli)`);
    } catch (err) {
      if (!(err instanceof ChannelSetupError)) throw err;
      report.line("FAIL", "claude", err.reason, err.hint);
    }
  }
  if (report.problems === before) {
    const models = onOpencode ? [{ role: "solver", model: solver }] : [];
    if (kind === "opencode") models.push({ role: "improver", model: improver });
    await checkCredentials(report, env, models);
  }
  return report.problems === before;
}

export async function checkCredentials(
  report: Report,
  env: Record<string, string | undefined>,
  models: { role: string; model: string }[],
): Promise<boolean> {
  const defined = configuredProviders(report, env);
  let ok = true;
  const seen = new Set<string>();
  for (const { role, model } of models) {
    const provider = model.split("/")[0] ?? "";
    if (seen.has(provider) || defined.has(provider)) continue;
    seen.add(provider);
    const keys = await providerKeys(provider);
    if (keys.length > 0 && !keys.some((k) => env[k]?.trim())) {
      ok = false;
      report.line(
        "FAIL",
        `${role} credentials`,
        `${model} needs ${keys.join(" or ")}, and none is set (sessions run with their own config dirs, so an \`opencode auth login\` is not seen)`,
        `export ${keys[0]}=… in .env or the shell`,
      );
    }
  }
  return ok;
}
