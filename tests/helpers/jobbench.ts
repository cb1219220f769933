// The JobBench fixture checkout (fixtures/benchmarks/jobbench/README.md) for the tests.
import { join } from "node:path";

export const JB_FIXTURE = join(import.meta.dir, "../../fixtures/benchmarks/jobbench");
