// The one place an improver channel kind becomes a channel (HARNESS2_IMPROVER_CHANNEL): `run`,
// `check` and `check --live` all start sessions through it, so they never disagree on what a kind
// means. Each channel is loaded only when asked for.

import type { Channel } from "../core/seams/channel.ts";
import type { ChannelKind } from "../core/seams/channel-spec.ts";

/**
 * The channel of `kind` reading its settings from `env`; throws ChannelSetupError when it cannot
 * run at all. With a `model`, a channel that prices its own calls (Codex) also refuses a model it
 * has no price for.
 */
export async function makeChannel(
  kind: ChannelKind,
  env: Record<string, string | undefined>,
  model?: string,
): Promise<Channel> {
  switch (kind) {
    case "claude_cli": {
      const { ClaudeChannel } = await import("./claude-channel.ts");
      return new ClaudeChannel({ env });
    }
    case "codex": {
      const { CodexChannel } = await import("./codex-channel.ts");
      const channel = new CodexChannel({ env });
      if (model !== undefined && model !== "") channel.assertPriced(model);
      return channel;
    }
    case "opencode": {
      const { OpencodeChannel } = await import("./opencode-channel.ts");
      return new OpencodeChannel({ env });
    }
  }
}
