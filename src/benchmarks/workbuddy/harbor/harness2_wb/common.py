"""What harness2's two Harbor agents share (docs/benchmarks.md "WorkBuddy: our agents").

harness2 writes these files into a WorkBuddy-Bench checkout (`harness2 setup --bench wb`); the
checkout's runner imports them through the harness configurations harness2 installs beside them
(`configs/harnesses/harness2-*/`). They use only the agent interface the checkout's own agents use
(src/workbuddy_bench/agents/cc_agent.py: `BaseInstalledAgent`, `exec_as_root`, `exec_as_agent`,
`render_instruction`, `populate_context_post_run`) and the environment calls its verifier uses
(src/workbuddy_bench/judge/runtime/harbor.py: `upload_dir`).
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from pathlib import Path

# Where an uploaded harness and prompt land in the container before they are put in place.
STAGE = "/tmp/harness2"
# The task's working folder in every WorkBuddy container (datasets/README.md: the task
# Dockerfile unpacks workspace.tar.gz into /workspace).
WORKSPACE = "/workspace"
# The one slot of an adapted OpenCode harness's prompt template.
SLOT = "{{ instruction }}"
# The variable the CLI reads its key from inside the container.
KEY_ENV = "HARNESS2_AGENT_API_KEY"
# Re-derive HOME from the running user, as the checkout's own agents do (cc_agent.py): a task
# image may bake a HOME the agent user cannot write.
HOME_FIX = 'export HOME="$(getent passwd "$(id -u)" | cut -d: -f6)"; '


class HarnessRefused(ValueError):
    """A harness the agent cannot install as it was given (never started in a container)."""


def take_str(kwargs: dict, key: str) -> str:
    value = kwargs.pop(key, None)
    return "" if value is None else str(value)


# What the runner passes every agent (runner/prepare_job.py) that harness2's agents have no use for.
UNUSED_KWARGS = ("instance_id", "settings_preset", "models_preset", "context_window", "context_compact_pct")


def drop_unused(kwargs: dict) -> None:
    for key in UNUSED_KWARGS:
        kwargs.pop(key, None)


def check_template(text: str) -> None:
    """An adapted prompt template holds the slot exactly once, at its very end, and nothing else
    that looks like template syntax (harness2 validates the same before a harness is adopted)."""
    if text.count(SLOT) != 1 or not text.rstrip().endswith(SLOT):
        raise HarnessRefused("the prompt template must end with %s, once" % SLOT)
    rest = text.replace(SLOT, "")
    for opener in ("{{", "{%", "{#"):
        if opener in rest:
            raise HarnessRefused("the prompt template holds %r besides its slot" % opener)


def compose_prompt(template_path: str, instruction: str) -> str:
    if not template_path:
        return instruction
    text = Path(template_path).read_text(encoding="utf-8")
    check_template(text)
    return text.replace(SLOT, instruction)


def harness_folder(path: str) -> Path | None:
    if not path:
        return None
    folder = Path(path)
    if not folder.is_absolute() or not folder.is_dir():
        raise HarnessRefused("harness_workspace is not a folder: %s" % path)
    for p in folder.rglob("*"):
        if p.is_symlink():
            raise HarnessRefused("the harness holds a link: %s" % p)
    return folder


async def upload_text(environment, name: str, text: str) -> str:
    """Puts `text` into the container as STAGE/<name>/text and returns that path."""
    with tempfile.TemporaryDirectory(prefix="harness2-") as tmp:
        (Path(tmp) / "text").write_text(text, encoding="utf-8")
        target = "%s/%s" % (STAGE, name)
        await environment.upload_dir(source_dir=Path(tmp), target_dir=target)
    return target + "/text"


async def upload_harness(agent, environment, folder: Path) -> str:
    """Uploads the harness folder and makes it readable by the agent user."""
    target = STAGE + "/harness"
    await environment.upload_dir(source_dir=folder, target_dir=target)
    await agent.exec_as_root(environment, command="chmod -R a+rX %s" % shlex.quote(STAGE))
    return target


async def link_cli(agent, environment, mount_path: str, cli: str, package: str) -> None:
    """The CLI from the harness's split-mount image onto PATH; npm only on an image without it."""
    mount_bin = "%s/bin/%s" % (mount_path.rstrip("/"), cli)
    await agent.exec_as_root(
        environment,
        command=(
            'export PATH="/usr/local/bin:$PATH"; '
            "[ -x %s ] && ln -sf %s /usr/local/bin/%s; "
            "command -v %s >/dev/null 2>&1 || npm install -g --force %s; "
            "%s --version"
        )
        % (shlex.quote(mount_bin), shlex.quote(mount_bin), cli, cli, shlex.quote(package), cli),
    )


def endpoint(connection: dict, base_env: str, key_env: str, session: str, model: str) -> tuple[str, str]:
    """The base URL and key the CLI uses: the job's proxy under local_proxy (the key names the
    trial and the route, as the checkout's agents do), else the backend the runner exported."""
    if str(connection.get("mode") or "direct") == "local_proxy":
        proxy = str(connection.get("proxy_url") or "").rstrip("/")
        if not proxy:
            raise HarnessRefused("model_connection is local_proxy but the job has no proxy_url")
        return proxy + "/v1", ("%s::%s" % (session, model)) if session else model
    base = os.environ.get(base_env, "")
    key = os.environ.get(key_env, "")
    if not base or not key:
        raise HarnessRefused("%s and %s must be set for a direct connection" % (base_env, key_env))
    return base, key


def trial_of(logs_dir) -> str:
    """The trial's name: the folder that holds the agent's logs folder (cc_agent.py does the same)."""
    p = Path(logs_dir)
    return p.parent.name if p.name == "agent" else ""


def read_events(path: Path) -> list[dict]:
    events: list[dict] = []
    if not path.is_file():
        return events
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(ev, dict):
            events.append(ev)
    return events


class CliAgent:
    """What both agents share: their CLI from the split-mount image at the configured version, the
    harness folder they were handed, the job's connection and the trial they run in. Mixed into a
    BaseInstalledAgent subclass, which names CLI, PACKAGE, MOUNT and VERSION_KEY."""

    CLI = ""
    PACKAGE = ""
    MOUNT = ""
    VERSION_KEY = ""

    def _take_common(self, logs_dir, kwargs: dict) -> None:
        self._version = take_str(kwargs, self.VERSION_KEY) or None
        self._workspace = harness_folder(take_str(kwargs, "harness_workspace"))
        self._connection = kwargs.pop("connection", None) or {}
        self._mount_path = take_str(kwargs, "mount_path") or self.MOUNT
        self._trial = trial_of(logs_dir)
        drop_unused(kwargs)

    def get_version_command(self) -> str | None:
        return 'export PATH="/usr/local/bin:$PATH"; %s --version' % self.CLI

    async def _link_cli(self, environment) -> None:
        package = self.PACKAGE + ("@%s" % self._version if self._version else "")
        await link_cli(self, environment, self._mount_path, self.CLI, package)
