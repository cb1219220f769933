// `harness2 config`: the effective settings — every HARNESS2_* setting that has a value, where the
// value came from (the environment, or which harness2.toml), secrets masked — and the files read
// (src/core/run/config-file.ts). With --keys, every key a harness2.toml may hold.

import { maskedStoreValue } from "../../core/lib/store-url.ts";
import {
  configPaths,
  keyOf,
  loadedSettings,
  readConfigFiles,
  SETTINGS,
} from "../../core/run/config-file.ts";
import { ENV_VARS } from "../../core/run/env-vars.ts";
import { defineCommand, type OptionSpecs } from "../command.ts";
import { EXIT } from "../exit-codes.ts";

const OPTIONS = {
  keys: {
    type: "boolean",
    description: "list every key a harness2.toml may hold, with its meaning",
  },
  json: { type: "boolean", description: "print the settings as one JSON object" },
} as const satisfies OptionSpecs;

/** A value as it may be shown: keys and tokens masked, a store URL's password too. */
export function shown(variable: string, value: string): string {
  if (/KEY|TOKEN|PASSWORD|SECRET/.test(variable)) return value === "" ? "" : "***";
  return maskedStoreValue(value);
}

const config = defineCommand({
  name: "config",
  summary: "Show the effective settings and where each comes from (environment or harness2.toml)",
  help: [
    "Settings come from HARNESS2_* variables, else from harness2.toml in the working folder, else",
    "from harness2.toml in the user's config folder ($XDG_CONFIG_HOME/harness2, default",
    "~/.config/harness2). A key is the variable's name without HARNESS2_, in lower case:",
    '  solver_model = "anthropic/claude-sonnet-4-5"',
    "  phase_width = 2",
    "Secrets are shown as ***.",
  ].join("\n"),
  options: OPTIONS,
  async run(args, io) {
    if (args.opts.keys) {
      const help = new Map(ENV_VARS.map((v) => [v.name, v.help]));
      const rows = SETTINGS.map((v) => `  ${keyOf(v).padEnd(26)} ${help.get(v) ?? `sets ${v}`}`);
      io.stdout(`Keys of harness2.toml:\n${rows.join("\n")}\n`);
      return EXIT.ok;
    }
    // main merged the files into io.env at the start; what it read says where each came from.
    const files = loadedSettings() ?? readConfigFiles(io.env, io.cwd);
    const settings = SETTINGS.filter((v) => io.env[v] !== undefined && io.env[v] !== "").map(
      (v) => {
        const origin = files.origins[v];
        const from = origin === undefined || origin.source === "env" ? "environment" : origin.path;
        return { key: keyOf(v), variable: v, value: shown(v, io.env[v] as string), from };
      },
    );
    const looked = configPaths(io.env, io.cwd);
    if (args.opts.json) {
      io.stdout(`${JSON.stringify({ files: files.files, lookedAt: looked, settings }, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout(
      files.files.length > 0
        ? `Files read: ${files.files.join(", ")}\n`
        : `No harness2.toml found (looked at ${looked.join(" and ")}); every setting comes from the environment or its default.\n`,
    );
    if (settings.length === 0) {
      io.stdout(
        "No setting is set: every one has its default (harness2 config --keys lists them).\n",
      );
      return EXIT.ok;
    }
    const width = Math.max(...settings.map((s) => s.variable.length));
    for (const s of settings) io.stdout(`  ${s.variable.padEnd(width)}  ${s.value}  (${s.from})\n`);
    return EXIT.ok;
  },
});

export default config;
