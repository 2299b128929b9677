import { gid, parseGid, type StoredFulfillmentOrder, type StoredOrder, type StoredTracking } from "./model.js"
import type { ShopState } from "./store.js"
import { fulfillmentOrderView, fulfillmentView } from "./views.js"

/**
 * The fulfillment mutations with Shopify's rules: only OPEN and IN_PROGRESS fulfillment orders accept a
 * fulfillment, quantities cannot exceed what remains, omitted line items mean "everything remaining",
 * and every refusal is a userError with HTTP 200.
 */

export interface UserError {
  field: string[] | null
  message: string
}

export interface FulfillmentInput {
  lineItemsByFulfillmentOrder: Array<{
    fulfillmentOrderId: string
    fulfillmentOrderLineItems?: Array<{ id: string; quantity: number }> | null
  }>
  notifyCustomer?: boolean | null
  trackingInfo?: TrackingInput | null
}

export interface TrackingInput {
  company?: string | null
  number?: string | null
  numbers?: string[] | null
  url?: string | null
  urls?: string[] | null
}

const carrierUrls: Record<string, (n: string) => string> = {
  "USPS": (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`,
  "UPS": (n) => `https://www.ups.com/WebTracking?loc=en_US&requester=ST&trackNums=${n}`,
  "FedEx": (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`,
  "DHL Express": (n) => `https://www.dhl.com/en/express/tracking.html?AWB=${n}`,
  "DHL eCommerce": (n) => `https://webtrack.dhlecs.com/?trackingnumber=${n}`,
  "Royal Mail": (n) => `https://www.royalmail.com/track-your-item#/tracking-results/${n}`,
  "Canada Post": (n) => `https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=${n}`
}

const fulfillable = (fo: StoredFulfillmentOrder): boolean => fo.status === "OPEN" || fo.status === "IN_PROGRESS"

export const trackingErrors = (t: TrackingInput | null | undefined, field: string[]): UserError[] => {
  if (!t) return []
  const errors: UserError[] = []
  if (t.number != null && t.numbers != null) {
    errors.push({ field, message: "Tracking number and tracking numbers cannot both be provided." })
  }
  if (t.url != null && t.urls != null) errors.push({ field, message: "Tracking url and tracking urls cannot both be provided." })
  if (t.url != null && t.number == null) errors.push({ field, message: "Tracking url requires a tracking number." })
  if (t.urls != null && t.numbers == null) errors.push({ field, message: "Tracking urls require tracking numbers." })
  for (const url of [t.url, ...(t.urls ?? [])]) {
    if (url != null && !/^https?:\/\/\S+$/.test(url)) errors.push({ field, message: "Tracking url is invalid." })
  }
  return errors
}

/** Shopify builds the tracking link itself when the company is a carrier it knows and no url is given. */
export const trackingEntries = (t: TrackingInput | null | undefined): StoredTracking[] => {
  if (!t) return []
  const numbers = t.numbers ?? (t.number != null ? [t.number] : [])
  const urls = t.urls ?? (t.url != null ? [t.url] : [])
  const company = t.company ?? null
  if (numbers.length === 0) return company === null ? [] : [{ company, number: null, url: null }]
  return numbers.map((number, i) => ({
    company,
    number,
    url: urls[i] ?? (company !== null && carrierUrls[company] ? carrierUrls[company](encodeURIComponent(number)) : null)
  }))
}

interface PlannedLine {
  foIndex: number
  fo: StoredFulfillmentOrder
  lineId: number
  lineItemId: number
  quantity: number
}

const plan = (state: ShopState, input: FulfillmentInput): { order: StoredOrder | null; lines: PlannedLine[]; errors: UserError[] } => {
  const errors: UserError[] = []
  const lines: PlannedLine[] = []
  let order: StoredOrder | null = null
  if (input.lineItemsByFulfillmentOrder.length === 0) {
    return {
      order,
      lines,
      errors: [{ field: ["fulfillment", "lineItemsByFulfillmentOrder"], message: "Line items by fulfillment order can't be blank." }]
    }
  }
  input.lineItemsByFulfillmentOrder.forEach((entry, i) => {
    const path = ["fulfillment", "lineItemsByFulfillmentOrder", String(i)]
    const foId = parseGid(entry.fulfillmentOrderId, "FulfillmentOrder")
    const found = foId === null ? undefined : state.findFulfillmentOrder(foId)
    if (!found) return errors.push({ field: [...path, "fulfillmentOrderId"], message: "Fulfillment order does not exist." })
    if (order !== null && order.id !== found.order.id) {
      return errors.push({ field: [...path, "fulfillmentOrderId"], message: "All fulfillment orders must belong to the same order." })
    }
    order = found.order
    const { fo } = found
    if (!fulfillable(fo)) {
      return errors.push({
        field: ["fulfillment"],
        message: `Fulfillment order ${fo.id} has an unfulfillable status= ${fo.status.toLowerCase()}.`
      })
    }
    const requested = entry.fulfillmentOrderLineItems ?? []
    if (requested.length === 0) {
      for (const l of fo.lines.filter((l) => l.remainingQuantity > 0)) {
        lines.push({ foIndex: i, fo, lineId: l.id, lineItemId: l.lineItemId, quantity: l.remainingQuantity })
      }
      return
    }
    requested.forEach((r, j) => {
      const linePath = [...path, "fulfillmentOrderLineItems", String(j)]
      const lineId = parseGid(r.id, "FulfillmentOrderLineItem")
      const foLine = fo.lines.find((l) => l.id === lineId)
      if (!foLine) return errors.push({ field: [...linePath, "id"], message: "Fulfillment order line item does not exist." })
      const already = lines.filter((p) => p.lineId === foLine.id).reduce((sum, p) => sum + p.quantity, 0)
      if (r.quantity <= 0 || already + r.quantity > foLine.remainingQuantity) {
        return errors.push({ field: [...linePath, "quantity"], message: "Invalid fulfillment order line item quantity requested." })
      }
      lines.push({ foIndex: i, fo, lineId: foLine.id, lineItemId: foLine.lineItemId, quantity: r.quantity })
    })
  })
  if (errors.length === 0 && lines.length === 0) {
    errors.push({ field: ["fulfillment"], message: "Fulfillment must contain at least one line item with a remaining quantity." })
  }
  return { order, lines, errors }
}

export const fulfillmentCreate = (state: ShopState, input: FulfillmentInput) => {
  const planned = plan(state, input)
  const errors = [...planned.errors, ...trackingErrors(input.trackingInfo, ["fulfillment", "trackingInfo"])]
  const order = planned.order
  if (errors.length > 0 || order === null) return { fulfillment: null, userErrors: errors }
  const now = state.stampNow()
  const fulfillment = {
    id: state.nextId("Fulfillment"),
    name: `${order.name}.${order.fulfillments.length + 1}`,
    status: "SUCCESS" as const,
    createdAt: now,
    updatedAt: now,
    tracking: trackingEntries(input.trackingInfo),
    lines: planned.lines.map((p) => ({
      id: state.nextId("FulfillmentLineItem"),
      lineItemId: p.lineItemId,
      fulfillmentOrderLineId: p.lineId,
      quantity: p.quantity
    })),
    fulfillmentOrderIds: [...new Set(planned.lines.map((p) => p.fo.id))],
    notifyCustomer: input.notifyCustomer ?? false
  }
  for (const p of planned.lines) {
    const foLine = p.fo.lines.find((l) => l.id === p.lineId)
    if (foLine) foLine.remainingQuantity -= p.quantity
  }
  for (const fo of new Set(planned.lines.map((p) => p.fo))) {
    fo.status = fo.lines.every((l) => l.remainingQuantity === 0) ? "CLOSED" : "IN_PROGRESS"
    fo.updatedAt = now
  }
  order.fulfillments.push(fulfillment)
  const key = String(order.id)
  state.stats.fulfillmentsByOrder[key] = (state.stats.fulfillmentsByOrder[key] ?? 0) + 1
  if (fulfillment.notifyCustomer) state.stats.notificationsByOrder[key] = (state.stats.notificationsByOrder[key] ?? 0) + 1
  state.touch(order)
  return { fulfillment: fulfillmentView(state, order, fulfillment), userErrors: [] }
}

const findFulfillment = (state: ShopState, id: string) => {
  const fulfillmentId = parseGid(id, "Fulfillment")
  for (const order of state.orders.values()) {
    const fulfillment = order.fulfillments.find((f) => f.id === fulfillmentId)
    if (fulfillment) return { order, fulfillment }
  }
  return undefined
}

export const fulfillmentTrackingInfoUpdate = (
  state: ShopState,
  args: { fulfillmentId: string; trackingInfoInput: TrackingInput; notifyCustomer?: boolean | null }
) => {
  const found = findFulfillment(state, args.fulfillmentId)
  if (!found) return { fulfillment: null, userErrors: [{ field: ["fulfillmentId"], message: "Fulfillment does not exist." }] }
  const { order, fulfillment } = found
  if (fulfillment.status !== "SUCCESS") {
    return { fulfillment: null, userErrors: [{ field: ["fulfillmentId"], message: "Cannot update tracking of a cancelled fulfillment." }] }
  }
  const errors = trackingErrors(args.trackingInfoInput, ["trackingInfoInput"])
  if (errors.length > 0) return { fulfillment: null, userErrors: errors }
  fulfillment.tracking = trackingEntries(args.trackingInfoInput)
  fulfillment.updatedAt = state.stampNow()
  if (args.notifyCustomer) {
    state.stats.notificationsByOrder[String(order.id)] = (state.stats.notificationsByOrder[String(order.id)] ?? 0) + 1
  }
  state.touch(order)
  return { fulfillment: fulfillmentView(state, order, fulfillment), userErrors: [] }
}

export const fulfillmentCancel = (state: ShopState, args: { id: string }) => {
  const found = findFulfillment(state, args.id)
  if (!found) return { fulfillment: null, userErrors: [{ field: ["id"], message: "Fulfillment does not exist." }] }
  const { order, fulfillment } = found
  if (fulfillment.status === "CANCELLED") {
    return { fulfillment: null, userErrors: [{ field: ["id"], message: "Fulfillment is already cancelled." }] }
  }
  fulfillment.status = "CANCELLED"
  fulfillment.updatedAt = state.stampNow()
  for (const line of fulfillment.lines) {
    for (const fo of order.fulfillmentOrders) {
      const foLine = fo.lines.find((l) => l.id === line.fulfillmentOrderLineId)
      if (!foLine) continue
      foLine.remainingQuantity = Math.min(foLine.totalQuantity, foLine.remainingQuantity + line.quantity)
      if (fo.status === "CLOSED" && order.cancelledAt === null) fo.status = "OPEN"
      fo.updatedAt = fulfillment.updatedAt
    }
  }
  state.touch(order)
  return { fulfillment: fulfillmentView(state, order, fulfillment), userErrors: [] }
}

export const fulfillmentOrderHold = (
  state: ShopState,
  args: { id: string; fulfillmentHold: { reason: string; reasonNotes?: string | null; handle?: string | null } }
) => {
  const foId = parseGid(args.id, "FulfillmentOrder")
  const found = foId === null ? undefined : state.findFulfillmentOrder(foId)
  const none = { fulfillmentHold: null, fulfillmentOrder: null, remainingFulfillmentOrder: null }
  if (!found) return { ...none, userErrors: [{ field: ["id"], message: "Fulfillment order does not exist." }] }
  const { order, fo } = found
  if (!fulfillable(found.fo) && fo.status !== "ON_HOLD") {
    return {
      ...none,
      userErrors: [{ field: ["id"], message: `The fulfillment order's status is ${fo.status.toLowerCase()} and it cannot be put on hold.` }]
    }
  }
  const hold = state.holdFulfillmentOrder(
    order,
    fo,
    args.fulfillmentHold.reason,
    args.fulfillmentHold.reasonNotes ?? null,
    args.fulfillmentHold.handle ?? null
  )
  return {
    fulfillmentHold: { ...hold, id: gid("FulfillmentHold", hold.id) },
    fulfillmentOrder: fulfillmentOrderView(state, order, fo),
    remainingFulfillmentOrder: null,
    userErrors: []
  }
}

export const fulfillmentOrderReleaseHold = (state: ShopState, args: { id: string; holdIds?: string[] | null }) => {
  const foId = parseGid(args.id, "FulfillmentOrder")
  const found = foId === null ? undefined : state.findFulfillmentOrder(foId)
  if (!found) return { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: "Fulfillment order does not exist." }] }
  if (found.fo.status !== "ON_HOLD") {
    return { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: "The fulfillment order is not on hold." }] }
  }
  const holdIds = args.holdIds == null ? null : args.holdIds.map((h) => parseGid(h, "FulfillmentHold") ?? -1)
  state.releaseHolds(found.order, found.fo, holdIds)
  return { fulfillmentOrder: fulfillmentOrderView(state, found.order, found.fo), userErrors: [] }
}

/** `fulfillmentOrderOpen`: a SCHEDULED fulfillment order opens before its date. */
export const fulfillmentOrderOpen = (state: ShopState, args: { id: string }) => {
  const foId = parseGid(args.id, "FulfillmentOrder")
  const found = foId === null ? undefined : state.findFulfillmentOrder(foId)
  if (!found) return { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: "Fulfillment order does not exist." }] }
  if (found.fo.status !== "SCHEDULED") {
    return { fulfillmentOrder: null, userErrors: [{ field: ["id"], message: "Fulfillment order is not in a scheduled status." }] }
  }
  state.openScheduled(found.order, found.fo)
  return { fulfillmentOrder: fulfillmentOrderView(state, found.order, found.fo), userErrors: [] }
}
