import { defineConfig } from "vitest/config"
import { TEST_NODE_FLAGS } from "./test/support/nodeFlags.js"
import SlowestFirst from "./test/support/slowestFirst.js"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One migrated database for the whole run, which tests copy (test/support/databaseTemplate.ts).
    globalSetup: ["./test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites that spawn daemons or share the real PostgreSQL server stay in
    // separate files; files run in parallel across the two cores.
    pool: "forks",
    // PGlite's WebAssembly compiled by V8's baseline compiler only (TEST_NODE_FLAGS): see there.
    poolOptions: { forks: { maxForks: 2, minForks: 1, execArgv: [...TEST_NODE_FLAGS] } },
    // The slowest files first (test/durations.json), and the ten slowest named at the end.
    sequence: { sequencer: SlowestFirst },
    reporters: ["default", "./test/support/slowestFiles.ts"]
  }
})
