// vitest's globalSetup for the suites that prove (vitest.config.ts, bench/vitest.config.ts): the test CRS made once,
// before any worker starts. Making it is synchronous curve arithmetic (13 s on a quiet 2-core machine); made by the
// first suites that need it, at once, in their workers, it blocked those workers past vitest's fixed 60 s RPC timeout
// on a loaded machine ("[vitest-worker]: Timeout calling onTaskUpdate": every test green, the run failed).
import { Effect } from "effect"
import { ensureTestCrs } from "../../client/src/confidential/proving/CrsFiles.ts"
import { CRS_POINTS, TEST_CRS_DIR } from "./ConfidentialProving.ts"

export default async () => {
  await Effect.runPromise(ensureTestCrs(TEST_CRS_DIR, CRS_POINTS))
}
