"""OpenCode with a harness, as a Harbor agent of a WorkBuddy-Bench checkout (harness2's own).

Registered as `harness2-opencode` (configs/harnesses/harness2-opencode/). The job's
`harness_params_override` hands it, per rollout:
  harness_workspace     a folder of the harness's skills/, sub_agents/<n>/AGENT.md, plugin/<n>.ts
                        and scripts/<n>.py (absent: stock OpenCode, the base of the OpenCode cell)
  prompt_template_path  the composed always-on text ending in the one `{{ instruction }}` slot
install() links OpenCode from the split-mount image and puts the harness into the agent user's
home (skills → ~/.config/opencode/skills/, sub-agents → ~/.config/opencode/agent/<n>.md, plugins →
~/.config/opencode/plugin/, scripts → ~/harness_scripts/); run() starts one `opencode run` in
/workspace with the template's text before the task's instruction, its JSON events tee'd to
/logs/agent/opencode-output.jsonl, which harness2 reads back as the rollout's trajectory.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from harbor.agents.installed.base import BaseInstalledAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

from harness2_wb.common import (
    HOME_FIX,
    KEY_ENV,
    WORKSPACE,
    CliAgent,
    compose_prompt,
    endpoint,
    read_events,
    take_str,
    upload_harness,
)

OUTPUT = "opencode-output.jsonl"
PROVIDER = "harness2"

# The harness's folders and where OpenCode reads each from in its home.
INSTALL = (
    'mkdir -p "$HOME/.config/opencode" "$HOME/harness_scripts"; '
    'if [ -d "$H/skills" ]; then mkdir -p "$HOME/.config/opencode/skills" && cp -R "$H/skills/." "$HOME/.config/opencode/skills/"; fi; '
    'if [ -d "$H/plugin" ]; then mkdir -p "$HOME/.config/opencode/plugin" && cp -R "$H/plugin/." "$HOME/.config/opencode/plugin/"; fi; '
    'if [ -d "$H/scripts" ]; then cp -R "$H/scripts/." "$HOME/harness_scripts/"; fi; '
    'if [ -d "$H/sub_agents" ]; then mkdir -p "$HOME/.config/opencode/agent"; '
    'for d in "$H"/sub_agents/*/; do n="$(basename "$d")"; [ -f "$d/AGENT.md" ] && cp "$d/AGENT.md" "$HOME/.config/opencode/agent/$n.md"; done; fi; '
    "true"
)


class Harness2OpenCodeAgent(CliAgent, BaseInstalledAgent):
    """OpenCode carrying a harness2 harness (or none, for the base rollouts)."""

    SUPPORTS_ATIF: bool = False
    CLI = "opencode"
    PACKAGE = "opencode-ai"
    MOUNT = "/opt/harness2-opencode"
    VERSION_KEY = "OPENCODE_VERSION"

    def __init__(self, logs_dir: Path, *args, **kwargs):
        self._take_common(logs_dir, kwargs)
        self._template = take_str(kwargs, "prompt_template_path")
        if self._template and self._workspace is None:
            raise ValueError("prompt_template_path needs a harness_workspace")
        params = kwargs.pop("model_params", None) or {}
        self._max_output = params.get("max_output_tokens")
        super().__init__(logs_dir, *args, version=self._version, **kwargs)

    @staticmethod
    def name() -> str:
        return "harness2-opencode"

    async def install(self, environment: BaseEnvironment) -> None:
        await self._link_cli(environment)
        if self._workspace is not None:
            staged = await upload_harness(self, environment, self._workspace)
            await self.exec_as_agent(
                environment, command=HOME_FIX + "H=%s; %s" % (shlex.quote(staged), INSTALL)
            )

    def _config(self, base_url: str, model: str) -> dict:
        limit = {"output": int(self._max_output)} if self._max_output else {}
        return {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "model": "%s/%s" % (PROVIDER, model),
            "permission": {"edit": "allow", "bash": "allow"},
            "provider": {
                PROVIDER: {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "harness2 route",
                    "options": {"baseURL": base_url, "apiKey": "{env:%s}" % KEY_ENV},
                    "models": {model: {"limit": limit} if limit else {}},
                }
            },
        }

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        instruction = self.render_instruction(instruction)
        prompt = compose_prompt(self._template, instruction)
        model = str(self.model_name or "")
        base_url, key = endpoint(
            self._connection, "HARNESS2_OC_BASE_URL", "HARNESS2_OC_API_KEY", self._trial, model
        )
        config = shlex.quote(json.dumps(self._config(base_url, model)))
        env = {KEY_ENV: key, "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1"}
        await self.exec_as_agent(
            environment,
            command=HOME_FIX + 'mkdir -p "$HOME/.config/opencode" && printf %%s %s > "$HOME/.config/opencode/opencode.json"' % config,
            env=env,
        )
        run = (
            'export PATH="/usr/local/bin:$PATH"; ' + HOME_FIX + "cd %s && "
            "opencode run --format json -m %s -- %s 2>/logs/agent/opencode-stderr.txt </dev/null "
            "| tee /logs/agent/%s"
        ) % (WORKSPACE, shlex.quote("%s/%s" % (PROVIDER, model)), shlex.quote(prompt), OUTPUT)
        await self.exec_as_agent(environment, command=run, env=env)

    def populate_context_post_run(self, context: AgentContext) -> None:
        tokens_in = tokens_out = cached = 0
        cost = 0.0
        for ev in read_events(self.logs_dir / OUTPUT):
            part = ev.get("part") if isinstance(ev.get("part"), dict) else {}
            if ev.get("type") != "step_finish":
                continue
            tokens = part.get("tokens") if isinstance(part.get("tokens"), dict) else {}
            cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
            tokens_in += int(tokens.get("input") or 0)
            tokens_out += int(tokens.get("output") or 0)
            cached += int(cache.get("read") or 0)
            cost += float(part.get("cost") or 0.0)
        context.n_input_tokens = tokens_in
        context.n_output_tokens = tokens_out
        context.n_cache_tokens = cached
        context.cost_usd = cost
