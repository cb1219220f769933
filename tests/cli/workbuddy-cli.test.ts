// WorkBuddy on the command line: --subset's rules on every command, the refusals before setup,
// setup --from with its licence notice, check's lines for a missing engine or runner, and the dry
// run's stream; each refusal one line with its fix and its documented exit code.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import {
  fakeDocker,
  reopeningImprover,
  wbCheckout,
  wbEnv,
  wbSweepEnv,
} from "../helpers/workbuddy.ts";

const root = mkdtempSync(join(tmpdir(), "h2-wb-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const deps = join(root, "deps");
const env = wbEnv({ deps, docker: fakeDocker(join(root, "bin")) });

function oneLine(text: string): void {
  expect(text.trim().split("\n")).toHaveLength(1);
}

describe("WorkBuddy on the command line", () => {
  test("--subset is required for wb, refused for the others, one of three everywhere (exit 2)", async () => {
    for (const [args, message] of [
      [["run", "--bench", "wb"], "--bench wb needs --subset office, web or code"],
      [["check", "--bench", "wb"], "--bench wb needs --subset office, web or code"],
      [
        ["run", "--bench", "wb", "--subset", "desk"],
        "--subset must be office, web or code, got 'desk'",
      ],
      [["check", "--bench", "lab", "--subset", "web"], "--subset is for --bench wb"],
      [["run", "--bench", "tasks", "--subset", "web"], "--subset is for --bench wb"],
      [["run", "--bench", "wb", "--subset", "web", "--split", "easy"], "--split is for --bench jb"],
    ] as const) {
      const r = await runCli([...args], { cwd: root, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      oneLine(r.stderr);
    }
  }, 120_000);

  test("before setup run and check say what to run; after setup --from, check is ready and the dry run lists the stream", async () => {
    const before = await runCli(["run", "--bench", "wb", "--subset", "office", "--dry-run"], {
      cwd: root,
      env,
    });
    expect(before.code).toBe(4);
    expect(before.stderr).toContain("WorkBuddy-Bench is not set up");
    expect(before.stderr).toContain("harness2 setup --bench wb");
    oneLine(before.stderr);

    const checkout = wbCheckout(root);
    const setup = await runCli(["setup", "--bench", "wb", "--from", checkout, "--subset", "code"], {
      cwd: root,
      env,
    });
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain(`read ${join(checkout, "LICENSE")} before you run it`);
    expect(setup.stdout).toContain("next: ");
    expect(setup.stdout).toContain("check --bench wb --subset code");

    const ready = await runCli(["check", "--bench", "wb", "--subset", "code"], { cwd: root, env });
    expect(ready.code).toBe(0);
    expect(ready.stdout).toContain("WorkBuddy tasks: 1 code task in 1 domain: developer 1");
    expect(ready.stdout).toMatch(/ok +WorkBuddy runner: .*scripts\/run\.sh with .*\.venv/);
    expect(ready.stdout).toMatch(
      /ok +harness2's agents: version \d+: harness2-opencode\/1\.14\.18/,
    );
    expect(ready.stdout).toMatch(
      /ok +code data: 1 task\(s\), fetched by the checkout's own script/,
    );
    expect(ready.stdout).toContain("Ready: wb/oc, 1 task.");

    // A Docker engine that is down: every trial fails to start, the sweep fails before any
    // improver is asked anything, and says so.
    const improver = reopeningImprover("systemprompt.md");
    try {
      const sweep = wbSweepEnv(join(root, "down-sweep"), improver, {
        DOCKER_HOST: `unix://${join(root, "no-docker.sock")}`,
        HARNESS2_DEPENDENCIES: deps,
      });
      const failed = await runCli(
        [
          "run",
          "--bench",
          "wb",
          "--subset",
          "code",
          "--k",
          "1",
          "--no-tui",
          "--runs",
          join(root, "runs-down"),
        ],
        { cwd: root, env: sweep },
      );
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain("EnvironmentStartError: Cannot connect to the Docker daemon");
      expect(failed.stdout).toContain("no base rollout produced anything");
      expect(failed.stdout).toMatch(/sweep swp_\w+ failed: 0 ok, 1 failed/);
      expect(improver.requests).toHaveLength(0);
    } finally {
      await improver.stop();
    }

    // The checkout's environment gone and the engine down: each named, with its fix.
    rmSync(join(checkout, ".venv"), { recursive: true });
    const down = await runCli(["check", "--bench", "wb", "--subset", "office"], {
      cwd: root,
      env: { ...env, HARNESS2_WB_DOCKER: fakeDocker(join(root, "down"), true) },
    });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/FAIL +Docker: docker info failed: Cannot connect/);
    expect(down.stdout).toMatch(/FAIL +WorkBuddy runner: the checkout's environment lacks/);
    expect(down.stdout).toContain("uv sync");
    expect(down.stdout).toContain("Setup incomplete: 2 problems.");
    // Agents of another version than this build installs: named, with the command that replaces them.
    const old = await runCli(["check", "--bench", "wb", "--subset", "code"], {
      cwd: root,
      env: { ...env, HARNESS2_WB_CODEX_VERSION: "0.200.0" },
    });
    expect(old.stdout).toMatch(/FAIL +harness2's agents: outdated: /);
    expect(old.stdout).toContain(`setup --bench wb --from ${checkout}`);

    const web = await runCli(["check", "--bench", "wb", "--subset", "web"], { cwd: root, env });
    expect(web.code).toBe(1);
    expect(web.stdout).toMatch(/FAIL +judge route/);

    const dry = await runCli(
      ["run", "--bench", "wb", "--subset", "web", "--dry-run", "--runs", join(root, "runs")],
      { cwd: root, env },
    );
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Dry run: wb-web/oc k=1");
    expect(dry.stdout).toContain("page-interaction: tip-calculator");
  }, 180_000);
});
