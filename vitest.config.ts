import * as os from "node:os"
import { defineConfig } from "vitest/config"
import { TEST_NODE_FLAGS } from "./test/support/nodeFlags.js"
import SlowestFirst from "./test/support/slowestFirst.js"

const FORKS = Math.min(4, 2 * os.availableParallelism())

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One migrated database for the whole run, which tests copy (test/support/databaseTemplate.ts).
    globalSetup: ["./test/support/globalSetup.ts"],
    // @effect/vitest's layer() rewrites the shared `it`; put back before each file (see there). Files
    // run isolated today, so this matters only where one worker runs several files (isolate: false,
    // measured at about 0.78 of the run's time but left off: Etsy's pacing-alone control then saw no
    // refusal in 2 of 4 full runs).
    // fileCpu.ts: each file's CPU time, for the summary (slowestFiles.ts).
    setupFiles: ["./test/support/effectVitestReset.ts", "./test/support/fileCpu.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites that spawn daemons or share the real PostgreSQL server stay in
    // separate files; files run in parallel, in their own processes.
    pool: "forks",
    // Two files per core, at most four. The end-to-end files spend most of their time waiting on
    // what they drive (a daemon's next scheduled pull, a lease, a simulator's answer): with one file
    // per core the machine was idle three fifths of the time (measured on 2 cores: 2 files at a time
    // kept 0.39 of the CPU busy, 4 at a time 0.83, 6 at a time 0.89). Not six: on a 2-core machine
    // whose page faults were slow (each fresh page about 12 µs, so every process and embedded database
    // started cost several times more), six files and their daemons starved one another until
    // real-time bounds failed. At most four also keeps the daemons' connection pools well inside
    // PostgreSQL's 100 connections on a bigger machine.
    // PGlite's WebAssembly compiled by V8's baseline compiler only (TEST_NODE_FLAGS): see there.
    poolOptions: { forks: { maxForks: FORKS, minForks: 1, execArgv: [...TEST_NODE_FLAGS] } },
    // The slowest files first (test/durations.json), and the ten slowest named at the end.
    sequence: { sequencer: SlowestFirst },
    reporters: ["default", "./test/support/slowestFiles.ts"]
  }
})
