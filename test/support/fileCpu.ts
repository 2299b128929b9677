import * as fs from "node:fs"
import { afterAll } from "vitest"

/**
 * Runs before every test file (vitest's setupFiles): at the file's end, records on the file's task
 * (`meta.cpuMs`) the CPU time it cost: its worker's and that of every process it started and saw
 * end (daemons, CLI runs, Chromium). The suite is bound by CPU, not by waits: on two cores a file's
 * wall time says as much about the files beside it as about itself, its CPU time does not. Read by
 * the summary (slowestFiles.ts). Linux only (/proc); elsewhere nothing is recorded.
 */
declare module "vitest" {
  interface TaskMeta {
    /** CPU milliseconds the file cost, its worker's and its ended child processes'. */
    cpuMs?: number
  }
}

/** This process's CPU time and its waited-for children's, in ms; undefined without /proc. */
export const processCpuMs = (): number | undefined => {
  try {
    // Fields after the command name: utime, stime, cutime, cstime are the 12th to 15th.
    const stat = fs.readFileSync("/proc/self/stat", "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0)
    // Linux reports these in USER_HZ, 100 a second on every architecture Node runs on.
    return Number.isFinite(ticks) ? ticks * 10 : undefined
  } catch {
    return undefined
  }
}

// A worker that runs files one after another (isolate: false) counts each from its start; an
// isolated worker runs one file, counted from the process's start (its imports included).
const SEEN = Symbol.for("podsync.test.fileCpu")
const holder = globalThis as { [SEEN]?: boolean }
const startedAt = holder[SEEN] === true ? processCpuMs() : 0
holder[SEEN] = true

afterAll((file) => {
  const now = processCpuMs()
  if (now !== undefined && startedAt !== undefined) file.meta.cpuMs = now - startedAt
})
