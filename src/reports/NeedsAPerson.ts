/**
 * Orders that need a person, as they stand when the report is made (not only
 * those of the period: an order stuck for a week is listed every morning
 * until someone acts). Pure.
 */
import type { ReportOrder, ReportSettings } from "./ReportInput.js"
import type { AttentionItem, HeldGroup, NeedsAPerson } from "./ReportOutput.js"

const HOUR = 3_600_000

const iso = (ms: number) => new Date(ms).toISOString()

/** Hours with one decimal. */
export const hoursBetween = (from: number, to: number): number => Math.round((to - from) / (HOUR / 10)) / 10

/** When the order entered the state it is in: the start of its current stay there. */
export const enteredCurrentState = (order: ReportOrder): number => {
  let since: number | undefined
  for (const event of [...order.events].reverse()) {
    if (event.to !== order.state) break
    since = event.at
    if (event.from !== order.state) break
  }
  return since ?? order.events[order.events.length - 1]?.at ?? 0
}

const field = (value: unknown, name: string): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const found = (value as Record<string, unknown>)[name]
  return typeof found === "string" && found !== "" ? found : undefined
}

/** The reason the last move into the current state gave. */
const lastReason = (order: ReportOrder): string | undefined =>
  [...order.events].reverse().find((e) => e.to === order.state && e.reason !== null)?.reason ?? undefined

const item = (order: ReportOrder, asOf: number, detail: string): AttentionItem => {
  const since = enteredCurrentState(order)
  return {
    storeKey: order.storeKey,
    referenceId: order.referenceId,
    name: order.order.name,
    state: order.state,
    since: iso(since),
    ageHours: hoursBetween(since, asOf),
    detail
  }
}

const byAgeThenReference = (a: AttentionItem, b: AttentionItem) => b.ageHours - a.ageHours || a.referenceId.localeCompare(b.referenceId)

const podIds = (order: ReportOrder) =>
  [order.podDraftId && `draft ${order.podDraftId}`, order.podOrderId && `order ${order.podOrderId}`].filter(Boolean).join(", ")

export const needsAPerson = (orders: ReadonlyArray<ReportOrder>, settings: ReportSettings, asOf: number): NeedsAPerson => {
  const groups = new Map<string, { readonly storeKey: string; readonly reason: string; readonly items: Array<AttentionItem> }>()
  const failed: Array<AttentionItem> = []
  const cancelPending: Array<AttentionItem> = []
  const podOnHold: Array<AttentionItem> = []
  const notCheckedOut: Array<AttentionItem> = []

  for (const order of orders) {
    switch (order.state) {
      case "held": {
        const reason = order.heldReason ?? "unknown"
        const key = `${order.storeKey}\u0000${reason}`
        const group = groups.get(key) ?? { storeKey: order.storeKey, reason, items: [] }
        group.items.push(item(order, asOf, field(order.heldDetails, "message") ?? lastReason(order) ?? "held"))
        groups.set(key, group)
        break
      }
      case "failed":
        failed.push(item(order, asOf, field(order.lastError, "message") ?? lastReason(order) ?? "failed without a recorded error"))
        break
      case "cancel_pending":
        cancelPending.push(
          item(
            order,
            asOf,
            `cancelled in the store after the POD draft was made (${
              podIds(order) || "no POD id recorded"
            }): cancel it at the POD service, whose API has no cancel call`
          )
        )
        break
      case "pod_on_hold": {
        // Held by podsync for a condition the service confirmed (an unverified address, a variant out of stock): its message says what to do.
        const message = field(order.heldDetails, "message")
        podOnHold.push(
          order.heldReason === null || message === undefined
            ? item(
              order,
              asOf,
              `on hold at the POD service (${podIds(order) || "no POD id recorded"}): see why there and release or cancel it`
            )
            : { ...item(order, asOf, message), reason: order.heldReason }
        )
        break
      }
      case "drafted": {
        const entry = item(
          order,
          asOf,
          `draft ${order.podDraftId ?? "(id not recorded)"} is not checked out: check it out (pay for it) at the POD service, or delete it`
        )
        if (asOf - enteredCurrentState(order) >= settings.notCheckedOutAfterHours * HOUR) notCheckedOut.push(entry)
        break
      }
      default:
        break
    }
  }

  const held: Array<HeldGroup> = [...groups.values()].map((group) => {
    const sorted = [...group.items].sort(byAgeThenReference)
    const [oldest] = sorted
    if (oldest === undefined) throw new Error("needsAPerson: a held group is made for an order, so it has one")
    return {
      storeKey: group.storeKey,
      reason: group.reason,
      count: sorted.length,
      oldestAgeHours: oldest.ageHours,
      referenceIds: sorted.map((i) => i.referenceId),
      orders: sorted
    }
  }).sort((a, b) => a.storeKey.localeCompare(b.storeKey) || b.count - a.count || a.reason.localeCompare(b.reason))

  return {
    held,
    failed: failed.sort(byAgeThenReference),
    cancelPending: cancelPending.sort(byAgeThenReference),
    podOnHold: podOnHold.sort(byAgeThenReference),
    notCheckedOut: notCheckedOut.sort(byAgeThenReference)
  }
}

/** How many orders the section lists. */
export const attentionCount = (section: NeedsAPerson): number =>
  section.held.reduce((n, g) => n + g.count, 0) + section.failed.length + section.cancelPending.length +
  section.podOnHold.length + section.notCheckedOut.length
