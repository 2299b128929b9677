import type { BudgetUse } from "./BudgetUse.js"
import { NOT_PULLED, type Progress } from "./DemoProgress.js"
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

/**
 * What an order in a state waits for, in a seller's words: the groups the live view counts, in the
 * order an order goes through them. `fulfilled` and the closed states wait for nothing.
 */
const WAITS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["to be read from the store", [NOT_PULLED, "pulled"]],
  ["for a draft at the POD service", ["ready", "in_doubt"]],
  ["for the POD shop to check out", ["drafted"]],
  ["being printed", ["checked_out", "in_production"]],
  ["for tracking to reach the store", ["shipped"]],
  ["for you", ["held", "failed", "cancel_pending", "pod_on_hold"]]
]
const FINISHED: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["shipped with tracking in the store", ["fulfilled"]],
  ["cancelled", ["cancelled", "pod_cancelled"]],
  ["with nothing to print", ["not_pod"]]
]

const grouped = (byState: ReadonlyArray<readonly [string, number]>, groups: typeof WAITS) => {
  const count = new Map(byState)
  return groups.flatMap(([words, states]): ReadonlyArray<readonly [string, number]> => {
    const n = states.reduce((sum, state) => sum + (count.get(state) ?? 0), 0)
    return n === 0 ? [] : [[words, n]]
  })
}

/** How many orders wait for what ("for a draft at the POD service 3"), in the order they go through. */
export const waitingFor = (byState: ReadonlyArray<readonly [string, number]>) => grouped(byState, WAITS)

/** How many orders are through ("shipped with tracking in the store 5", "cancelled 1"). */
export const finished = (byState: ReadonlyArray<readonly [string, number]>) => grouped(byState, FINISHED)

/** "1 with an unmatched SKU, 1 with an address problem": why the orders waiting for the seller wait. */
const heldWords = (progress: Progress): string =>
  progress.heldByReason.map(([reason, n]) => `${n} ${HELD_REASON_WORDS[reason] ?? `held (${reason})`}`).join(", ")

const HELD_REASON_WORDS: Readonly<Record<string, string>> = {
  unmatched: "with an unmatched SKU",
  unknown_variant: "mapped to a variant the POD catalog lacks",
  discontinued: "mapped to a discontinued variant",
  out_of_stock: "out of stock",
  missing_design: "without a design",
  address: "with an address problem",
  unpaid: "not paid yet",
  rejected_by_pod: "refused by the POD service",
  economy_unavailable: "not shippable by Economy",
  economy_uncovered: "not shippable by Economy",
  reference_too_long: "with an order id too long",
  withheld_by_store: "withheld by the store"
}

/** "3 for a draft at the POD service, 1 for you (1 with an unmatched SKU)". */
const waitingLine = (progress: Progress, byState: ReadonlyArray<readonly [string, number]>): string =>
  waitingFor(byState).map(([words, n]) =>
    `${n} ${words}${words === "for you" && progress.held.length > 0 ? ` (${heldWords(progress)})` : ""}`
  )
    .join(", ")

/** "5 shipped with tracking in the store, 1 cancelled". */
const finishedLine = (byState: ReadonlyArray<readonly [string, number]>): string =>
  finished(byState).map(([words, n]) => `${n} ${words}`).join(", ")

/** One store's line (shown when the demo has several): its orders, how many are through, how many wait for what. */
export const storeLine = (progress: Progress, store: Progress["stores"][number]): string => {
  const width = Math.max(...progress.stores.map((s) => s.storeKey.length))
  const parts = [
    finishedLine(store.byState),
    ...(waitingFor(store.byState).length > 0 ? [`waiting ${waitingLine(progress, store.byState)}`] : [])
  ]
    .filter((p) => p !== "")
  const orders = `${String(store.generated).padStart(3)} ${store.generated === 1 ? "order" : "orders"}`
  return `${store.storeKey.padEnd(width)}  ${orders}${parts.length === 0 ? "" : `: ${parts.join("; ")}`}`
}

const fit = (line: string, columns: number): string => (line.length <= columns ? line : `${line.slice(0, Math.max(0, columns - 1))}…`)

