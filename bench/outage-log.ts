// The daemon's log lines in the outage benchmark: kept out of the benchmark's output and written to
// one file (a JSON line each, as the daemon's JSON logger writes it, tagged with the run and the
// phase it came in), counted by level and phase, the most frequent messages of each phase kept.
import * as fs from "node:fs"
import { Logger } from "effect"

/** Before the outage, during it, from the recovery until the drain ended, after that. */
export type Phase = "before" | "outage" | "drain" | "after"
const byPhase = <A>(f: (phase: Phase) => A): Record<Phase, A> => ({
  before: f("before"),
  outage: f("outage"),
  drain: f("drain"),
  after: f("after")
})

export interface LogSummary {
  /** Lines by level ("INFO", "WARN", "ERROR", …), per phase. */
  readonly linesByPhase: Record<Phase, Record<string, number>>
  /** The most frequent messages of each phase (numbers and ids blanked), with the first line of their cause. */
  readonly topMessages: Record<Phase, ReadonlyArray<{ readonly level: string; readonly message: string; readonly count: number }>>
}

/** One file for the whole benchmark; each run logs through its own `RunLog`. */
export class LogFile {
  private readonly fd: number
  constructor(readonly path: string) {
    this.fd = fs.openSync(path, "a")
  }
  write(line: string): void {
    fs.writeSync(this.fd, `${line}\n`)
  }
  close(): void {
    fs.closeSync(this.fd)
  }
}

const blank = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, "#").replace(/\d+(\.\d+)?/g, "#").replace(/\s+/g, " ").trim().slice(0, 200)

const firstLine = (value: unknown) => (typeof value === "string" ? value.split("\n").find((l) => l.trim() !== "") ?? "" : "")

export class RunLog {
  phase: Phase = "before"
  private readonly lines = byPhase((): Record<string, number> => ({}))
  private readonly messages = byPhase(() => new Map<string, number>())

  private readonly waiters: Array<{ readonly pattern: RegExp; readonly resolve: () => void }> = []
  private readonly seen: Array<string> = []

  constructor(private readonly file: LogFile, private readonly run: string) {}

  /** Resolves true once the daemon has logged a message matching `pattern` (before or after the call), false after `timeoutMs`. */
  logged(pattern: RegExp, timeoutMs: number): Promise<boolean> {
    if (this.seen.some((m) => pattern.test(m))) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      this.waiters.push({
        pattern,
        resolve: () => {
          clearTimeout(timer)
          resolve(true)
        }
      })
    })
  }

  /** The daemon's logger: nothing reaches stdout or stderr. */
  readonly logger = Logger.make<unknown, void>((options) => {
    const level = options.logLevel.label
    const parsed = JSON.parse(Logger.jsonLogger.log(options)) as Record<string, unknown>
    this.file.write(JSON.stringify({ run: this.run, phase: this.phase, ...parsed }))
    const counts = this.lines[this.phase]
    counts[level] = (counts[level] ?? 0) + 1
    const message = Array.isArray(parsed["message"]) ? parsed["message"][0] : parsed["message"]
    this.seen.push(String(message))
    for (const waiter of this.waiters.filter((w) => w.pattern.test(String(message)))) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
    const cause = firstLine(parsed["cause"])
    const key = `${level}\t${blank(String(message))}${cause === "" ? "" : ` — ${blank(cause)}`}`
    this.messages[this.phase].set(key, (this.messages[this.phase].get(key) ?? 0) + 1)
  })

  /** A line of the benchmark's own in the file, so that the phases can be found in it. */
  mark(phase: Phase, note: string): void {
    this.phase = phase
    this.file.write(JSON.stringify({ run: this.run, phase, benchmark: note, timestamp: new Date().toISOString() }))
  }

  summary(top = 8): LogSummary {
    const topMessages = byPhase((p) =>
      [...this.messages[p]].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, count]) => {
        const [level, message] = key.split("\t") as [string, string]
        return { level, message, count }
      })
    )
    return { linesByPhase: this.lines, topMessages }
  }
}
