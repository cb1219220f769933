"""Codex with a harness, as a Harbor agent of a WorkBuddy-Bench checkout (harness2's own).

Registered as `harness2-codex` (configs/harnesses/harness2-codex/). The job's
`harness_params_override` hands it `harness_workspace`: the harness's AGENTS.md, .agents/,
scripts/ and .codex/ (Codex reads them from its working folder's root). install() links Codex
from the split-mount image and copies those entries into /workspace, remembering which were not
there before; run() writes a CODEX_HOME whose only provider is the job's route (Responses wire
API), starts one `codex exec --json` in /workspace with the task's instruction on stdin, its events
tee'd to /logs/agent/codex-output.jsonl, and then removes the harness entries it added, so the
verifier sees the task's workspace as the agent left it.
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
    STAGE,
    WORKSPACE,
    CliAgent,
    endpoint,
    read_events,
    take_str,
    upload_harness,
    upload_text,
)

OUTPUT = "codex-output.jsonl"
ROOT_ENTRIES = ("AGENTS.md", ".agents", "scripts", ".codex")
ADDED = STAGE + "/added"


def toml_str(s: str) -> str:
    return json.dumps(s)


class Harness2CodexAgent(CliAgent, BaseInstalledAgent):
    """Codex carrying a harness2 harness at its workspace root."""

    SUPPORTS_ATIF: bool = False
    CLI = "codex"
    PACKAGE = "@openai/codex"
    MOUNT = "/opt/harness2-codex"
    VERSION_KEY = "CODEX_VERSION"

    def __init__(self, logs_dir: Path, *args, **kwargs):
        self._take_common(logs_dir, kwargs)
        if self._workspace is not None and (self._workspace / "sub_agents").exists():
            raise ValueError("a Codex harness has no sub_agents/ (Codex cannot load them)")
        self._effort = take_str(kwargs, "reasoning_effort") or "high"
        kwargs.pop("model_params", None)
        super().__init__(logs_dir, *args, version=self._version, **kwargs)

    @staticmethod
    def name() -> str:
        return "harness2-codex"

    async def install(self, environment: BaseEnvironment) -> None:
        await self._link_cli(environment)
        if self._workspace is None:
            return
        staged = await upload_harness(self, environment, self._workspace)
        entries = " ".join(shlex.quote(e) for e in ROOT_ENTRIES)
        await self.exec_as_agent(
            environment,
            command=(
                "cd %s && : > %s && for e in %s; do "
                '[ -e "%s/$e" ] || continue; [ -e "$e" ] || echo "$e" >> %s; cp -R "%s/$e" .; done'
            )
            % (WORKSPACE, ADDED, entries, staged, ADDED, staged),
        )

    def _config(self, base_url: str, model: str) -> str:
        return "\n".join(
            [
                "model = %s" % toml_str(model),
                'model_provider = "harness2"',
                "model_reasoning_effort = %s" % toml_str(self._effort),
                'approval_policy = "never"',
                'sandbox_mode = "danger-full-access"',
                "check_for_update_on_startup = false",
                "",
                "[history]",
                'persistence = "none"',
                "",
                "[model_providers.harness2]",
                'name = "harness2 route"',
                "base_url = %s" % toml_str(base_url),
                "env_key = %s" % toml_str(KEY_ENV),
                'wire_api = "responses"',
                "",
                "[projects.%s]" % toml_str(WORKSPACE),
                'trust_level = "trusted"',
                "",
            ]
        )

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        instruction = self.render_instruction(instruction)
        model = str(self.model_name or "")
        base_url, key = endpoint(
            self._connection, "HARNESS2_CX_BASE_URL", "HARNESS2_CX_API_KEY", self._trial, model
        )
        prompt = await upload_text(environment, "prompt", instruction)
        config = await upload_text(environment, "codex-config", self._config(base_url, model))
        await self.exec_as_root(environment, command="chmod -R a+rX %s" % shlex.quote(STAGE))
        env = {KEY_ENV: key}
        home = HOME_FIX + 'export CODEX_HOME="$HOME/.codex"; '
        await self.exec_as_agent(
            environment,
            command=home + 'mkdir -p "$CODEX_HOME" && cp %s "$CODEX_HOME/config.toml"' % shlex.quote(config),
            env=env,
        )
        run = (
            'export PATH="/usr/local/bin:$PATH"; ' + home + "cd %s && "
            "codex exec --json --skip-git-repo-check -C %s --model %s "
            "--dangerously-bypass-approvals-and-sandbox - < %s "
            "2>/logs/agent/codex-stderr.txt | tee /logs/agent/%s"
        ) % (WORKSPACE, WORKSPACE, shlex.quote(model), shlex.quote(prompt), OUTPUT)
        try:
            await self.exec_as_agent(environment, command=run, env=env)
        finally:
            if self._workspace is not None:
                await self.exec_as_agent(
                    environment,
                    command='cd %s && [ -f %s ] && while read -r e; do rm -rf -- "$e"; done < %s; true'
                    % (WORKSPACE, ADDED, ADDED),
                )

    def populate_context_post_run(self, context: AgentContext) -> None:
        tokens_in = tokens_out = cached = 0
        for ev in read_events(self.logs_dir / OUTPUT):
            if ev.get("type") != "turn.completed":
                continue
            usage = ev.get("usage") if isinstance(ev.get("usage"), dict) else {}
            tokens_in += int(usage.get("input_tokens") or 0)
            tokens_out += int(usage.get("output_tokens") or 0)
            cached += int(usage.get("cached_input_tokens") or 0)
        context.n_input_tokens = tokens_in
        context.n_output_tokens = tokens_out
        context.n_cache_tokens = cached
