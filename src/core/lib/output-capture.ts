// What a child process printed, kept bounded: a stream is written to its file as it arrives (or
// held in memory up to a cap) while the last bytes are kept as the exit record's tail.

import { createWriteStream, openSync, type WriteStream } from "node:fs";
import { SpawnError } from "./spawn-error.ts";

/** Bytes kept at the end of each stream for error messages, whatever else happens to the output. */
export const TAIL_BYTES = 8192;

/** Keeps a bounded copy of one output stream (and its tail), or writes it to a file. */
export class OutputCapture {
  private chunks: Buffer[] = [];
  private captured = 0;
  private tail: Buffer = Buffer.alloc(0);
  bytes = 0;
  truncated = false;
  readonly file: WriteStream | null;

  constructor(
    private readonly cap: number,
    filePath: string | undefined,
    argv0: string,
  ) {
    if (filePath === undefined) {
      this.file = null;
      return;
    }
    let fd: number;
    try {
      fd = openSync(filePath, "w");
    } catch (err) {
      throw new SpawnError(argv0, `cannot open output file ${filePath}: ${(err as Error).message}`);
    }
    this.file = createWriteStream("", { fd });
    this.file.on("error", () => {
      // A failed write (full disk) loses file output; it must not crash this process.
    });
  }

  write(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.tail =
      chunk.length >= TAIL_BYTES
        ? chunk.subarray(chunk.length - TAIL_BYTES)
        : Buffer.concat([this.tail, chunk]).subarray(-TAIL_BYTES);
    if (this.file) {
      this.file.write(chunk);
      return;
    }
    this.chunks.push(chunk);
    this.captured += chunk.length;
    while (this.captured - (this.chunks[0]?.length ?? 0) >= this.cap && this.chunks.length > 1) {
      this.captured -= this.chunks.shift()?.length ?? 0;
      this.truncated = true;
    }
  }

  /** Resolves once the file (if any) is flushed and closed. */
  async finish(): Promise<void> {
    const file = this.file;
    if (!file) return;
    await new Promise<void>((done) => {
      file.once("error", () => done());
      file.end(() => done());
    });
  }

  text(): string {
    if (this.file) return "";
    let all = Buffer.concat(this.chunks);
    if (all.length > this.cap) {
      all = all.subarray(all.length - this.cap);
      this.truncated = true;
    }
    return decodeFrom(all);
  }

  tailText(): string {
    return decodeFrom(this.tail);
  }
}

/** UTF-8 decode, skipping continuation bytes a cut may have left at the start. */
export function decodeFrom(buf: Buffer): string {
  let start = 0;
  while (start < buf.length && start < 4 && ((buf[start] ?? 0) & 0xc0) === 0x80) start++;
  return new TextDecoder("utf-8").decode(buf.subarray(start));
}
