/**
 * The Node flags of every process the tests start: vitest's workers and the podsync processes the
 * tests spawn. Each process compiles PGlite's WebAssembly anew; by default V8 then compiles its hot
 * functions again with its optimising compiler, which in a process that lives seconds costs more CPU
 * than it saves (measured: opening a data folder and a few thousand queries, 4.2 s of CPU against 6.6 s
 * with tier-up). `--liftoff-only` keeps the baseline code: the same program, compiled once. Production
 * runs without it: a daemon lives for weeks.
 */
export const TEST_NODE_FLAGS: ReadonlyArray<string> = ["--liftoff-only"]
