// harness2.toml (issue 35): every setting a HARNESS2_* variable holds, from the working folder's
// file over the user's, the environment over both; `harness2 config` says where each came from
// with secrets masked; a bad file or key is one line naming the file and the key, exit 1.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SETTINGS } from "../../src/core/run/config-file.ts";
import { runCli } from "../helpers/cli.ts";

const root = mkdtempSync(join(tmpdir(), "h2-config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function place(name: string, project: string | null, user: string | null) {
  const dir = join(root, name);
  const xdg = join(dir, "xdg");
  mkdirSync(join(xdg, "harness2"), { recursive: true });
  if (project !== null) writeFileSync(join(dir, "harness2.toml"), project);
  if (user !== null) writeFileSync(join(xdg, "harness2", "harness2.toml"), user);
  return {
    cwd: dir,
    env: {
      XDG_CONFIG_HOME: xdg,
      HARNESS2_SOLVER_MODEL: undefined,
      HARNESS2_PHASE_WIDTH: undefined,
      HARNESS2_RUNS_DIR: undefined,
    },
  };
}

describe("harness2.toml", () => {
  test("the working folder's file over the user's, the environment over both; secrets masked", async () => {
    const p = place(
      "layers",
      'solver_model = "project/model"\njudge_api_key = "sk-very-secret"\n',
      'solver_model = "user/model"\nphase_width = 3\n',
    );
    const r = await runCli(["config", "--json"], {
      cwd: p.cwd,
      env: { ...p.env, HARNESS2_SESSION_LIMIT: "4" },
    });
    expect(r.code).toBe(0);
    const got = JSON.parse(r.stdout) as {
      files: string[];
      settings: { variable: string; value: string; from: string }[];
    };
    const by = Object.fromEntries(got.settings.map((s) => [s.variable, s]));
    expect(by.HARNESS2_SOLVER_MODEL).toMatchObject({
      value: "project/model",
      from: join(p.cwd, "harness2.toml"),
    });
    expect(by.HARNESS2_PHASE_WIDTH).toMatchObject({
      value: "3",
      from: expect.stringContaining("xdg"),
    });
    expect(by.HARNESS2_SESSION_LIMIT).toMatchObject({ value: "4", from: "environment" });
    expect(by.HARNESS2_JUDGE_API_KEY?.value).toBe("***");
    expect(r.stdout).not.toContain("sk-very-secret");
    const text = await runCli(["config"], {
      cwd: p.cwd,
      env: { ...p.env, HARNESS2_PHASE_WIDTH: "5" },
    });
    expect(text.stdout).toMatch(/HARNESS2_PHASE_WIDTH +5 {2}\(environment\)/);
  });

  test("commands see it: runs reads the runs folder the file names", async () => {
    const p = place("runs", `runs_dir = "${join(root, "runs", "elsewhere")}"\n`, null);
    const r = await runCli(["runs", "--json"], { cwd: p.cwd, env: p.env });
    expect(r.code).toBe(0);
    const demo = await runCli(["demo", "--no-tui", "--k", "1"], { cwd: p.cwd, env: p.env });
    expect(demo.code).toBe(0);
    expect(readFileSync(join(root, "runs", "elsewhere", "demo", "demo.json"), "utf8")).toContain(
      '"k": 1',
    );
  }, 60_000);

  test("a bad file, key or value is one line naming the file and the key, exit 1, nothing run", async () => {
    const cases: [string, string, string][] = [
      ["syntax", 'solver_model = "open\n', "is not valid TOML"],
      [
        "unknown",
        'solvr_model = "a/b"\n',
        "unknown key 'solvr_model' (did you mean solver_model?)",
      ],
      ["value", 'phase_width = "many"\n', 'phase_width = "many" is not allowed: an integer ≥ 1'],
      ["list", "solver_model = [1]\n", "solver_model must be a string, a number or true/false"],
    ];
    for (const [name, toml, says] of cases) {
      const p = place(`bad-${name}`, toml, null);
      for (const argv of [["config"], ["runs"], ["demo", "--no-tui"]]) {
        const r = await runCli(argv, { cwd: p.cwd, env: p.env });
        expect(r.code).toBe(1);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toContain(join(p.cwd, "harness2.toml"));
        expect(r.stderr).toContain(says);
      }
    }
    const latin = place("latin1", null, null);
    writeFileSync(
      join(latin.cwd, "harness2.toml"),
      new Uint8Array([0x74, 0x61, 0x67, 0x20, 0x3d, 0x20, 0x22, 0xe9, 0x22]),
    );
    const r = await runCli(["config"], { cwd: latin.cwd, env: latin.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not readable UTF-8 text");
  });

  test("every HARNESS2_* variable the code reads is a setting, save the ones harness2 sets itself", async () => {
    const { $ } = await import("bun");
    const used = (
      await $`grep -rhoE "HARNESS2_[A-Z0-9_]+" src`.cwd(join(import.meta.dir, "../..")).text()
    )
      .split("\n")
      .filter((v) => v !== "");
    // Set by harness2 for its own children, or names written into a benchmark's checkout.
    const internal = /^HARNESS2_(OWNER_PID|PLAN|WORKER|QUEUE_|OC|CX|OC_.*|CX_.*|AGENT_API_KEY)$/;
    const missing = [...new Set(used)].filter((v) => !internal.test(v) && !SETTINGS.includes(v));
    expect(missing).toEqual([]);
    const keys = await runCli(["config", "--keys"]);
    expect(keys.stdout).toContain("solver_model");
    expect(keys.stdout).toContain("wb_trial_timeout");
  });
});
