// The answer file every CLI improver channel reads: `output/answer.md` in the session's workspace,
// opened so that nothing the session planted (a link out of the workspace, a FIFO, a second name
// of another file) is ever read as its answer.

import {
  closeSync,
  existsSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readFileSync,
} from "node:fs";
import { join } from "node:path";

const ANSWER_DIR_FLAGS =
  fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;
const ANSWER_FILE_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

/**
 * The session's `output/answer.md` as UTF-8, or "" when there is none the session itself wrote:
 * missing, `output/` or `answer.md` a symlink (never followed out of the workspace), not a regular
 * file (a FIFO would block the read), or a hard link (a second name of some other file).
 */
export function readAnswerFile(workspace: string): string {
  let dirFd: number;
  try {
    // O_NOFOLLOW on the directory itself: a symlinked output/ fails here instead of resolving.
    dirFd = openSync(join(workspace, "output"), ANSWER_DIR_FLAGS);
  } catch {
    return "";
  }
  try {
    // Linux: open the file through the directory already opened, so output/ cannot be swapped for
    // a symlink between the check and the read. Elsewhere the path is opened again.
    const viaFd = `/proc/self/fd/${dirFd}`;
    const dir = existsSync(viaFd) ? viaFd : join(workspace, "output");
    let fd: number;
    try {
      fd = openSync(join(dir, "answer.md"), ANSWER_FILE_FLAGS);
    } catch {
      return "";
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.nlink !== 1) return "";
      return new TextDecoder("utf-8").decode(readFileSync(fd));
    } catch {
      return "";
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(dirFd);
  }
}
