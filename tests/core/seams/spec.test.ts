// The benchmark seam's values: channel resolution rules, BenchPrompts (defaults, enums, the
// whole-word forbidden-word scan incl. selectionLead), BenchSpec refinements, RunView's refusal
// of a score, resolvePrompts, and that scoring is not part of the adapter interface.
import { describe, expect, test } from "bun:test";
import {
  BenchPrompts,
  FORBIDDEN_PROMPT_WORDS,
  forbiddenWordsIn,
  SCANNED_PROMPT_FIELDS,
} from "../../../src/core/seams/bench-prompts.ts";
import {
  AdapterContractError,
  type BenchmarkAdapter,
  BenchSpec,
  RunView,
  resolvePrompts,
  type Scorer,
} from "../../../src/core/seams/benchmark.ts";
import {
  ChannelModelError,
  ChannelSpec,
  resolveChannelModel,
} from "../../../src/core/seams/channel-spec.ts";

function issues(result: {
  success: boolean;
  error?: { issues: { message: string; path: PropertyKey[] }[] };
}) {
  expect(result.success).toBe(false);
  return result.error!.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

function channelError(fn: () => unknown): ChannelModelError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ChannelModelError) return err;
    throw err;
  }
  throw new Error("expected ChannelModelError");
}

describe("ChannelSpec", () => {
  test("defaults effort high, 120 steps, 3600 s", () => {
    expect(ChannelSpec.parse({ kind: "opencode", model: "p/m" })).toEqual({
      kind: "opencode",
      model: "p/m",
      effort: "high",
      steps: 120,
      timeout: 3600,
    });
  });

  test("refuses an unknown kind and a model that does not fit its kind, naming both", () => {
    expect(issues(ChannelSpec.safeParse({ kind: "gemini", model: "m" }))[0]?.message).toBe(
      'channel kind "gemini" is not allowed: one of opencode, claude_cli, codex',
    );
    // Codex takes whatever id its endpoint serves.
    expect(ChannelSpec.parse({ kind: "codex", model: "gpt-5-codex" }).kind).toBe("codex");
    expect(issues(ChannelSpec.safeParse({ kind: "opencode", model: "gpt" }))[0]).toEqual({
      path: "model",
      message:
        'model "gpt" does not fit channel opencode: it needs a provider-prefixed id (provider/model)',
    });
    expect(
      issues(ChannelSpec.safeParse({ kind: "claude_cli", model: "anthropic/claude" }))[0]?.message,
    ).toContain("bare Anthropic id without '/'");
    expect(
      issues(ChannelSpec.safeParse({ kind: "opencode", model: "p/m", steps: 0 }))[0]?.message,
    ).toBe("steps must be an integer ≥ 1, got 0");
  });

  test("a blank model is a valid value until a session starts", () => {
    expect(ChannelSpec.parse({ kind: "claude_cli", model: "" }).model).toBe("");
  });
});

describe("resolveChannelModel", () => {
  const defaults = { kind: "opencode" as const, model: "prov/improver" };

  test("neither overridden: the defaults", () => {
    expect(resolveChannelModel({}, defaults)).toEqual({
      kind: "opencode",
      model: "prov/improver",
      effort: "high",
      steps: 120,
      timeout: 3600,
    });
  });

  test("both overridden: the override, with limits from override then defaults", () => {
    const spec = resolveChannelModel(
      { kind: "claude_cli", model: "claude-opus", effort: "max" },
      { ...defaults, steps: 50, timeout: 60 },
    );
    expect(spec).toEqual({
      kind: "claude_cli",
      model: "claude-opus",
      effort: "max",
      steps: 50,
      timeout: 60,
    });
  });

  test("only one of kind and model is an error", () => {
    for (const override of [{ kind: "opencode" }, { model: "prov/x" }]) {
      const err = channelError(() => resolveChannelModel(override, defaults));
      expect(err.message).toContain("must be overridden together");
    }
  });

  test("prefix rules: opencode needs provider/model, claude_cli a bare id", () => {
    expect(
      channelError(() => resolveChannelModel({ kind: "opencode", model: "gpt-5" }, defaults))
        .message,
    ).toContain("provider-prefixed");
    const err = channelError(() =>
      resolveChannelModel({ kind: "claude_cli", model: "anthropic/claude" }, defaults),
    );
    expect(err.kind).toBe("claude_cli");
    expect(err.model).toBe("anthropic/claude");
    expect(err.message).toContain("without '/'");
    expect(
      channelError(() => resolveChannelModel({ kind: "gemini", model: "g" }, defaults)).message,
    ).toContain('channel kind "gemini" is not allowed');
  });

  test("an empty default model is allowed; an explicit blank override is an error", () => {
    expect(resolveChannelModel({}, { kind: "opencode", model: "" }).model).toBe("");
    const err = channelError(() =>
      resolveChannelModel({ kind: "opencode", model: "  " }, defaults),
    );
    expect(err.message).toContain("must not be blank");
  });

  test("a default model that does not fit the default kind is an error too", () => {
    expect(() => resolveChannelModel({}, { kind: "claude_cli", model: "prov/x" })).toThrow(
      ChannelModelError,
    );
  });
});

