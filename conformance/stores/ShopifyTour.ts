/**
 * The Shopify connector's operations against the Shopify simulator, through
 * the recording proxy, at the smallest and the largest batch each makes: a
 * pull of the whole store, order reads (one with more line items than a page,
 * the absent order `check` reads, wrong credentials), single pushes (more
 * fulfilment order lines than a page, the same tracking again, a later
 * package), batched pushes and annotations of one order and of more orders
 * than any batch holds, and the webhook checks (which send nothing).
 */
import { Chunk, Effect, Stream } from "effect"
import type { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import type { FulfillmentPush } from "../../src/domain/StoreTypes.js"
import type { RunningShopifySimulator } from "../../src/simulator/shopify/index.js"
import { ABSENT_ORDER_ID } from "../../src/stores/StoreConnector.js"
import { everyOneRight, webhookSteps } from "./WebhookSteps.js"
import type { StoreStep } from "./StoreTour.js"

/** More orders than any batch of the connector holds today (25 reads, 50 creates, 25 annotations), so the largest batch is sent. */
export const BATCH_ORDERS = 120
/** Line items of the long order: more than a pull's page of line items (10) and a push's page of fulfilment order lines (25). */
const LONG_ORDER_LINES = 30

export const SHOPIFY_STORE = "conformance-shopify"
export const SHOPIFY_WRONG_TOKEN_STORE = "conformance-shopify-wrong-token"

export interface ShopifyTourState {
  longOrderId: string
  splitOrderId: string
  batchOrderIds: Array<string>
  readonly orders: Map<string, NormalizedOrder>
}

const admin = async (sim: RunningShopifySimulator, path: string, body: unknown) => {
  const response = await fetch(`${sim.url}/__sim/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000)
  })
  if (!response.ok) throw new Error(`Shopify simulator admin ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { readonly legacyResourceId: string | number }
}

const tee = (i: number) => ({
  sku: `UTS01-${["FOREST", "DARKHE", "MILITA", "SPORTG"][i % 4]}-${["S", "M", "L", "XL"][i % 4]}`,
  title: "Unisex Heavyweight Tee with a Rather Long Product Name for Testing",
  variantTitle: `${["Forest", "Dark Heather", "Military Green", "Sport Grey"][i % 4]} / ${["S", "M", "L", "XL"][i % 4]}`,
  quantity: 1 + (i % 3),
  price: "24.50",
  customAttributes: [{ key: "design_front", value: `https://designs.example.com/${i}/front.png` }]
})

/** The store's orders: a long one, one split across three locations, and the batch. */
export const seedShopify = async (sim: RunningShopifySimulator): Promise<ShopifyTourState> => {
  const long = await admin(sim, "orders", {
    financialStatus: "PAID",
    currencyCode: "EUR",
    shippingAddress: { firstName: "Zoë", lastName: "Øster-Łukasiewicz", city: "Kraków", countryCodeV2: "PL", zip: "30-001" },
    lineItems: Array.from({ length: LONG_ORDER_LINES }, (_, i) => tee(i))
  })
  const split = await admin(sim, "orders", {
    financialStatus: "PAID",
    lineItems: ["Los Angeles", "Memphis", "Reno"].map((location, i) => ({ ...tee(i), location }))
  })
  const batchOrderIds: Array<string> = []
  for (let i = 0; i < BATCH_ORDERS; i++) {
    const order = await admin(sim, "orders", { financialStatus: "PAID", currencyCode: i % 2 === 0 ? "USD" : "CAD", lineItems: [tee(i)] })
    batchOrderIds.push(String(order.legacyResourceId))
  }
  return { longOrderId: String(long.legacyResourceId), splitOrderId: String(split.legacyResourceId), batchOrderIds, orders: new Map() }
}

const orderOf = (state: ShopifyTourState, id: string): NormalizedOrder => {
  const order = state.orders.get(id)
  if (order === undefined) throw new Error(`order ${id} was not pulled`)
  return order
}

const push = (order: NormalizedOrder, number: string, extra: Partial<FulfillmentPush> = {}): FulfillmentPush => {
  const [first, ...rest] = order.lines.filter((l) => l.fulfillableQuantity > 0).map((l) => ({
    lineId: l.lineId,
    quantity: l.fulfillableQuantity
  }))
  if (first === undefined) throw new Error(`order ${order.storeOrderId} has nothing to fulfil`)
  return {
    storeOrderId: order.storeOrderId,
    lines: [first, ...rest],
    tracking: { company: "UPS", number, url: `https://www.ups.com/track?tracknum=${number}` },
    ...extra
  }
}

const annotation = (i: number) => ({ tag: "podsync:drafted", field: { key: "draft", value: `draft-${i}` } })

export const shopifySteps: ReadonlyArray<StoreStep<ShopifyTourState>> = [
  {
    method: "pull",
    note: "the whole store, page by page",
    run: (c, s) =>
      Stream.runCollect(c.pull(null)).pipe(Effect.tap((pages) => {
        for (const page of Chunk.toReadonlyArray(pages)) for (const order of page.orders) s.orders.set(order.storeOrderId, order)
      }))
  },
  { method: "getOrder", note: "more line items than a page", run: (c, s) => c.getOrder(s.longOrderId) },
  { method: "getOrder", note: "an order no store has, as check reads it", run: (c) => c.getOrder(ABSENT_ORDER_ID) },
  {
    method: "getOrder",
    note: "a wrong access token",
    store: SHOPIFY_WRONG_TOKEN_STORE,
    expect: "StoreAuthError",
    run: (c, s) => c.getOrder(s.longOrderId)
  },
  {
    method: "pushFulfillment",
    note: "more fulfilment order lines than a page",
    run: (c, s) => c.pushFulfillment(push(orderOf(s, s.longOrderId), "1Z999AA10000000001"))
  },
  {
    method: "pushFulfillment",
    note: "the same tracking again",
    expect: "AlreadyPushed",
    run: (c, s) => c.pushFulfillment(push(orderOf(s, s.longOrderId), "1Z999AA10000000001"))
  },
  {
    method: "pushFulfillment",
    note: "a later package of lines already fulfilled",
    expect: "TrackingAdded",
    run: (c, s) =>
      c.pushFulfillment(push(orderOf(s, s.longOrderId), "1Z999AA10000000002", { earlierTrackingNumbers: ["1Z999AA10000000001"] }))
  },
  {
    method: "pushFulfillments",
    note: "one order",
    run: (c, s) => Effect.flatMap(c.pushFulfillments!([push(orderOf(s, s.batchOrderIds[0]!), "1Z999AA10000000100")]), everyOneRight)
  },
  {
    method: "pushFulfillments",
    note: `${BATCH_ORDERS - 1} orders and one split across three locations`,
    run: (c, s) =>
      Effect.flatMap(
        c.pushFulfillments!([
          ...s.batchOrderIds.slice(1).map((id, i) => push(orderOf(s, id), `1Z999AA1${String(i + 1000).padStart(8, "0")}`)),
          push(orderOf(s, s.splitOrderId), "1Z999AA10000009999")
        ]),
        everyOneRight
      )
  },
  { method: "annotate", note: "tag and field", run: (c, s) => c.annotate(s.longOrderId, annotation(0)) },
  { method: "annotate", note: "tag only", run: (c, s) => c.annotate(s.splitOrderId, { tag: "podsync:drafted" }) },
  { method: "annotate", note: "field only", run: (c, s) => c.annotate(s.splitOrderId, { field: { key: "draft", value: "draft-split" } }) },
  {
    method: "annotateMany",
    note: "one order",
    run: (c, s) => Effect.flatMap(c.annotateMany!([{ storeOrderId: s.batchOrderIds[0]!, annotation: annotation(1) }]), everyOneRight)
  },
  {
    method: "annotateMany",
    note: `${BATCH_ORDERS} orders`,
    run: (c, s) =>
      Effect.flatMap(c.annotateMany!(s.batchOrderIds.map((id, i) => ({ storeOrderId: id, annotation: annotation(i) }))), everyOneRight)
  },
  ...webhookSteps<ShopifyTourState>()
]
