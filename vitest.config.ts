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
    // @effect/vitest's layer() rewrites the shared `it`; put back before each file (see there).
    // fileCpu.ts: each file's CPU time, for the summary (slowestFiles.ts).
    setupFiles: ["./test/support/effectVitestReset.ts", "./test/support/fileCpu.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites that spawn daemons or share the real PostgreSQL server stay in
    // separate files; files run in parallel, in a few worker processes.
    pool: "forks",
    // Each worker process runs file after file with one module registry: effect, kysely, PGlite and our
    // sources are loaded once per worker, not once per file. Measured on 2 cores: the run's summed
    // collect time fell from 1,154 s to 114 s and vitest's run from 1,518 s to 1,203 s. What a file
    // leaves in a module is then seen by the next file in its worker: the tests keep no state in
    // modules, and @effect/vitest's own (its `layer()` rewrites the shared `it`) is undone before
    // each file by test/support/effectVitestReset.ts.
    isolate: false,
    // Two files per core, at most four. The end-to-end files spend most of their time waiting on
    // what they drive (a daemon's next scheduled pull, a lease, a simulator's answer): with one file
    // per core the machine was idle three fifths of the time (measured on 2 cores: 2 files at a time
    // kept 0.39 of the CPU busy, 4 at a time 0.83, 6 at a time 0.89). Not six: on a 2-core machine
    // whose page faults were slow (each fresh page about 12 µs, so every process and embedded database
    // started cost several times more), six files and their daemons starved one another until
    // real-time bounds failed. At most four also keeps the daemons' connection pools well inside
    // PostgreSQL's 100 connections on a bigger machine.
    // PGlite's WebAssembly compiled by V8's baseline compiler only (TEST_NODE_FLAGS): see there.
    // As many workers at the start as at most: with shared workers and fewer kept, tinypool ended an
    // idle worker with a task still booked on it ("Terminating worker thread", which failed the run)
    // and left its process running.
    poolOptions: { forks: { maxForks: FORKS, minForks: FORKS, isolate: false, execArgv: [...TEST_NODE_FLAGS] } },
    // The slowest files first (test/durations.json), and the ten slowest named at the end.
    sequence: { sequencer: SlowestFirst },
    reporters: ["default", "./test/support/slowestFiles.ts"]
  }
})
