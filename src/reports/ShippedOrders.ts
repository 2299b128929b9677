/**
 * What shipped in the period, pure: one row per package of every order that
 * passed the shipped step in the period (see FlowFigures), with the store's
 * order name, the POD order, the carrier and the tracking page. podsync's
 * stored shipments come first; an order shipped before podsync stored its
 * tracking gets what the POD service's order says.
 */
import { primaryTrackingNumber } from "../pod/schemas/Orders.js"
import { firstPassed } from "./FlowFigures.js"
import { followedOrder, type PodRecords } from "./PodRecords.js"
import type { ReportOrder, ReportPeriod } from "./ReportInput.js"
import type { ShippedItem } from "./ReportOutput.js"

/** A tracking page a reader can open: http(s) only, so a stored `javascript:` never becomes a link. */
export const safeTrackingUrl = (text: string | null | undefined): string | null => {
  if (text === null || text === undefined || !URL.canParse(text.trim())) return null
  const url = new URL(text.trim())
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : null
}

const nonEmpty = (
  text: string | null | undefined
): string | null => (text === null || text === undefined || text.trim() === "" ? null : text)

export const shippedOrders = (period: ReportPeriod, orders: ReadonlyArray<ReportOrder>, pod: PodRecords): ReadonlyArray<ShippedItem> =>
  orders.flatMap((order) => {
    const at = firstPassed(order, "shipped")
    if (at === undefined || at < period.from || at >= period.to) return []
    const podOrder = followedOrder(pod.ordersOf(order.referenceId), order.podOrderId)
    const podTracking = primaryTrackingNumber(podOrder ?? {})
    const base = {
      storeKey: order.storeKey,
      referenceId: order.referenceId,
      name: order.order.name,
      shippedAt: new Date(at).toISOString()
    }
    if (order.shipments.length === 0) {
      return [{
        ...base,
        podOrderId: order.podOrderId ?? podOrder?.order_id ?? null,
        carrier: nonEmpty(podOrder?.tracking_company),
        trackingNo: podTracking ?? null,
        trackingUrl: safeTrackingUrl(podOrder?.tracking_link)
      }]
    }
    return order.shipments.map((shipment) => ({
      ...base,
      podOrderId: shipment.podOrderId ?? order.podOrderId ?? podOrder?.order_id ?? null,
      carrier: nonEmpty(shipment.carrier) ?? (shipment.trackingNo === podTracking ? nonEmpty(podOrder?.tracking_company) : null),
      trackingNo: shipment.trackingNo,
      trackingUrl: safeTrackingUrl(shipment.trackingUrl) ??
        (shipment.trackingNo === podTracking ? safeTrackingUrl(podOrder?.tracking_link) : null)
    }))
  }).sort((a, b) => a.shippedAt.localeCompare(b.shippedAt) || a.referenceId.localeCompare(b.referenceId))