/** The POD API's budget as a seller reads it: requests used of the allowed per window, and whether it is paused. */
const budgetWords = (budget: BudgetUse): string =>
  `POD API ${budget.inUse} of ${budget.limit} requests per ${budget.windowSeconds} s used${
    budget.paused ? " · PAUSED: the POD service asked podsync to slow down (429)" : ""
  }`

const podLine = (pod: PodServiceStats | undefined): string =>
  pod === undefined
    ? "  POD service       (reading…)"
    : `  POD service       answered ${pod.total} requests, at most ${pod.maxInWindow} in any ${pod.windowSeconds} s · ${
      pod.rejected429 === 0 ? "none refused for too many" : `${pod.rejected429} refused for too many (429)`
    }`

/** The frame shown on a terminal, each line cut to the terminal's width so the redraw stays in place. */
export const renderFrame = (view: ViewModel, columns: number): ReadonlyArray<string> => {
  const { progress } = view
  const waiting = waitingFor(progress.byState)
  const through = finished(progress.byState)
  const widest = Math.max(1, ...[...waiting, ...through].map(([, n]) => n))
  const barRoom = Math.max(10, columns - 48)
  const scale = widest > barRoom ? barRoom / widest : 1
  const bar = (n: number) => "█".repeat(Math.max(n > 0 ? 1 : 0, Math.round(n * scale)))
  const row = ([words, n]: readonly [string, number]) => `    ${words.padEnd(36)}${String(n).padStart(4)}  ${bar(n)}`
  const lines = [
    `podsync demo · ${clock(view.elapsedMs)} · ${view.speed} · daemon ${view.daemonUrl}`,
    `  ${progress.generated} of ${progress.planned} orders placed in the store${progress.stores.length > 1 ? "s" : ""}`,
    "",
    ...(waiting.length === 0 ? ["  waiting: none"] : ["  waiting", ...waiting.map(row)]),
    ...(through.length === 0 ? [] : ["  through", ...through.map(row)]),
    ""
  ]
  if (progress.stores.length > 1) {
    lines.push("  by store", ...progress.stores.map((store) => `    ${storeLine(progress, store)}`), "")
  }
  if (progress.held.length > 0) {
    lines.push(`  waiting for you   ${heldWords(progress)}`)
    for (const held of progress.held.slice(0, 5)) {
      lines.push(`    ${orderLabel(progress, held).padEnd(7)} ${held.reason}: ${held.message ?? ""}`)
    }
    if (progress.held.length > 5) lines.push(`    … and ${progress.held.length - 5} more`)
  }
  lines.push(
    view.budget === undefined ? "  POD API           (reading…)" : `  ${budgetWords(view.budget)}`,
    podLine(view.pod),
    `  POD shop          checked out ${view.factory.checkedOut} · in production ${view.factory.inProduction} · shipped ${view.factory.shipped}`
  )
  if (view.warnings.length > 0) lines.push("", "  recent warnings:", ...view.warnings.map((w) => `    ${w}`))
  lines.push("", "  Ctrl-C stops the demo; the summary and the report are still written.")
  return lines.map((line) => fit(line, columns))
}

/** One line for logs: orders placed, through, and waiting for what; the POD API's use. */
export const renderLine = (view: Omit<ViewModel, "warnings">): string => {
  const { progress, budget } = view
  const through = finishedLine(progress.byState)
  const waiting = waitingLine(progress, progress.byState)
  const parts = [
    `[${seconds(view.elapsedMs).padStart(7)}] ${progress.generated} of ${progress.planned} orders placed`,
    ...(through === "" ? [] : [through]),
    waiting === "" ? "none waiting" : `waiting: ${waiting}`
  ]
  if (budget !== undefined) parts.push(budgetWords(budget))
  return parts.join(" · ")
}

/** ANSI: back to the start of the previous frame, each line cleared before it is written, the rest cleared. */
export const redraw = (previousLines: number, lines: ReadonlyArray<string>): string =>
  (previousLines > 0 ? `\x1b[${previousLines}F` : "") + lines.map((line) => `\x1b[2K${line}\n`).join("") + "\x1b[0J"

export const HIDE_CURSOR = "\x1b[?25l"
export const SHOW_CURSOR = "\x1b[?25h"
