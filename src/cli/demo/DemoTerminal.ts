import { Cause, Effect, Layer, Logger, LogLevel } from "effect"
import type { AppConfig } from "../../config/AppConfig.js"
import { loggerLayer } from "../AppRuntime.js"
import { HIDE_CURSOR, redraw, renderFrame, renderLine, SHOW_CURSOR, type ViewModel } from "./ProgressView.js"

/** Where the demo writes: the terminal (redrawn in place) or a file or pipe (plain lines). */
export interface DemoOutput {
  readonly write: (text: string) => void
  /** A terminal that understands ANSI cursor movement. */
  readonly interactive: boolean
  readonly columns: number
}

/** Standard output; interactive only on a real terminal that is not TERM=dumb. */
export const stdoutOutput = (): DemoOutput => ({
  write: (text) => void process.stdout.write(text),
  interactive: process.stdout.isTTY === true && process.env.TERM !== "dumb",
  columns: process.stdout.columns ?? 100
})

const MAX_WARNINGS = 4

const messageText = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ")

/**
 * The live view. On a terminal each frame replaces the previous one and the
 * daemon's warnings are kept in the frame (a log line would break the
 * redraw); elsewhere a plain line is written every `plainEveryMs` and the
 * daemon logs as usual (JSON lines on stderr).
 */
export const makeDemoTerminal = (output: DemoOutput, plainEveryMs: number) => {
  const warnings: Array<string> = []
  let frameLines = 0
  let lastPlainAt = Number.NEGATIVE_INFINITY
  let cursorHidden = false

  const keepWarning = Logger.make(({ cause, date, logLevel, message }) => {
    if (LogLevel.lessThan(logLevel, LogLevel.Warning)) return
    const detail = Cause.isEmpty(cause) ? "" : ` (${Cause.pretty(cause).split("\n")[0]})`
    warnings.push(`${date.toISOString().slice(11, 19)} ${logLevel.label.toLowerCase()}: ${messageText(message)}${detail}`)
    if (warnings.length > MAX_WARNINGS) warnings.splice(0, warnings.length - MAX_WARNINGS)
  })

  /** The logger for the demo's run. */
  const logger = (config: AppConfig): Layer.Layer<never> =>
    output.interactive
      ? Layer.merge(Logger.replace(Logger.defaultLogger, keepWarning), Logger.minimumLogLevel(LogLevel.Warning))
      : loggerLayer(config.log.level, config.log.format)

  const write = (text: string) => Effect.sync(() => output.write(text))

  /** Shows the view: a new frame, or a plain line when one is due (`force`: now). */
  const show = (view: Omit<ViewModel, "warnings">, force = false) =>
    Effect.suspend(() => {
      if (output.interactive) {
        const lines = renderFrame({ ...view, warnings: [...warnings] }, output.columns)
        const prefix = cursorHidden ? "" : HIDE_CURSOR
        cursorHidden = true
        const text = prefix + redraw(frameLines, lines)
        frameLines = lines.length
        return write(text)
      }
      if (!force && view.elapsedMs - lastPlainAt < plainEveryMs) return Effect.void
      lastPlainAt = view.elapsedMs
      return write(`${renderLine(view)}\n`)
    })

  /** Leaves the last frame on screen and gives the cursor back, before the summary. */
  const release = Effect.suspend(() => {
    frameLines = 0
    if (!cursorHidden) return Effect.void
    cursorHidden = false
    return write(SHOW_CURSOR)
  })

  return { logger, show, write, release }
}

export type DemoTerminal = ReturnType<typeof makeDemoTerminal>
