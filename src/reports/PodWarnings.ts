/**
 * Drafts made in the period that the POD service warned about when it took
 * them (an at-risk or out-of-stock variant, an address it may not deliver to)
 * or shipped by another method than asked (Economy sent as Standard). They do
 * not stop the order, but a seller wants to know. Pure: read from the story
 * line the draft stage wrote (`draft created; …`).
 */
import type { ReportOrder, ReportPeriod } from "./ReportInput.js"
import type { AttentionItem } from "./ReportOutput.js"

/** What the draft stage adds to "draft created" when the service warned or the shipping method changed. */
const NOTED_DRAFT = /^draft created(?:; | )(.+)$/

export const podWarnings = (orders: ReadonlyArray<ReportOrder>, period: ReportPeriod, asOf: number): ReadonlyArray<AttentionItem> =>
  orders.flatMap((order) => {
    const event = order.events.find((e) =>
      e.to === "drafted" && e.at >= period.from && e.at < period.to && NOTED_DRAFT.test(e.reason ?? "")
    )
    const detail = event === undefined ? undefined : NOTED_DRAFT.exec(event.reason ?? "")?.[1]
    if (event === undefined || detail === undefined) return []
    return [{
      storeKey: order.storeKey,
      referenceId: order.referenceId,
      name: order.order.name,
      state: order.state,
      since: new Date(event.at).toISOString(),
      ageHours: Math.round((asOf - event.at) / 360_000) / 10,
      detail
    }]
  }).sort((a, b) => a.since.localeCompare(b.since) || a.referenceId.localeCompare(b.referenceId))
