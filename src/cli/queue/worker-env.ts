// How a domain job's child learns whose job it runs: `harness2 worker` sets HARNESS2_WORKER and
// HARNESS2_PLAN, and the sweep records both in its configuration (the fleet view reads them).
// Kept apart from the queue so that a local sweep never loads pg-boss.

/** The worker and plan a domain job's child runs for (set by `harness2 worker`), if any. */
export function workerOf(env: Record<string, string | undefined>): {
  worker?: { name: string; plan: string };
} {
  const name = env.HARNESS2_WORKER;
  const plan = env.HARNESS2_PLAN;
  return name && plan ? { worker: { name, plan } } : {};
}
