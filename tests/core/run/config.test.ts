// RunConfig from an injected environment: the original's defaults, every limit overridable,
// errors naming the variable, the value and what is allowed; model checks; .env parsing.
import { describe, expect, test } from "bun:test";
import { loadRunConfig, validateModels } from "../../../src/core/run/config.ts";
import { ConfigError, ENV_VARS } from "../../../src/core/run/env-vars.ts";

const at = { cwd: "/work/proj", home: "/home/u" };

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected ConfigError");
}

describe("loadRunConfig", () => {
  test("an empty environment gives the original's defaults", () => {
    expect(loadRunConfig({}, at)).toEqual({
      runsDir: "/work/proj/runs",
      dbPath: "/work/proj/runs/harness2.db",
      solverModel: "",
      codexModel: "",
      improverModel: "",
      improverChannel: "opencode",
      judgeModel: "",
      judgeBaseUrl: "",
      judgeApiKey: "",
      codexBaseUrl: "",
      codexContainerUrl: "",
      codexApiKey: "",
      project: "",
      location: "global",
      opencodeDir: null,
      phaseWidth: 2,
      sessionLimit: 2,
      stageAttempts: 2,
      transportAttempts: 2,
      proposerTimeoutS: 3600,
      proposerSteps: 120,
      proposerEffort: "high",
      rolloutTimeoutS: null,
      domainWorkers: 1,
      judgeParallel: 8,
      libraryMaxEntries: 0,
      libraryMaxBytes: 0,
      modesAtOnce: 2,
      backoffS: 10,
      allowWeb: 0,
      improverSandbox: "bwrap",
    });
  });

  test("every limit is read from its variable", () => {
    const cfg = loadRunConfig(
      {
        HARNESS2_PHASE_WIDTH: "4",
        HARNESS2_SESSION_LIMIT: "0",
        HARNESS2_STAGE_ATTEMPTS: "3",
        HARNESS2_TRANSPORT_ATTEMPTS: "5",
        HARNESS2_PROPOSER_TIMEOUT: "60",
        HARNESS2_PROPOSER_STEPS: "40",
        HARNESS2_PROPOSER_EFFORT: "max",
        HARNESS2_ROLLOUT_TIMEOUT: "900",
        HARNESS2_DOMAIN_WORKERS: " 3 ",
        HARNESS2_JUDGE_PARALLEL: "16",
        HARNESS2_LIBRARY_MAX_ENTRIES: "5",
        HARNESS2_LIBRARY_MAX_BYTES: "65536",
        HARNESS2_BACKOFF_S: "0.5",
        HARNESS2_IMPROVER_CHANNEL: "claude_cli",
      },
      at,
    );
    expect(cfg).toMatchObject({
      phaseWidth: 4,
      sessionLimit: 0,
      stageAttempts: 3,
      transportAttempts: 5,
      proposerTimeoutS: 60,
      proposerSteps: 40,
      proposerEffort: "max",
      rolloutTimeoutS: 900,
      domainWorkers: 3,
      judgeParallel: 16,
      libraryMaxEntries: 5,
      libraryMaxBytes: 65536,
      backoffS: 0.5,
      improverChannel: "claude_cli",
    });
  });

  test("a bad value names the variable, the value and what is allowed", () => {
    const err = configError(() => loadRunConfig({ HARNESS2_PHASE_WIDTH: "two" }, at));
    expect(err.variable).toBe("HARNESS2_PHASE_WIDTH");
    expect(err.value).toBe("two");
    expect(err.message).toBe('HARNESS2_PHASE_WIDTH="two" is not allowed: an integer ≥ 1');
    expect(
      configError(() => loadRunConfig({ HARNESS2_SESSION_LIMIT: "-1" }, at)).message,
    ).toContain("≥ 0 (0 = unlimited)");
    expect(configError(() => loadRunConfig({ HARNESS2_BACKOFF_S: "soon" }, at)).message).toContain(
      "seconds ≥ 0",
    );
    expect(
      configError(() => loadRunConfig({ HARNESS2_IMPROVER_CHANNEL: "gemini" }, at)).message,
    ).toContain("one of opencode, claude_cli, codex");
  });

  test("every numeric variable refuses garbage, fractions and zero where a count is needed", () => {
    const numeric = ENV_VARS.filter(
      (v) => typeof loadRunConfig({}, at)[v.field] === "number" || v.field === "rolloutTimeoutS",
    );
    expect(numeric.map((v) => v.name).sort()).toEqual([
      "HARNESS2_ALLOW_WEB",
      "HARNESS2_BACKOFF_S",
      "HARNESS2_DOMAIN_WORKERS",
      "HARNESS2_JUDGE_PARALLEL",
      "HARNESS2_LIBRARY_MAX_BYTES",
      "HARNESS2_LIBRARY_MAX_ENTRIES",
      "HARNESS2_MODES_AT_ONCE",
      "HARNESS2_PHASE_WIDTH",
      "HARNESS2_PROPOSER_STEPS",
      "HARNESS2_PROPOSER_TIMEOUT",
      "HARNESS2_ROLLOUT_TIMEOUT",
      "HARNESS2_SESSION_LIMIT",
      "HARNESS2_STAGE_ATTEMPTS",
      "HARNESS2_TRANSPORT_ATTEMPTS",
    ]);
    for (const v of numeric) {
      for (const bad of ["abc", "-2", "1e3"]) {
        expect(configError(() => loadRunConfig({ [v.name]: bad }, at)).variable).toBe(v.name);
      }
      const zeroAllowed = [
        "HARNESS2_SESSION_LIMIT",
        "HARNESS2_BACKOFF_S",
        "HARNESS2_LIBRARY_MAX_ENTRIES",
        "HARNESS2_LIBRARY_MAX_BYTES",
        "HARNESS2_ALLOW_WEB",
      ];
      if (!zeroAllowed.includes(v.name)) {
        expect(configError(() => loadRunConfig({ [v.name]: "0" }, at)).variable).toBe(v.name);
        expect(configError(() => loadRunConfig({ [v.name]: "1.5" }, at)).variable).toBe(v.name);
      }
    }
  });

  test("HARNESS2_ALLOW_WEB: 0 (default) or 1, anything else refused in one line", () => {
    expect(loadRunConfig({ HARNESS2_ALLOW_WEB: "1" }, at).allowWeb).toBe(1);
    expect(loadRunConfig({ HARNESS2_ALLOW_WEB: "0" }, at).allowWeb).toBe(0);
    for (const bad of ["2", "yes", "1.0"]) {
      expect(configError(() => loadRunConfig({ HARNESS2_ALLOW_WEB: bad }, at)).message).toContain(
        "1 (the executor may reach the web) or 0 (the default)",
      );
    }
  });

  test("HARNESS2_LIBRARY_MAX_ENTRIES: 0 = no cap, N caps, garbage is refused in one line", () => {
    expect(loadRunConfig({ HARNESS2_LIBRARY_MAX_ENTRIES: "0" }, at).libraryMaxEntries).toBe(0);
    expect(loadRunConfig({ HARNESS2_LIBRARY_MAX_ENTRIES: " 3 " }, at).libraryMaxEntries).toBe(3);
    for (const bad of ["abc", "-1", "2.5"]) {
      const err = configError(() => loadRunConfig({ HARNESS2_LIBRARY_MAX_ENTRIES: bad }, at));
      expect(err.variable).toBe("HARNESS2_LIBRARY_MAX_ENTRIES");
      expect(err.message).toBe(
        `HARNESS2_LIBRARY_MAX_ENTRIES=${JSON.stringify(bad)} is not allowed: an integer ≥ 0 (0 = no cap)`,
      );
      expect(err.message).not.toContain("\n");
    }
  });

  test("HARNESS2_LIBRARY_MAX_BYTES: 0 = no cap, N caps, garbage is refused in one line", () => {
    expect(loadRunConfig({}, at).libraryMaxBytes).toBe(0);
    expect(loadRunConfig({ HARNESS2_LIBRARY_MAX_BYTES: "200000" }, at).libraryMaxBytes).toBe(
      200000,
    );
    for (const bad of ["1e9x", "-1", "2.5"]) {
      const err = configError(() => loadRunConfig({ HARNESS2_LIBRARY_MAX_BYTES: bad }, at));
      expect(err.variable).toBe("HARNESS2_LIBRARY_MAX_BYTES");
      expect(err.message).not.toContain("\n");
    }
  });

  test("a variable set to blank counts as unset", () => {
    const cfg = loadRunConfig({ HARNESS2_PHASE_WIDTH: "  ", HARNESS2_RUNS_DIR: "" }, at);
    expect(cfg.phaseWidth).toBe(2);
    expect(cfg.runsDir).toBe("/work/proj/runs");
  });

  test("paths expand ~ and resolve against the working directory", () => {
    expect(loadRunConfig({ HARNESS2_RUNS_DIR: "~/exp1" }, at).runsDir).toBe("/home/u/exp1");
    expect(loadRunConfig({ HARNESS2_RUNS_DIR: "out/r" }, at).dbPath).toBe(
      "/work/proj/out/r/harness2.db",
    );
    expect(loadRunConfig({ HARNESS2_DB: "/var/h2.db" }, at).dbPath).toBe("/var/h2.db");
    expect(loadRunConfig({ HARNESS2_OPENCODE_DIR: "~/src/opencode" }, at).opencodeDir).toBe(
      "/home/u/src/opencode",
    );
  });

  test("models default from the solver; projects and endpoints from each other", () => {
    const cfg = loadRunConfig(
      {
        HARNESS2_SOLVER_MODEL: "google-vertex/gemini-3-pro",
        HARNESS2_VERTEX_PROJECT: "alt",
        GOOGLE_CLOUD_PROJECT: "main",
        GOOGLE_CLOUD_LOCATION: "us-central1",
        HARNESS2_CODEX_BASE_URL: "http://127.0.0.1:4000",
      },
      at,
    );
    expect(cfg.improverModel).toBe("google-vertex/gemini-3-pro");
    expect(cfg.codexModel).toBe("gemini-3-pro");
    expect(cfg.project).toBe("main");
    expect(cfg.judgeBaseUrl).toBe(
      "https://us-central1-aiplatform.googleapis.com/v1/projects/main/locations/us-central1/endpoints/openapi",
    );
    expect(cfg.codexContainerUrl).toBe("http://127.0.0.1:4000");
    expect(loadRunConfig({ HARNESS2_VERTEX_PROJECT: "alt" }, at).project).toBe("alt");
    expect(loadRunConfig({ HARNESS2_VERTEX_PROJECT: "p" }, at).judgeBaseUrl).toStartWith(
      "https://aiplatform.googleapis.com/v1/projects/p/locations/global/",
    );
    expect(
      loadRunConfig(
        { HARNESS2_SOLVER_MODEL: "a/b", HARNESS2_IMPROVER_MODEL: "c/d", HARNESS2_CODEX_MODEL: "e" },
        at,
      ),
    ).toMatchObject({ solverModel: "a/b", improverModel: "c/d", codexModel: "e" });
  });
});

