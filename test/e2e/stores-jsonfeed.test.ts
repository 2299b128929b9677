import { expect } from "vitest"
import type { RunningJsonFeedSimulator } from "../../src/simulator/jsonfeed/index.js"
import { getJson } from "../support/pipeline.js"
import { jsonFeedSetup } from "../support/storePlatforms.js"
import { E2E_KILLS, E2E_ORDERS, eachOnce, storeEndToEnd } from "../support/stores.js"

interface AdminOrder {
  readonly id: string
  readonly fulfillments: ReadonlyArray<{ readonly tracking: { readonly number: string }; readonly notify_customer: boolean }>
}

storeEndToEnd<RunningJsonFeedSimulator, AdminOrder>({
  describe: "JSON feed end to end: orders → drafts → shipped → tracking in the storefront",
  title: `fulfils ${E2E_ORDERS} orders exactly once, with the POD tracking, through ${E2E_KILLS} kill -9s and dropped fulfilment calls`,
  store: { key: "acme-feed", platform: "jsonfeed" },
  ...jsonFeedSetup,
  // The fulfilment is stored (and the buyer emailed) but the answer is lost: the retry must come back
  // with the same Idempotency-Key or find the fulfilment by reading the order's fulfilments.
  storeFaults: [{ operation: "createFulfillment", kind: "commitThenDrop", probability: 0.3 }],
  orders: async (feed) => new Map(((await getJson(`${feed.url}/__sim/orders`)).orders as Array<AdminOrder>).map((o) => [o.id, o])),
  // Each order: one fulfilment carrying the POD's tracking number, sent with the buyer notified.
  orderShows: ({ fulfillments }, tracking, id) => {
    expect(fulfillments.map((f) => f.tracking.number), `order ${id}`).toEqual(tracking)
    expect(fulfillments[0]!.notify_customer, `order ${id}`).toBe(true)
  },
  statsShow: (stats, ids) => {
    expect(stats.fulfillmentsByOrder).toEqual(eachOnce(ids))
    expect(stats.buyerEmailsByOrder).toEqual(eachOnce(ids))
  }
})
