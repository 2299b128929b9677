/**
 * What an alert says, pure: a title a person reads in a notification, the detail in the words the
 * report uses, what to do (the same advice as `podsync status`), and the link to the order's
 * story. A digest is one message of several alerts; within it a condition that came and went is
 * said once, as it stands at the end, with how often it changed.
 */
import { sentSummary, topicWords } from "../domain/Alert.js"
import { actionFor } from "../observability/StatusReport.js"
import type { OutboxAlert } from "../repos/AlertsRepo.js"

/** One alert as a channel carries it (the generic webhook's JSON is an array of these). */
export interface AlertView {
  readonly id: number
  readonly kind: string
  readonly resolved: boolean
  readonly at: string
  readonly title: string
  readonly detail: string | null
  readonly action: string | null
  readonly storeKey: string | null
  readonly referenceId: string | null
  readonly reason: string | null
  readonly link: string | null
  /** How often the condition was raised or resolved within this message (1 for an order). */
  readonly changes: number
}

export interface AlertMessage {
  readonly subject: string
  readonly text: string
  readonly alerts: ReadonlyArray<AlertView>
}

/** How many alerts a message lists one by one; the rest are counted. */
const LISTED = 50

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)

/** A path of the daemon's (`/console/…`) under the address a person opens podsync at. */
const under = (linkBase: string, path: string): string => `${linkBase.replace(/\/+$/, "")}${path}`

/** Where a person reads an order's story: its page in the console (what `podsync explain` says). */
export const storyLink = (linkBase: string, referenceId: string): string =>
  under(linkBase, `/console/order?ref=${encodeURIComponent(referenceId)}`)

/** An alert's link: an order's story, or the path its data names (a day's report). */
const linkOf = (alert: OutboxAlert, linkBase: string): string | null => {
  if (alert.kind.startsWith("order.")) return alert.referenceId === null ? null : storyLink(linkBase, alert.referenceId)
  const path = text(alert.data.link)
  return path !== null && path.startsWith("/") ? under(linkBase, path) : null
}

const orderTitle = (alert: OutboxAlert): string => {
  const name = text(alert.data.name)
  const order = `${alert.referenceId ?? "an order"}${name === null ? "" : ` (${name})`}`
  switch (alert.kind) {
    case "order.held":
      return `${order} held: ${topicWords(alert.kind, alert.reason, 1).replace(/^1 /, "")}`
    case "order.failed":
      return `${order} failed and needs a person`
    case "order.cancel_pending":
      return `${order} cancelled in the store after its POD draft was made`
    case "order.pod_on_hold":
      return `${order} on hold at the POD service`
    case "order.not_checked_out":
      return `${order}: its POD draft is not checked out`
    default:
      return `${order}: ${alert.kind}`
  }
}

export const viewOf = (alert: OutboxAlert, linkBase: string, changes = 1): AlertView => {
  const isOrder = alert.kind.startsWith("order.")
  const state = alert.kind.slice("order.".length)
  const title = isOrder
    ? orderTitle(alert)
    : alert.resolved
    ? `Resolved: ${text(alert.data.title) ?? alert.kind}`
    : text(alert.data.title) ?? alert.kind
  return {
    id: alert.id,
    kind: alert.kind,
    resolved: alert.resolved,
    at: alert.createdAt.toISOString(),
    title,
    detail: alert.resolved
      ? text(alert.data.resolvedDetail) ?? text(alert.data.detail)
      : text(alert.data.message) ?? text(alert.data.detail),
    action: isOrder ? actionFor(state, alert.reason) : alert.resolved ? null : text(alert.data.action),
    storeKey: alert.storeKey,
    referenceId: alert.referenceId,
    reason: alert.reason,
    link: linkOf(alert, linkBase),
    changes
  }
}

/** A condition raised and resolved within one digest is one line, as it stands last. */
const collapseConditions = (alerts: ReadonlyArray<OutboxAlert>, linkBase: string): ReadonlyArray<AlertView> => {
  const last = new Map<string, { alert: OutboxAlert; changes: number }>()
  const out: Array<{ readonly order: number; readonly key: string | null; readonly alert: OutboxAlert }> = []
  for (const [order, alert] of [...alerts].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id).entries()) {
    const key = alert.kind.startsWith("order.") || alert.reason === null ? null : `${alert.kind}\u0000${alert.reason}`
    if (key === null) {
      out.push({ order, key, alert })
      continue
    }
    const seen = last.get(key)
    if (seen === undefined) out.push({ order, key, alert })
    last.set(key, { alert, changes: (seen?.changes ?? 0) + 1 })
  }
  return out.map(({ key, alert }) => {
    const latest = key === null ? undefined : last.get(key)
    return latest === undefined ? viewOf(alert, linkBase) : viewOf(latest.alert, linkBase, latest.changes)
  })
}

const line = (view: AlertView): string => {
  const parts = [
    `• ${view.title}${view.changes > 1 ? ` (changed ${view.changes} times meanwhile)` : ""}`,
    view.detail === null || view.detail === view.title ? null : `  ${view.detail.replaceAll("\n", "\n  ")}`,
    view.action === null ? null : `  What to do: ${view.action}`,
    view.link === null ? null : `  ${view.kind.startsWith("report.") ? "Report" : "Story"}: ${view.link}`
  ]
  return parts.filter((p) => p !== null).join("\n")
}

/** The message of one or several alerts (a digest). */
export const messageOf = (alerts: ReadonlyArray<OutboxAlert>, linkBase: string): AlertMessage => {
  const views = collapseConditions(alerts, linkBase)
  const [first] = views
  if (views.length === 1 && first !== undefined) {
    return { subject: `podsync: ${first.title}`, text: line(first), alerts: views }
  }
  const summary = sentSummary(views.map((v) => ({ kind: v.kind, reason: v.reason, count: 1 })))
    .replace(" sent", "")
  const listed = views.slice(0, LISTED).map(line)
  const more = views.length > LISTED ? [`… and ${views.length - LISTED} more (podsync status lists every order that needs a person)`] : []
  return { subject: `podsync: ${summary}`, text: [`${summary}`, "", ...listed, ...more].join("\n"), alerts: views }
}
