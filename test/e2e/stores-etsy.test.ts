import { expect } from "vitest"
import type { RunningEtsySimulator } from "../../src/simulator/etsy/index.js"
import { getJson } from "../support/pipeline.js"
import { etsyMapping, etsySetup } from "../support/storePlatforms.js"
import { E2E_KILLS, E2E_ORDERS, eachOnce, storeEndToEnd } from "../support/stores.js"

interface AdminReceipt {
  readonly receipt_id: number
  readonly status: string
  readonly is_shipped: boolean
  readonly shipments: ReadonlyArray<{ readonly tracking_code: string }>
}

storeEndToEnd<RunningEtsySimulator, AdminReceipt>({
  describe: "Etsy end to end: receipts → drafts → shipped → tracking in the shop",
  title: `ships ${E2E_ORDERS} receipts exactly once, with the POD tracking, through ${E2E_KILLS} kill -9s and dropped shipment calls`,
  store: { key: "acme-etsy", platform: "etsy" },
  rewriteMapping: etsyMapping,
  ...etsySetup,
  // createReceiptShipment emails the buyer on every call: now and then it commits and loses its answer,
  // and the retry must find the shipment on the receipt instead of creating (and emailing) a second one.
  storeFaults: [{ operation: "createReceiptShipment", kind: "commitThenDrop", probability: 0.3 }],
  orders: async (etsy) =>
    new Map(((await getJson(`${etsy.url}/__sim/receipts`)).receipts as Array<AdminReceipt>).map((r) => [String(r.receipt_id), r])),
  // Each receipt: shipped, with one shipment carrying the POD's tracking number.
  orderShows: (receipt, tracking, id) => {
    expect({ status: receipt.status, shipped: receipt.is_shipped }, `receipt ${id}`).toEqual({ status: "completed", shipped: true })
    expect(receipt.shipments.map((s) => s.tracking_code), `receipt ${id}`).toEqual(tracking)
  },
  statsShow: (stats, ids) => {
    expect(stats.shipmentsByReceipt).toEqual(eachOnce(ids))
    // Etsy emails the buyer with every shipment: once per receipt means no shipment was repeated.
    expect(stats.buyerEmailsByReceipt).toEqual(eachOnce(ids))
    // The connector paced itself inside Etsy's per-second quota, restarts included.
    expect(stats.throttled).toBe(0)
  }
})
