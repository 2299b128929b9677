import { lanesByPriority } from "../../budget/Lane.js"
import type { BudgetUse } from "./BudgetUse.js"
import type { Progress } from "./DemoProgress.js"
import type { FactoryCounts } from "./PodFactory.js"
import type { PodServiceStats } from "./SimulatorAdmin.js"

/**
 * The demo's live view, pure: a frame of lines redrawn in place on a terminal,
 * or one plain line at a time when the output is a file or a pipe (CI, tests).
 */

export interface ViewModel {
  readonly elapsedMs: number
  readonly speed: string
  readonly daemonUrl: string
  readonly progress: Progress
  readonly budget: BudgetUse | undefined
  readonly pod: PodServiceStats | undefined
  readonly factory: FactoryCounts
  /** Recent warnings of the daemon (on a terminal they are shown here rather than scrolled past). */
  readonly warnings: ReadonlyArray<string>
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

const clock = (ms: number): string => {
  const total = Math.floor(ms / 1000)
  return `${String(Math.floor(total / 60)).padStart(2, "0")}:${String(total % 60).padStart(2, "0")}`
}

/** An order as the view names it: with its store when the demo has several. */
export const orderLabel = (progress: Progress, order: { readonly storeKey: string; readonly name: string }): string =>
  progress.stores.length > 1 ? `${order.storeKey} ${order.name}` : order.name

/** One store's line (shown when the demo has several): its orders, where they are, by state. */
export const storeLine = (progress: Progress, store: Progress["stores"][number]): string => {
  const width = Math.max(...progress.stores.map((s) => s.storeKey.length))
  const states = store.byState.map(([state, n]) => `${state} ${n}`).join(", ")
  const orders = `${String(store.generated).padStart(3)} ${store.generated === 1 ? "order, " : "orders,"}`
  return `${store.storeKey.padEnd(width)}  ${orders} ${store.settled} where expected${states === "" ? "" : `: ${states}`}`
}

const fit = (line: string, columns: number): string => (line.length <= columns ? line : `${line.slice(0, Math.max(0, columns - 1))}…`)

const laneFigures = (figures: Readonly<Record<string, number>>): string =>
  lanesByPriority.map((lane) => `${lane} ${figures[lane] ?? 0}`).join(" · ")

const budgetLines = (budget: BudgetUse | undefined): ReadonlyArray<string> => {
  if (budget === undefined) return ["  POD rate budget   (reading…)"]
  const lines = [
    `  POD rate budget   ${budget.inUse} of ${budget.limit} per ${budget.windowSeconds} s in use · ${budget.inFlight} in flight${
      budget.paused ? " · PAUSED (429)" : ""
    }`,
    `                    used per lane: ${laneFigures(budget.byLane)}`
  ]
  if (budget.waiting !== undefined) lines.push(`                    waiting:       ${laneFigures(budget.waiting)}`)
  return lines
}

const podLine = (pod: PodServiceStats | undefined): string =>
  pod === undefined
    ? "  POD service       (reading…)"
    : `  POD service       ${pod.total} requests · most in any ${pod.windowSeconds} s: ${pod.maxInWindow} · answered 429: ${pod.rejected429}`

/** The frame shown on a terminal, each line cut to the terminal's width so the redraw stays in place. */
export const renderFrame = (view: ViewModel, columns: number): ReadonlyArray<string> => {
  const { progress } = view
  const widest = Math.max(1, ...progress.byState.map(([, n]) => n))
  const barRoom = Math.max(10, columns - 26)
  const scale = widest > barRoom ? barRoom / widest : 1
  const bar = (n: number) => "█".repeat(Math.max(n > 0 ? 1 : 0, Math.round(n * scale)))
  const lines = [
    `podsync demo · ${clock(view.elapsedMs)} · ${view.speed} · daemon ${view.daemonUrl}`,
    `  store orders      generated ${progress.generated}/${progress.planned} · where the demo expects them ${progress.settled}/${progress.planned}`,
    "",
    ...(progress.byState.length === 0
      ? ["  (no orders yet)"]
      : progress.byState.map(([state, n]) => `  ${state.padEnd(16)}${String(n).padStart(4)}  ${bar(n)}`)),
    ""
  ]
  if (progress.stores.length > 1) {
    lines.push("  by store", ...progress.stores.map((store) => `    ${storeLine(progress, store)}`), "")
  }
  if (progress.held.length > 0) {
    lines.push(`  held, by reason   ${progress.heldByReason.map(([reason, n]) => `${reason} ${n}`).join(" · ")}`)
    for (const held of progress.held.slice(0, 5)) {
      lines.push(`    ${orderLabel(progress, held).padEnd(7)} ${held.reason}: ${held.message ?? ""}`)
    }
    if (progress.held.length > 5) lines.push(`    … and ${progress.held.length - 5} more`)
  }
  lines.push(
    ...budgetLines(view.budget),
    podLine(view.pod),
    `  POD shop          checked out ${view.factory.checkedOut} · in production ${view.factory.inProduction} · shipped ${view.factory.shipped}`
  )
  if (view.warnings.length > 0) lines.push("", "  recent warnings:", ...view.warnings.map((w) => `    ${w}`))
  lines.push("", "  Ctrl-C stops the demo; the summary and the report are still written.")
  return lines.map((line) => fit(line, columns))
}

/** One line for logs: the states with orders, held reasons and the budget. */
export const renderLine = (view: Omit<ViewModel, "warnings">): string => {
  const { progress, budget } = view
  const parts = [
    `[${seconds(view.elapsedMs).padStart(7)}] generated ${progress.generated}/${progress.planned}`,
    progress.byState.map(([state, n]) => `${state} ${n}`).join(", ") || "no orders yet"
  ]
  if (progress.heldByReason.length > 0) parts.push(`held: ${progress.heldByReason.map(([r, n]) => `${r} ${n}`).join(", ")}`)
  if (progress.stores.length > 1) {
    parts.push(`where expected per store: ${progress.stores.map((s) => `${s.storeKey} ${s.settled}/${s.generated}`).join(", ")}`)
  }
  if (budget !== undefined) {
    const waiting = budget.waiting === undefined ? "" : `, waiting ${laneFigures(budget.waiting)}`
    parts.push(`budget ${budget.inUse}/${budget.limit} in use (${laneFigures(budget.byLane)}${waiting})`)
  }
  parts.push(`POD shop shipped ${view.factory.shipped}`)
  return parts.join(" · ")
}

/** ANSI: back to the start of the previous frame, each line cleared before it is written, the rest cleared. */
export const redraw = (previousLines: number, lines: ReadonlyArray<string>): string =>
  (previousLines > 0 ? `\x1b[${previousLines}F` : "") + lines.map((line) => `\x1b[2K${line}\n`).join("") + "\x1b[0J"

export const HIDE_CURSOR = "\x1b[?25l"
export const SHOW_CURSOR = "\x1b[?25h"
