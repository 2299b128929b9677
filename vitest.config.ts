import * as os from "node:os"
import { defineConfig } from "vitest/config"
import { TEST_NODE_FLAGS } from "./test/support/nodeFlags.js"
import SlowestFirst from "./test/support/slowestFirst.js"

const FORKS = Math.min(6, 3 * os.availableParallelism())

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One migrated database for the whole run, which tests copy (test/support/databaseTemplate.ts).
    globalSetup: ["./test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites that spawn daemons or share the real PostgreSQL server stay in
    // separate files; files run in parallel, in their own processes.
    pool: "forks",
    // Three files per core, at most six. The end-to-end files spend most of their time waiting on
    // what they drive (a daemon's next scheduled pull, a lease, a simulator's answer): with one file
    // per core the machine was idle three fifths of the time (measured on 2 cores: 2 files at a time
    // kept 0.39 of the CPU busy, 6 at a time 0.89, and vitest took 3x less). At most six, so that the
    // daemons' connection pools stay well inside PostgreSQL's 100 connections on a bigger machine.
    // PGlite's WebAssembly compiled by V8's baseline compiler only (TEST_NODE_FLAGS): see there.
    poolOptions: { forks: { maxForks: FORKS, minForks: 1, execArgv: [...TEST_NODE_FLAGS] } },
    // The slowest files first (test/durations.json), and the ten slowest named at the end.
    sequence: { sequencer: SlowestFirst },
    reporters: ["default", "./test/support/slowestFiles.ts"]
  }
})
