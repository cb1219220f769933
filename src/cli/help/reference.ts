// The command reference (docs/guide/commands.md), generated from the registry: each command's own
// help, exactly as `harness2 help COMMAND` prints it, so the two never drift. A test compares the
// file with this text; `bun run docs` writes it.

import { formatCommandHelp } from "../command.ts";
import { mainHelp } from "../main.ts";
import { COMMANDS } from "../registry.ts";

export async function commandReference(): Promise<string> {
  const out = [
    "# Command reference",
    "",
    "<!-- Generated from the command registry by `bun run docs`; a test keeps it equal. -->",
    "",
    "Every command, as `harness2 help COMMAND` prints it. Exit codes: the README's table.",
    "",
    "```text",
    mainHelp().trimEnd(),
    "```",
  ];
  for (const entry of COMMANDS) {
    const cmd = await entry.load();
    out.push("", `## ${cmd.name}`, "", "```text", formatCommandHelp(cmd).trimEnd(), "```");
  }
  return `${out.join("\n")}\n`;
}

if (import.meta.main) {
  const { writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const path = join(import.meta.dir, "../../../docs/guide/commands.md");
  writeFileSync(path, await commandReference());
  console.log(`wrote ${path}`);
}
