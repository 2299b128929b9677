import * as fs from "node:fs"
import * as path from "node:path"
import type { RunnerTestFile } from "vitest"
import type { Reporter } from "vitest/reporters"

/** Where each test file's last measured time is kept (committed): the sequencer starts the slowest first. */
export const DURATIONS_FILE = "test/durations.json"

const SHOWN = 10

/** A file's wall time in its worker: collecting (imports) and setup included, as the run waits on all of it. */
const durationOf = (file: RunnerTestFile) => (file.collectDuration ?? 0) + (file.setupDuration ?? 0) + (file.result?.duration ?? 0)

/**
 * Names the ten slowest test files at the end of every run, so that the next slowdown is seen the
 * day it lands; with PODSYNC_RECORD_DURATIONS=1 writes every file's time to DURATIONS_FILE.
 */
export default class SlowestFiles implements Reporter {
  onFinished(files: ReadonlyArray<RunnerTestFile> = []) {
    if (files.length === 0) return
    const root = process.cwd()
    const timed = files
      .map((file) => ({ file: path.relative(root, file.filepath), ms: Math.round(durationOf(file)) }))
      .sort((a, b) => b.ms - a.ms)
    const width = Math.max(...timed.slice(0, SHOWN).map((t) => t.file.length))
    const lines = timed.slice(0, SHOWN).map((t) => `  ${t.file.padEnd(width)}  ${(t.ms / 1000).toFixed(1).padStart(6)} s`)
    process.stdout.write(`\nThe ${Math.min(SHOWN, timed.length)} slowest test files:\n${lines.join("\n")}\n`)
    // CPU (fileCpu.ts): what the run's length comes from on a busy machine, file by file.
    const costly = files
      .flatMap((file) => (file.meta.cpuMs === undefined ? [] : [{ file: path.relative(root, file.filepath), ms: file.meta.cpuMs }]))
      .sort((a, b) => b.ms - a.ms)
    if (costly.length > 0) {
      const total = costly.reduce((sum, t) => sum + t.ms, 0)
      const cpuWidth = Math.max(...costly.slice(0, SHOWN).map((t) => t.file.length))
      const cpuLines = costly.slice(0, SHOWN).map((t) =>
        `  ${t.file.padEnd(cpuWidth)}  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${(100 * t.ms / total).toFixed(1).padStart(4)} %`
      )
      process.stdout.write(
        `\nCPU time of the test files (each file's worker and the processes it started): ${(total / 1000).toFixed(0)} s in all; ` +
          `the ${Math.min(SHOWN, costly.length)} costliest:\n${cpuLines.join("\n")}\n`
      )
    }
    if (process.env["PODSYNC_RECORD_DURATIONS"] === "1" && files.length > 1) {
      const known = readDurations()
      for (const t of timed) known[t.file] = t.ms
      const sorted = Object.fromEntries(Object.entries(known).sort(([a], [b]) => a.localeCompare(b)))
      fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`)
    }
  }
}

/** The recorded time of each test file (relative path → ms); empty when none was recorded. */
export const readDurations = (): Record<string, number> => {
  try {
    return JSON.parse(fs.readFileSync(DURATIONS_FILE, "utf8")) as Record<string, number>
  } catch {
    return {}
  }
}
