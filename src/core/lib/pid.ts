// Whether a process id names a live process on this machine: the one answer every lock and every
// clean-up of a dead process's leftovers asks for. Never signals anything (signal 0 only probes).

/**
 * False only when no process has this pid (ESRCH) or it is no pid at all; a process of another
 * user (EPERM), or any answer that cannot be read, counts as alive so nothing live is taken over.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
