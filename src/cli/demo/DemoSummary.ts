import type { Progress } from "./DemoProgress.js"
import { orderLabel, seconds, storeLine } from "./ProgressView.js"
import type { PodServiceStats } from "./SimulatorAdmin.js"

/** What the demo prints when it ends (pure): the final counts, where things are, what to do next. */

export type Ending = "finished" | "interrupted" | "timed_out"

export interface SummaryInput {
  readonly ending: Ending
  readonly elapsedMs: number
  readonly progress: Progress
  readonly pod: PodServiceStats | undefined
  /** The POD service's own limit, for comparison with the most requests it saw in a window. */
  readonly podLimit: { readonly requests: number; readonly windowSeconds: number }
  readonly dataDir: string
  readonly report: ReportWritten
  readonly configFile: string
  /** What the demo's alert receiver got: "3 alerts sent: 2 unmatched SKUs, …", and where it listened. */
  readonly alerts?: { readonly line: string; readonly receiver: string; readonly refused: number }
}

/** The reconciliation report's files and its one-line summary, or why it was not written. */
export type ReportWritten =
  | { readonly files: ReadonlyArray<string>; readonly line: string }
  | { readonly notWritten: string }

const meaning: Readonly<Record<string, string>> = {
  fulfilled: "drafted at the POD service, shipped, tracking pushed to the store",
  held: "waiting for a person: see the reasons below",
  cancelled: "cancelled in the store before a draft was made",
  cancel_pending: "cancelled in the store after its draft: cancel the draft at the POD service by hand",
  pod_cancelled: "cancelled at the POD service",
  pod_on_hold: "on hold at the POD service",
  failed: "failed: podsync explain tells why",
  not_pod: "nothing for the POD service in it"
}

const headline = (input: SummaryInput): string => {
  const { progress } = input
  switch (input.ending) {
    case "finished":
      return `podsync demo finished in ${seconds(input.elapsedMs)}: every one of the ${progress.planned} orders` +
        `${progress.stores.length > 1 ? ` in its ${progress.stores.length} stores` : ""} is shipped, cancelled, or waiting for you.`
    case "interrupted":
      return `podsync demo stopped (Ctrl-C) after ${
        seconds(input.elapsedMs)
      }, with ${progress.generated} of ${progress.planned} orders generated.`
    case "timed_out":
      return `podsync demo gave up after ${seconds(input.elapsedMs)}: ${progress.outstanding.length} orders are still on their way.`
  }
}

/** How to look at what the demo left (its database stays until the next demo), with an order it made. */
const lookAround = (input: SummaryInput): ReadonlyArray<string> => {
  const progress = input.progress
  const order = progress.held[0] ?? progress.outstanding[0]
  const several = progress.stores.length > 1
  const config = `--config ${input.configFile}`
  return [
    "Look around (until the next demo starts; explain takes the order name the store shows):",
    `  npx podsync status ${config}`,
    ...(order === undefined ? [] : [
      `  npx podsync explain '${order.name}'${several ? ` --store ${order.storeKey}` : ""} ${config}`
    ])
  ]
}

export const renderSummary = (input: SummaryInput): string => {
  const { progress, pod } = input
  const lines = [headline(input), "", "Final counts (orders by state):"]
  for (const [state, count] of progress.byState) {
    lines.push(`  ${state.padEnd(16)}${String(count).padStart(4)}  ${meaning[state] ?? "still on its way"}`)
  }
  if (progress.stores.length > 1) {
    lines.push("", "By store:")
    for (const store of progress.stores) lines.push(`  ${storeLine(progress, store)}`)
  }
  if (progress.held.length > 0) {
    lines.push("", "Held orders:")
    for (const held of progress.held) lines.push(`  ${orderLabel(progress, held).padEnd(7)} ${held.reason}: ${held.message ?? ""}`)
    if (progress.held.some((h) => h.reason === "unmatched")) {
      lines.push("  (unmatched: add the SKU to the mapping table and the order is released by itself within seconds)")
    }
  }
  if (input.ending !== "finished" && progress.outstanding.length > 0) {
    lines.push("", "Still on their way:")
    for (const order of progress.outstanding) lines.push(`  ${orderLabel(progress, order).padEnd(7)} ${order.kind} order, ${order.state}`)
  }
  if (pod !== undefined) {
    lines.push(
      "",
      `The POD service saw ${pod.total} requests, at most ${pod.maxInWindow} in any ${pod.windowSeconds} s window ` +
        `(its limit: ${input.podLimit.requests} per ${input.podLimit.windowSeconds} s), and answered 429 ${pod.rejected429} times; ` +
        `${
          pod.duplicateReferenceIds.length === 0
            ? "no order was drafted twice"
            : `${pod.duplicateReferenceIds.length} orders were drafted twice`
        }.`
    )
  }
  if ("line" in input.report) lines.push("", `Reconciliation ${input.report.line}.`)
  if (input.alerts !== undefined) {
    lines.push(
      "",
      `Alerts: ${input.alerts.line}, to the demo's signed-webhook receiver ${input.alerts.receiver}` +
        `${input.alerts.refused === 0 ? " (every signature checked out)" : ` (${input.alerts.refused} refused for a bad signature)`}.`
    )
  }
  lines.push(
    "",
    "Where things are:",
    `  database  ${input.dataDir}  (embedded; wiped when the next demo starts, unless --keep-data)`,
    "notWritten" in input.report
      ? `  report    not written: ${input.report.notWritten}`
      : `  report    ${input.report.files.join("\n            ")}`,
    `  config    ${input.configFile}  (the local simulators; no credentials)`,
    "",
    ...lookAround(input),
    "",
    "Next: point podsync at your own store and POD account",
    "  1. cp config/podsync.example.yaml config/podsync.yaml   (every key is documented there)",
    "  2. set the POD credentials in the environment: POD_BASE_URL (https://…/integration-handler),",
    "     POD_CLIENT_KEY, POD_CLIENT_SECRET; then your store's section: podStoreId, and for Shopify",
    "     shop, ACME_SHOPIFY_CLIENT_ID and ACME_SHOPIFY_CLIENT_SECRET (or a woocommerce, etsy or jsonfeed section)",
    "  3. map your store's variants to POD variants in config/mappings/<store key>.csv",
    "     (npx podsync mappings suggest --store <store key> drafts one from the POD catalog)",
    "  4. npx podsync check    validates the configuration, the mappings and the catalog",
    "  5. npx podsync start    runs the daemon; npx podsync status shows what it is doing"
  )
  return lines.join("\n")
}