describe("forbidden words", () => {
  test("whole words and their listed forms hit, case-insensitively", () => {
    const hits: [string, string[]][] = [
      ["Your score matters", ["score"]],
      ["SCORES and Scored and scoring", ["scores", "scored", "scoring"]],
      ["a benchmark, two benchmarks", ["benchmark", "benchmarks"]],
      ["the grader's rubric", ["grader", "rubric"]],
      ["graders use rubrics; evaluations.", ["graders", "rubrics", "evaluations"]],
      ["pass_score", ["score"]],
      ["re-evaluation of the plan", ["evaluation"]],
      ["(score)", ["score"]],
    ];
    for (const [text, words] of hits) expect(forbiddenWordsIn(text)).toEqual(words);
  });

  test("words that merely contain them do not hit", () => {
    for (const text of [
      "underscore",
      "scoreboard",
      "scorecard",
      "evaluate the totals",
      "benchmarking",
      "rescored",
      "scores2",
      "gradient",
    ]) {
      expect(forbiddenWordsIn(text)).toEqual([]);
    }
  });
});

describe("BenchPrompts", () => {
  test("fills every default", () => {
    expect(BenchPrompts.parse({ work: "Reconcile the ledger." })).toEqual({
      work: "Reconcile the ledger.",
      domainWord: "domain",
      invLevers: "",
      domLevers: "",
      yardstick: "",
      deliverableWord: "deliverable",
      domainGuidance: "",
      selectionChecks: "",
      selectionLead: "",
      selectionConformance: "full",
      promptPack: "adapt",
    });
  });

  test("work must be non-blank; the enums name the bad value and what is allowed", () => {
    expect(issues(BenchPrompts.safeParse({ work: "  " }))[0]?.message).toContain(
      "work must be non-blank",
    );
    expect(issues(BenchPrompts.safeParse({ work: "w", promptPack: "fast" }))[0]?.message).toBe(
      'promptPack "fast" is not allowed: adapt or tts',
    );
    expect(
      issues(BenchPrompts.safeParse({ work: "w", selectionConformance: "partial" }))[0]?.message,
    ).toBe('selectionConformance "partial" is not allowed: full or value_only');
    expect(
      BenchPrompts.parse({ work: "w", selectionConformance: "value_only" }).selectionConformance,
    ).toBe("value_only");
  });

  test("every scanned field, selectionLead included, is refused naming the field and the word", () => {
    expect(SCANNED_PROMPT_FIELDS).toContain("selectionLead");
    for (const field of SCANNED_PROMPT_FIELDS) {
      const input = { work: "Reconcile the ledger.", [field]: "Aim for a high Score here." };
      expect(issues(BenchPrompts.safeParse(input))).toEqual([
        {
          path: field,
          message: `${field} contains the word "score"; describe the work, not its measurement (forbidden: ${FORBIDDEN_PROMPT_WORDS.join(", ")})`,
        },
      ]);
    }
  });

  test("every hit is reported, and the single-word fields are not scanned", () => {
    const found = issues(
      BenchPrompts.safeParse({ work: "the rubric", yardstick: "what the grader wants" }),
    );
    expect(found.map((i) => i.path)).toEqual(["work", "yardstick"]);
    expect(
      BenchPrompts.safeParse({ work: "w", domainWord: "benchmark", deliverableWord: "score" })
        .success,
    ).toBe(true);
    expect(BenchPrompts.safeParse({ work: "Keep the underscore in column names." }).success).toBe(
      true,
    );
  });
});

