import { expect } from "vitest"
import type { RunningWooCommerceSimulator } from "../../src/simulator/woocommerce/index.js"
import { getJson } from "../support/pipeline.js"
import { wooCommerceSetup } from "../support/storePlatforms.js"
import { E2E_KILLS, E2E_ORDERS, eachOnce, storeEndToEnd } from "../support/stores.js"

interface AdminOrder {
  readonly id: number
  readonly status: string
  readonly shipment_trackings: ReadonlyArray<{ readonly tracking_number: string }>
  readonly emails: ReadonlyArray<{ readonly type: string; readonly trackingNumbers: ReadonlyArray<string> }>
  readonly notes: ReadonlyArray<{ readonly note: string; readonly customer_note: boolean }>
}

storeEndToEnd<RunningWooCommerceSimulator, AdminOrder>({
  describe: "WooCommerce end to end: orders → drafts → shipped → tracking in the store",
  title: `completes ${E2E_ORDERS} orders exactly once, with the POD tracking, through ${E2E_KILLS} kill -9s and dropped tracking pushes`,
  store: { key: "acme-woo", platform: "woocommerce" },
  ...wooCommerceSetup,
  // Both writes of a push commit and then lose their answer now and then: the tracking item and the
  // PUT that completes the order (and emails the buyer). The retry must read them back, not repeat them.
  storeFaults: [
    { operation: "trackings.create", kind: "commitThenDrop", probability: 0.3 },
    { operation: "orders.update", kind: "commitThenDrop", probability: 0.3 }
  ],
  orders: async (woo) => new Map(((await getJson(`${woo.url}/__sim/orders`)).orders as Array<AdminOrder>).map((o) => [String(o.id), o])),
  // Each order: completed, one Shipment Tracking item with the POD's number, one Completed email listing it.
  orderShows: (order, tracking, id) => {
    expect(order.status, `order ${id}`).toBe("completed")
    expect(order.shipment_trackings.map((t) => t.tracking_number), `order ${id}`).toEqual(tracking)
    const completed = order.emails.filter((e) => e.type === "customer_completed_order")
    expect(completed, `order ${id}`).toHaveLength(1)
    expect(completed[0]!.trackingNumbers, `order ${id}`).toEqual(tracking)
    // podsync's own notes (the draft it created) are private; the tracking went to the extension, not a note.
    expect(order.notes.filter((n) => n.customer_note || n.note.startsWith("Shipped by podsync")), `order ${id}`).toEqual([])
  },
  statsShow: (stats, ids) => {
    expect(stats.trackingsByOrder).toEqual(eachOnce(ids))
    expect(stats.completedEmailsByOrder).toEqual(eachOnce(ids))
    // The only other email is the Processing one WooCommerce sent when the buyer paid.
    expect(stats.buyerEmailsByOrder).toEqual(eachOnce(ids, 2))
  }
})
