/**
 * What podsync tells a person, pure: the kinds of alert, how a rule names them, and the words a
 * kind and reason read as ("2 unmatched SKUs, 1 cancelled after draft"). The outbox holds one
 * alert per (order, state, reason) and one per raise or resolution of a condition.
 */
import type { OrderState } from "./OrderState.js"

/** An order entered a state that needs a person (OrderState.NEEDS_A_PERSON): the kind is `order.<state>`. */
export const ORDER_ALERT_KINDS = [
  "order.held",
  "order.failed",
  "order.cancel_pending",
  "order.pod_on_hold",
  /** A draft not checked out (paid) at the POD service after reports.notCheckedOutAfterHours: nothing ships until it is. */
  "order.not_checked_out"
] as const

/** Conditions of the daemon: raised once, resolved once (a "resolved" follow-up), wherever they are seen. */
export const CONDITION_ALERT_KINDS = [
  /** The POD service or a store refused a credential (401/403): nothing moves until a person fixes it. */
  "credentials.refused",
  /** The POD service answered 429: every caller of the credential pauses. */
  "pod.rate_limited",
  /** The POD service or a store has not answered for longer than the threshold. */
  "dependency.unreachable",
  /** Orders wait in a stage and none has moved for longer than the threshold. */
  "pipeline.stalled",
  /** The database keeps failing (sent straight from the replica that sees it: the outbox lives there). */
  "database.failing"
] as const

/** What a day's report (written by the cron job, or its catch-up at start) has to say: one alert per period at most. */
export const REPORT_ALERT_KINDS = [
  /** The day's report found drift: podsync and the APIs disagree about orders (README "Reports"). */
  "report.drift",
  /** The day in a few lines, with the report's link (alerts.dailySummary: true). */
  "report.summary"
] as const

export const ALERT_KINDS = [...ORDER_ALERT_KINDS, ...CONDITION_ALERT_KINDS, ...REPORT_ALERT_KINDS, "test"] as const
export type AlertKind = (typeof ALERT_KINDS)[number]

export const isAlertKind = (value: string): value is AlertKind => (ALERT_KINDS as ReadonlyArray<string>).includes(value)

export const orderAlertKind = (state: OrderState): string => `order.${state}`

/**
 * A rule's event pattern: `*`, a kind (`order.held`), a kind with a reason (`order.held:unmatched`),
 * or a prefix ending in `*` (`order.*`). Answers what is wrong with it, or undefined.
 */
export const eventPatternProblem = (pattern: string): string | undefined => {
  if (pattern === "*") return undefined
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1)
    return ALERT_KINDS.some((k) => k.startsWith(prefix)) ? undefined : `no alert kind starts with "${prefix}"`
  }
  const [kind = ""] = pattern.split(":")
  return isAlertKind(kind) ? undefined : `unknown alert kind "${kind}"; expected one of ${ALERT_KINDS.join(", ")} (or "*", "order.*")`
}

/** Whether an alert of `kind` (with `reason`) matches a rule's pattern. */
export const matchesEvent = (pattern: string, kind: string, reason: string | null): boolean => {
  if (pattern === "*") return true
  if (pattern.endsWith("*")) return kind.startsWith(pattern.slice(0, -1))
  const at = pattern.indexOf(":")
  return at === -1 ? pattern === kind : pattern.slice(0, at) === kind && pattern.slice(at + 1) === (reason ?? "")
}

/** Held reasons in a seller's words (the codes are DraftPlan's HoldCode), singular and plural. */
const HELD_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  unmatched: ["unmatched SKU", "unmatched SKUs"],
  unknown_variant: ["mapping to an unknown POD variant", "mappings to an unknown POD variant"],
  discontinued: ["discontinued variant", "discontinued variants"],
  out_of_stock: ["out-of-stock variant", "out-of-stock variants"],
  missing_design: ["missing design", "missing designs"],
  address: ["address to fix", "addresses to fix"],
  unpaid: ["unpaid order", "unpaid orders"],
  rejected_by_pod: ["order refused by the POD service", "orders refused by the POD service"],
  economy_unavailable: ["Economy shipping unavailable", "Economy shipping unavailable"],
  economy_uncovered: ["ZIP outside Economy", "ZIPs outside Economy"],
  reference_too_long: ["reference id too long", "reference ids too long"],
  withheld_by_store: ["order whose data the store withholds", "orders whose data the store withholds"],
  held_by_person: ["order held by hand", "orders held by hand"],
  released_by_person: ["order released by hand", "orders released by hand"]
}

const POD_HOLD_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  address_unverified: ["address the POD service cannot verify", "addresses the POD service cannot verify"],
  variant_out_of_stock: ["POD variant out of stock", "POD variants out of stock"]
}

const KIND_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  "order.held": ["held order", "held orders"],
  "order.failed": ["failed order", "failed orders"],
  "order.cancel_pending": ["cancelled after draft", "cancelled after draft"],
  "order.pod_on_hold": ["on hold at the POD service", "on hold at the POD service"],
  "order.not_checked_out": ["draft not checked out", "drafts not checked out"],
  "credentials.refused": ["credential refused", "credentials refused"],
  "pod.rate_limited": ["POD rate-limit pause", "POD rate-limit pauses"],
  "dependency.unreachable": ["service unreachable", "services unreachable"],
  "pipeline.stalled": ["stage making no progress", "stages making no progress"],
  "database.failing": ["database failing", "database failing"],
  "report.drift": ["report with drift findings", "reports with drift findings"],
  "report.summary": ["daily summary", "daily summaries"],
  test: ["test message", "test messages"]
}

/** What `count` alerts of this kind and reason are, in words: "2 unmatched SKUs", "1 cancelled after draft". */
export const topicWords = (kind: string, reason: string | null, count: number): string => {
  const words = (kind === "order.held" && reason !== null ? HELD_WORDS[reason] : undefined) ??
    (kind === "order.pod_on_hold" && reason !== null ? POD_HOLD_WORDS[reason] : undefined) ??
    KIND_WORDS[kind] ?? [kind, kind]
  return `${count} ${count === 1 ? words[0] : words[1]}`
}

/** The topic of an alert, for grouping a count of them: kind and (for held orders and podsync's POD holds) reason. */
export const topicOf = (kind: string, reason: string | null): string =>
  (kind === "order.held" || kind === "order.pod_on_hold") && reason !== null ? `${kind}:${reason}` : kind

/**
 * "3 alerts sent: 2 unmatched SKUs, 1 cancelled after draft", from counts by topic (`topicOf`),
 * largest first.
 */
export const sentSummary = (counts: ReadonlyArray<{ readonly kind: string; readonly reason: string | null; readonly count: number }>) => {
  const byTopic = new Map<string, { kind: string; reason: string | null; count: number }>()
  for (const c of counts) {
    const topic = topicOf(c.kind, c.reason)
    const known = byTopic.get(topic)
    if (known === undefined) byTopic.set(topic, { kind: c.kind, reason: c.reason, count: c.count })
    else known.count += c.count
  }
  const total = [...byTopic.values()].reduce((n, t) => n + t.count, 0)
  const parts = [...byTopic.values()].sort((a, b) =>
    b.count - a.count || topicOf(a.kind, a.reason).localeCompare(topicOf(b.kind, b.reason))
  )
    .map((t) => topicWords(t.kind, t.reason, t.count))
  return `${total} alert${total === 1 ? "" : "s"} sent${parts.length > 0 ? `: ${parts.join(", ")}` : ""}`
}