describe("BenchSpec", () => {
  const channels = {
    proposer: { kind: "opencode", model: "p/m" },
    selector: { kind: "claude_cli", model: "claude-x" },
  };
  const minimal = {
    name: "jb",
    runsRoot: "/runs/jb",
    installMode: "workspace_agents_md",
    prompts: { work: "Do the job." },
    channels,
  };

  test("fills every default", () => {
    const spec = BenchSpec.parse(minimal);
    expect(spec.leakGlobs).toEqual([]);
    expect(spec.allowSubagents).toBe(false);
    expect(spec.reservedScripts).toEqual([]);
    expect(spec.proposerDeliverables).toBe("contents");
    expect(spec.stateDeliverable).toBe(false);
    expect(spec.obsTrunc).toBe(50_000);
    expect(spec.channels.selector?.effort).toBe("high");
    expect("domainWord" in spec).toBe(false);
  });

  test("is frozen, channels map included", () => {
    const spec = BenchSpec.parse(minimal);
    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.channels)).toBe(true);
    expect(Object.isFrozen(spec.channels.proposer)).toBe(true);
    expect(Object.isFrozen(spec.reservedScripts)).toBe(true);
    expect(Object.isFrozen(spec.leakGlobs)).toBe(true);
  });

  test("each refinement names the field, the bad value and what is allowed", () => {
    const bad: [Record<string, unknown>, string][] = [
      [
        { installMode: "docker" },
        'installMode "docker" is not allowed: one of workspace_agents_md, home_dir_jinja, workspace_config, codex_root',
      ],
      [
        { channels: { proposer: channels.proposer } },
        "channels lacks selector: it must map both proposer and selector (has: proposer)",
      ],
      [
        { channels: {} },
        "channels lacks proposer and selector: it must map both proposer and selector (has: none)",
      ],
      [
        { obsTrunc: 9_999 },
        "obsTrunc 9999 is too small: at least 10000 (shorter clips fabricate defects)",
      ],
      [
        { reservedScripts: ["lib/read_doc.py"] },
        "reservedScripts entry \"lib/read_doc.py\" must be a bare basename ending in .py, without '/'",
      ],
      [
        { reservedScripts: ["run.sh"] },
        "reservedScripts entry \"run.sh\" must be a bare basename ending in .py, without '/'",
      ],
      [
        { proposerDeliverables: "bodies" },
        'proposerDeliverables "bodies" is not allowed: contents or names',
      ],
      [
        { name: "Job Bench" },
        "name \"Job Bench\" must be lowercase letters and digits in '-'-separated words (e.g. jb, wb-office)",
      ],
      [{ leakGlobs: [""] }, "leakGlobs entries must be non-empty globs"],
      [
        { prompts: { work: "w", domainGuidance: "rubrics" } },
        'domainGuidance contains the word "rubrics"',
      ],
    ];
    for (const [patch, message] of bad) {
      const found = issues(BenchSpec.safeParse({ ...minimal, ...patch }));
      expect(found.map((i) => i.message).join("\n")).toContain(message);
    }
  });

  test("accepts the boundary obsTrunc and normalises reserved scripts", () => {
    const spec = BenchSpec.parse({
      ...minimal,
      obsTrunc: 10_000,
      reservedScripts: ["unpack.py", "read_doc.py", "unpack.py"],
      installMode: "codex_root",
      proposerDeliverables: "names",
      allowSubagents: true,
      leakGlobs: ["**/answers/**"],
    });
    expect(spec.obsTrunc).toBe(10_000);
    expect(spec.reservedScripts).toEqual(["read_doc.py", "unpack.py"]);
  });
});

describe("RunView", () => {
  const view = {
    label: "agg1",
    runId: "jb-oc-agg1/t/agg1",
    runDir: "/runs/x",
    ok: true,
    delivered: false,
  };

  test("fills cost, time and error defaults", () => {
    expect(RunView.parse(view)).toEqual({
      ...view,
      usd: 0,
      priced: true,
      tokens: 0,
      wallS: 0,
      error: "",
    });
  });

  test("can never carry a score", () => {
    expect(RunView.safeParse({ ...view, score: 0.9 }).success).toBe(false);
    expect(RunView.safeParse({ ...view, passed: 3 }).success).toBe(false);
  });
});

describe("adapter seam", () => {
  const spec = BenchSpec.parse({
    name: "demo",
    runsRoot: "/runs/demo",
    installMode: "workspace_agents_md",
    prompts: { work: "Sum the ledger." },
    channels: {
      proposer: { kind: "opencode", model: "p/m" },
      selector: { kind: "opencode", model: "p/m" },
    },
  });

  class FakeAdapter implements BenchmarkAdapter {
    readonly spec = spec;
    readonly substrate = {
      name: "oc",
      surface: () => {
        throw new Error("unused");
      },
    };
    async tasks() {
      return ["t1"];
    }
    domainOf() {
      return "accounting";
    }
    async taskPrompt() {
      return "Sum it.";
    }
    async execute() {
      return "/runs/x";
    }
    async delivered() {
      return true;
    }
    async trajectory() {
      return "[ACTION] x";
    }
    async deliverableText() {
      return "42";
    }
    async baseHarness() {
      return "/base";
    }
    async validateTree() {
      return [];
    }
    async preflight() {}
  }

  test("resolvePrompts uses the spec's prompts without a promptsFor hook", async () => {
    expect(await resolvePrompts(new FakeAdapter(), "t1")).toBe(spec.prompts);
  });

  test("resolvePrompts uses promptsFor, validating what it returns", async () => {
    const perTask = BenchPrompts.parse({ work: "Sum this task's ledger.", domainWord: "books" });
    const good = Object.assign(new FakeAdapter(), { promptsFor: async () => perTask });
    expect(await resolvePrompts(good, "t1")).toEqual(perTask);

    const bad = Object.assign(new FakeAdapter(), {
      promptsFor: () => ({ work: "the score" }) as never,
    });
    const err = await resolvePrompts(bad, "t1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterContractError);
    expect((err as AdapterContractError).adapter).toBe("FakeAdapter");
    expect((err as AdapterContractError).hook).toBe("promptsFor");
    expect((err as AdapterContractError).message).toContain('"score"');
  });

  test("scoring lives on a separate Scorer, never on the adapter", () => {
    type AdapterHasScore = "score" extends keyof BenchmarkAdapter ? true : false;
    const adapterHasScore: AdapterHasScore = false;
    const scorer: Scorer = { score: async () => null };
    expect(adapterHasScore).toBe(false);
    expect("score" in new FakeAdapter()).toBe(false);
    expect(typeof scorer.score).toBe("function");
  });
});
