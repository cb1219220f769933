// The executor's web policy (docs/method.md "The web"): every benchmark harness2 runs is public,
// and JobBench publishes each task's rubric online, so by default an executor reaches only its
// model endpoint. `run --allow-web` (HARNESS2_ALLOW_WEB=1) opts out. Every sweep records which
// policy it ran under, and how far this platform enforced it.

import { ConfigError } from "./env-vars.ts";

export const ALLOW_WEB = "HARNESS2_ALLOW_WEB";

/** OpenCode's tools that reach the web, denied by default. */
export const WEB_TOOLS = ["webfetch", "websearch", "codesearch"] as const;

/** Whether the executor may reach the web: HARNESS2_ALLOW_WEB=1; unset, "" or 0 is no. */
export function webAllowed(env: Record<string, string | undefined>): boolean {
  const v = env[ALLOW_WEB]?.trim() ?? "";
  if (v === "" || v === "0") return false;
  if (v === "1") return true;
  throw new ConfigError(
    ALLOW_WEB,
    env[ALLOW_WEB],
    "1 (the executor may reach the web) or 0 (it may not; the default)",
  );
}

/** OPENCODE_PERMISSION's JSON with the web tools denied (when the web is not allowed). */
export function withWebTools(permissionJson: string, allowed: boolean): string {
  if (allowed) return permissionJson;
  const rules = JSON.parse(permissionJson) as Record<string, unknown>;
  for (const tool of WEB_TOOLS) rules[tool] = "deny";
  return JSON.stringify(rules);
}

export type WebPolicy = {
  /** off: the executor reaches only its model endpoint, as far as `how` says; allowed: --allow-web; open: nothing closes it. */
  web: "off" | "allowed" | "open";
  how: string;
};

/** The policy a sweep runs under, per executor, and how far it is enforced here. */
export function webPolicyOf(env: Record<string, string | undefined>, executor: string): WebPolicy {
  const allowed = webAllowed(env);
  if (executor === "cx") {
    if ((env.HARNESS2_CODEX_SANDBOX?.trim() || "workspace-write") === "bypass") {
      return {
        web: allowed ? "allowed" : "open",
        how: "HARNESS2_CODEX_SANDBOX=bypass runs Codex without its sandbox: its network is not closed",
      };
    }
    return allowed
      ? { web: "allowed", how: "--allow-web: Codex's sandbox with network" }
      : { web: "off", how: "Codex's sandbox without network (its commands reach no host)" };
  }
  if (executor === "oc") {
    return allowed
      ? { web: "allowed", how: "--allow-web: OpenCode's web tools allowed" }
      : {
          web: "off",
          how: "OpenCode's web tools (webfetch, websearch, codesearch) denied; a program its shell runs is not confined",
        };
  }
  return allowed
    ? { web: "allowed", how: "--allow-web" }
    : {
        web: "off",
        how: "the executor is a local script that calls no model and opens no connection",
      };
}

/** The report's note for a sweep's recorded policy; null when it recorded none (an older sweep). */
export function webNote(identity: Record<string, unknown>): string | null {
  const w = identity.web as Partial<WebPolicy> | undefined;
  if (w === undefined || typeof w.web !== "string") return null;
  const what =
    w.web === "off" ? "the executor could not reach the web" : "the executor could reach the web";
  return `web: ${what} (${String(w.how ?? "")})`;
}