describe("validateModels", () => {
  const load = (env: Record<string, string>) => loadRunConfig(env, at);

  test("passes with a provider-prefixed solver", () => {
    expect(() => validateModels(load({ HARNESS2_SOLVER_MODEL: "prov/m" }))).not.toThrow();
  });

  test("names what is missing or malformed", () => {
    expect(configError(() => validateModels(load({}))).message).toStartWith(
      "HARNESS2_SOLVER_MODEL is not set",
    );
    expect(
      configError(() => validateModels(load({ HARNESS2_SOLVER_MODEL: "m" }))).message,
    ).toContain("provider-prefixed");
    expect(
      configError(() =>
        validateModels(load({ HARNESS2_SOLVER_MODEL: "p/m", HARNESS2_IMPROVER_MODEL: "bare" })),
      ).variable,
    ).toBe("HARNESS2_IMPROVER_MODEL");
    const vertex = configError(() =>
      validateModels(load({ HARNESS2_SOLVER_MODEL: "google-vertex/g" })),
    );
    expect(vertex.variable).toBe("GOOGLE_CLOUD_PROJECT");
    expect(vertex.message).toContain("google-vertex/g");
    expect(
      configError(() => validateModels(load({ HARNESS2_SOLVER_MODEL: "p/m" }), { judge: true }))
        .variable,
    ).toBe("HARNESS2_JUDGE_MODEL");
  });

  test("a claude_cli improver may use a bare id", () => {
    const cfg = load({
      HARNESS2_SOLVER_MODEL: "p/m",
      HARNESS2_IMPROVER_MODEL: "claude-opus",
      HARNESS2_IMPROVER_CHANNEL: "claude_cli",
    });
    expect(() => validateModels(cfg)).not.toThrow();
  });
});
