// The benchmarks that need the whole service as the suites start it (TestAppLive: a database from the embedded
// cluster that test/support/EmbeddedCluster.ts starts as vitest's globalSetup) run under vitest, one file at a time:
//   PATH=$PWD/node_modules/.bin:$PATH vitest run --config bench/vitest.config.ts bench/console-pay.run.ts
// They print figures and assert nothing about time (README: performance is measured here, never asserted).
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["bench/**/*.run.ts"],
    globalSetup: ["test/support/EmbeddedCluster.ts"],
    pool: "forks",
    maxWorkers: 1,
    minWorkers: 1,
    testTimeout: 60 * 60_000,
    hookTimeout: 10 * 60_000
  }
})
