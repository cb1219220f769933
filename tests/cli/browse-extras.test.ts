// What the browser asks of the CLI: a real demo rollout's output files and trajectory read from
// its run folder, and the pager and editor run for real (small scripts standing in for less and
// vi) with the screen's text on the pager's stdin and the folder as the editor's argument.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openExternal, rolloutText } from "../../src/cli/runs/browse-extras.ts";
import { runCli } from "../helpers/cli.ts";
import { allFiles } from "../helpers/files.ts";

const root = mkdtempSync(join(tmpdir(), "h2-browse-extras-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let runDir = "";

beforeAll(async () => {
  const r = await runCli(["demo", "--k", "1", "--no-tui", "--runs", join(root, "runs")]);
  expect(r.code).toBe(0);
  const marks = allFiles(join(root, "runs")).filter((p) => p.endsWith("/trajectory.md"));
  runDir = join(marks[0] as string, "..");
}, 300_000);

const io = (env: Record<string, string | undefined>) => ({
  stdout: () => {},
  stderr: () => {},
  isTTY: false,
  env: { ...process.env, ...env },
  cwd: root,
});

describe("the browser's CLI extras", () => {
  test("a demo rollout's output files and trajectory; a missing folder is null", async () => {
    const got = await rolloutText(runDir, io({}));
    expect(got).not.toBeNull();
    expect(Object.keys(got?.files ?? {}).length).toBeGreaterThan(0);
    expect(Object.values(got?.files ?? {}).join("\n")).toContain("Total:");
    expect(got?.trajectory).toContain("[ACTION]");
    expect(await rolloutText(join(root, "gone"), io({}))).toBeNull();
  });

  test("the pager gets the text on stdin, the editor the folder; a missing one is one line", () => {
    const got = join(root, "pager-got.txt");
    const pager = join(root, "pager.sh");
    writeFileSync(pager, `#!/bin/sh\ncat > '${got}'\n`, { mode: 0o755 });
    expect(openExternal({ pager: "screen text\nline 2\n" }, io({ PAGER: pager }))).toBeNull();
    expect(readFileSync(got, "utf8")).toBe("screen text\nline 2\n");
    const args = join(root, "editor-got.txt");
    const editor = join(root, "editor.sh");
    writeFileSync(editor, `#!/bin/sh\necho "$@" > '${args}'\n`, { mode: 0o755 });
    expect(
      openExternal({ editor: "/some/run" }, io({ EDITOR: `${editor} --wait`, VISUAL: "" })),
    ).toBeNull();
    expect(readFileSync(args, "utf8")).toBe("--wait /some/run\n");
    expect(openExternal({ pager: "x" }, io({ PAGER: join(root, "no-such-pager") }))).toBe(
      `the pager '${join(root, "no-such-pager")}' could not start: set PAGER to one you have`,
    );
    // A folder opens at its main file, from inside it (most editors cannot open a folder).
    const harness = join(root, "harness-folder");
    mkdirSync(join(harness, "scripts"), { recursive: true });
    writeFileSync(join(harness, "scripts", "a.py"), "x\n");
    writeFileSync(join(harness, "systemprompt.md"), "You are terse.\n");
    expect(openExternal({ editor: harness }, io({ EDITOR: editor, VISUAL: "" }))).toBeNull();
    expect(readFileSync(args, "utf8")).toBe(`${join(harness, "systemprompt.md")}\n`);
    const empty = join(root, "empty-folder");
    mkdirSync(empty);
    expect(openExternal({ editor: empty }, io({ EDITOR: editor, VISUAL: "" }))).toBe(
      `${empty} holds no file to open`,
    );
    const failing = join(root, "fail.sh");
    writeFileSync(failing, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
    expect(openExternal({ editor: "/x" }, io({ EDITOR: failing, VISUAL: "" }))).toBe(
      `the editor '${failing}' exited with 3`,
    );
  });
});
