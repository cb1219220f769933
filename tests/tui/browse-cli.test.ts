// `harness2 browse` and the no-subcommand home, from outside: what a script (no terminal) gets.
// The real-terminal path is driven in tmux by tmux-browse.test.ts.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { browseScenario, type StoreFixture, storeWith } from "./store-fixture.ts";

let fixture: StoreFixture;
beforeAll(() => {
  fixture = storeWith(browseScenario("/r"));
});
afterAll(() => fixture.cleanup());

describe("harness2 browse outside a terminal", () => {
  test("refuses with one line naming the commands that work without one, exit 1", async () => {
    const r = await runCli(["browse", "--runs", fixture.runsDir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "harness2 browse: needs a terminal; use 'harness2 runs' and 'harness2 show RUN' instead\n",
    );
  });

  test("is listed in the help, with its own usage", async () => {
    const main = await runCli([]);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/\n {2}browse\s+Browse the store in the terminal/);
    const help = await runCli(["help", "browse"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: harness2 browse [RUN] [options]");
    expect(help.stdout).toContain("--runs DIR");
  });

  test("a bad command line is still a usage error", async () => {
    const r = await runCli(["browse", "a", "b"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unexpected argument 'b'");
  });
});
