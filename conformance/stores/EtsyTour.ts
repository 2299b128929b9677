/**
 * The Etsy connector's operations against the Etsy simulator (refresh tokens
 * rotating), through the recording proxy: a pull of more receipts than a page,
 * receipt reads (one Etsy does not have), a shipment push and the same one
 * again, a read after the access token expired (Etsy's 401, then a refresh),
 * and the operations that send nothing (annotations, webhook checks).
 */
import { Chunk, Effect, Stream } from "effect"
import type { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import type { FulfillmentPush } from "../../src/domain/StoreTypes.js"
import type { RunningEtsySimulator } from "../../src/simulator/etsy/index.js"
import { ABSENT_ORDER_ID } from "../../src/stores/StoreConnector.js"
import type { StoreStep } from "./StoreTour.js"
import { webhookSteps } from "./WebhookSteps.js"

export const ETSY_STORE = "conformance-etsy"
/** More receipts than a page of getShopReceipts (100). */
const BULK_RECEIPTS = 120

export interface EtsyTourState {
  receiptId: string
  withheldId: string
  readonly simUrl: string
  readonly orders: Map<string, NormalizedOrder>
}

const admin = async (simUrl: string, path: string, body: unknown = {}) => {
  const response = await fetch(`${simUrl}/__sim/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000)
  })
  if (!response.ok) throw new Error(`Etsy simulator admin ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { readonly receipt_id?: number }
}

/** A paid receipt of two personalised lines, one whose address Etsy withholds, and a bulk of plain ones. */
export const seedEtsy = async (sim: RunningEtsySimulator): Promise<EtsyTourState> => {
  const receipt = await admin(sim.url, "receipts", {
    status: "paid",
    currency: "GBP",
    message_from_buyer: "Please wrap it — it's a gift for Siân",
    transactions: [
      {
        title: "Personalised Embroidered Hoodie, Heavyweight Cotton, Many Colours",
        sku: "UTS01-FOREST-S",
        quantity: 2,
        price_cents: 4250,
        variations: [{ formatted_name: "Size", formatted_value: "S", property_id: 100 }],
        personalization: "https://designs.example.com/sian/front.png"
      },
      { title: "Enamel Mug", sku: "MUG-WHT-11OZ", quantity: 1, price_cents: 1600, personalization: "Siân" }
    ]
  })
  const withheld = await admin(sim.url, "receipts", {
    status: "paid",
    address_withheld: true,
    transactions: [{ title: "Canvas Tote", sku: "TOTE-NAT-OS", quantity: 1, price_cents: 2200 }]
  })
  await admin(sim.url, "receipts/bulk", { count: BULK_RECEIPTS })
  return { receiptId: String(receipt.receipt_id), withheldId: String(withheld.receipt_id), simUrl: sim.url, orders: new Map() }
}

const push = (state: EtsyTourState, id: string, number: string): FulfillmentPush => {
  const order = state.orders.get(id)
  if (order === undefined) throw new Error(`receipt ${id} was not pulled`)
  const [first, ...rest] = order.lines.map((l) => ({ lineId: l.lineId, quantity: l.fulfillableQuantity }))
  if (first === undefined) throw new Error(`receipt ${id} has no lines`)
  return { storeOrderId: id, lines: [first, ...rest], tracking: { company: "Royal Mail", number } }
}

export const etsySteps: ReadonlyArray<StoreStep<EtsyTourState>> = [
  {
    method: "pull",
    note: "the whole shop, page by page",
    run: (c, s) =>
      Stream.runCollect(c.pull(null)).pipe(Effect.tap((pages) => {
        for (const page of Chunk.toReadonlyArray(pages)) for (const order of page.orders) s.orders.set(order.storeOrderId, order)
      }))
  },
  { method: "getOrder", note: "a receipt", run: (c, s) => c.getOrder(s.receiptId) },
  { method: "getOrder", note: "an address Etsy withholds", run: (c, s) => c.getOrder(s.withheldId) },
  { method: "getOrder", note: "a receipt Etsy does not have, as check reads it", run: (c) => c.getOrder(ABSENT_ORDER_ID) },
  { method: "pushFulfillment", note: "a shipment", run: (c, s) => c.pushFulfillment(push(s, s.receiptId, "RM123456785GB")) },
  {
    method: "pushFulfillment",
    note: "the same shipment again",
    expect: "AlreadyPushed",
    run: (c, s) => c.pushFulfillment(push(s, s.receiptId, "RM123456785GB"))
  },
  {
    method: "getOrder",
    note: "after the access token expired: Etsy's 401, a refresh, the read again",
    run: (c, s) => Effect.flatMap(Effect.promise(() => admin(s.simUrl, "tokens/expire")), () => c.getOrder(s.receiptId))
  },
  {
    method: "annotate",
    note: "Etsy receipts keep no annotations",
    sends: false,
    run: (c, s) => c.annotate(s.receiptId, { tag: "podsync:drafted" })
  },
  ...webhookSteps<EtsyTourState>()
]
