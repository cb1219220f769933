// What every improver channel shares: the environment a CLI session may see besides its provider's
// own variables, the setup error, and small text helpers for error tails. Never reads credentials
// itself: a channel names the variables it passes through, and nothing else reaches the child.

import { basename, dirname, join, resolve } from "node:path";
import { NETWORK_ENV, which } from "../core/lib/process.ts";
import { ChannelSetupError as CoreChannelSetupError } from "../core/seams/channel.ts";

/** The checkout harness2 runs from: its `node_modules/.bin` holds the pinned agent CLIs. */
export const PROJECT_ROOT = resolve(import.meta.dir, "../..");

/**
 * Where the package manager put harness2's own dependencies: `<checkout>/node_modules` for a
 * checkout, and the folder harness2 itself sits in when it was installed as a package of another
 * project (`<project>/node_modules/harness2` → `<project>/node_modules`, where they are hoisted).
 */
export function dependencyFolders(root: string = PROJECT_ROOT): string[] {
  const own = join(root, "node_modules");
  const parent = dirname(root);
  return basename(parent) === "node_modules" ? [own, parent] : [own];
}

/**
 * An agent CLI's executable: the pinned one harness2 brought (`.bin/<name>` in its dependency
 * folders, from the install) first, then `name` on the environment's PATH; null when none exists.
 */
export function pinnedOrOnPath(
  name: string,
  env: Record<string, string | undefined>,
  root: string = PROJECT_ROOT,
): string | null {
  for (const deps of dependencyFolders(root)) {
    const found = which(join(deps, ".bin", name), env);
    if (found !== null) return found;
  }
  return which(name, env);
}

/**
 * Variables any CLI session gets from the parent when set: executable search path, locale, time
 * zone, temp dir, identity, shell (the agents' bash tools use it), and network plumbing
 * (proxies, extra CA certificates) that a provider may need to be reached at all.
 */
export const SESSION_BASE_ENV = [
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "SHELL",
  ...NETWORK_ENV,
] as const;

/** Amazon Bedrock's credentials and region, as both CLIs read them. */
export const BEDROCK_ENV = [
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
  "AWS_BEARER_TOKEN_BEDROCK",
] as const;

/**
 * A channel cannot run at all (missing CLI or checkout, unreadable config): retrying cannot help.
 * The core class with the reason and the remedy kept apart, so the proposer never retries it.
 */
export class ChannelSetupError extends CoreChannelSetupError {
  constructor(
    channel: string,
    readonly reason: string,
    readonly hint: string,
  ) {
    super(`${channel} channel: ${reason}. ${hint}`, channel);
  }
}

/** The last `n` characters of `text`, trimmed. */
export function lastChars(text: string, n: number): string {
  const t = text.trim();
  return t.length > n ? t.slice(t.length - n) : t;
}

/** "rc=1", or "signal=SIGKILL" when the process ended by a signal. */
export function exitLabel(code: number | null, signal: string | null): string {
  return code !== null ? `rc=${code}` : `signal=${signal ?? "unknown"}`;
}
