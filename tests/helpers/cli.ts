// Runs the harness2 executable from outside, as a user would, and captures what it printed.

const ROOT = `${import.meta.dir}/../..`;
export const MAIN = `${ROOT}/src/cli/main.ts`;

export type CliResult = { code: number; stdout: string; stderr: string };

/** Runs `argv` to its end with piped output: what it printed on each stream, and its exit code. */
export async function runCaptured(
  argv: string[],
  opts: { cwd?: string; env: Record<string, string | undefined>; stdin?: string },
): Promise<CliResult> {
  const proc = Bun.spawn(argv, {
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    env: opts.env,
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export async function runCli(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; stdin?: string } = {},
): Promise<CliResult> {
  return runCaptured([process.execPath, MAIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
  });
}

/** The first line a child prints on `stream` (the stream is released for later readers). */
export async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0] ?? "";
}
