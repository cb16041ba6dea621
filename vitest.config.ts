import { configDefaults, defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The full-stack suites mostly wait (ledger closes, reconciler rounds, child processes): three files at a time keep
    // two cores busy (the default, one per core less one, ran them one after another: ~4 minutes instead of ~2).
    maxWorkers: 3,
    minWorkers: 1,
    // A passing run shows the summary (and the suites' figures lines); a failing test shows its console output.
    silent: "passed-only",
    reporters: ["default", "./test/support/FiguresReporter.ts"],
    projects: [
      // Rules on test Layers: no database, so no globalSetup (`vitest run test/unit` starts no PostgreSQL).
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/unit/**"],
          globalSetup: ["test/support/EmbeddedCluster.ts"]
        }
      }
    ]
  }
})
