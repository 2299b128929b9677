/**
 * Shopify Admin GraphQL simulator (contract: notes/SHOPIFY_SIM_CONTRACT.md; facts: store-apis.md §1).
 *
 * No deviation from the contract. Additions:
 * - Options `maxQueryCost` (default 1000, as Shopify: a query asking for more is refused with
 *   `MAX_COST_EXCEEDED` before touching the bucket) and `now` (the wall clock, for tests that freeze it).
 *   The running simulator also exposes `graphqlUrl`, `shop`, `accessToken`, `apiVersion`, `webhookSecret`.
 * - `updatedAt` has second precision, like Shopify's DateTime; each change moves an order's `updatedAt`
 *   at least one second past its previous value, so every version of an order is distinguishable.
 * - Stats: `requests` counts every authorised GraphQL request. Stats also carry `notificationsByOrder`
 *   (notifyCustomer: true pushes), `mutations` (executed, per root field), `faultsInjected` (per kind),
 *   `orders`, `throttleStatus`, `webhooksPending`, `webhooksDelivered` (2xx answers); `maxDebt` is absent
 *   (the bucket never goes below zero).
 * - "Mutate during walk": `POST /__sim/churn { perOrdersQuery }` edits that many random open orders after
 *   each answered `orders` query (0 turns it off; reset too).
 * - Admin extras: `GET /__sim/orders`, `GET /__sim/faults`, `GET /__sim/webhooks` (subscriptions, settings,
 *   delivery log), `POST /__sim/bucket/drain`, and `POST /__sim/webhooks/settings` `{ autoDeliver?,
 *   delayMs?, duplicates?, reorder?, retries?, retryDelayMs? }` for automatic deliveries (`autoDeliver:
 *   false` keeps them queued until `/deliver`; a non-2xx or failed delivery is sent again, same ids and
 *   body, `retries` times, default 2, after `retryDelayMs`, default 1000, doubling). Fault rules accept
 *   `status` (5xx, default 503) for `error5xx`; `throttle` answers THROTTLED without touching the bucket.
 * - A duplicate delivery is the same delivery sent again (same X-Shopify-Webhook-Id and Event-Id);
 *   `reorder` sends the queued deliveries newest first. Payloads are the order as it was at the event.
 * - Admin order bodies are checked against the GraphQL enums (financialStatus, currencyCode,
 *   shippingAddress.countryCodeV2): an unknown value is a 400 naming the allowed ones.
 * - Cancelling an order closes its open fulfillment orders (status CLOSED) and refunds or voids it
 *   (`refund: false` in the cancel body keeps the financial status). Hold accepts `{ reason }`.
 * - Extra GraphQL: fulfillmentCancel, tagsRemove, fulfillmentOrderHold, fulfillmentOrderReleaseHold,
 *   fulfillmentOrder(id), fulfillment(id), node(s), ordersCount, shop.
 * - Cost: an interface (`node`, `nodes`) costs its most expensive possible selection, fragments count only
 *   on the types they apply to, and `nodes(ids:)` is charged once per id.
 * - A line item spec may name its `location`: each location of an order gets its own fulfillment order.
 */
import { listenDefaults, serve, standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import { CostBucket } from "./cost.js"
import { Faults } from "./faults.js"
import { seededRandom } from "./fixtures.js"
import { makeRootValue } from "./resolvers.js"
import { makeShopifySchema } from "./schema.graphql.js"
import { makeServer } from "./server.js"
import { ShopState } from "./store.js"
import { Webhooks } from "./webhooks.js"

export { signWebhook } from "./webhooks.js"
export { CostBucket } from "./cost.js"

export interface ShopifySimulatorOptions {
  readonly host?: string
  readonly port?: number
  readonly shop?: string
  readonly accessToken?: string
  readonly apiVersion?: string
  readonly webhookSecret?: string
  /** Default 2000 points, restoring 100 per second (Shopify's Standard plan). */
  readonly bucket?: { readonly maximumAvailable: number; readonly restoreRate: number }
  readonly maxQueryCost?: number
  readonly seed?: number
  /** The wall clock (ms) behind timestamps and the bucket; default Date.now. Tests may freeze it. */
  readonly now?: () => number
}

export interface RunningShopifySimulator extends RunningSimulator {
  readonly graphqlUrl: string
  readonly shop: string
  readonly accessToken: string
  readonly apiVersion: string
  readonly webhookSecret: string
}

export const shopifySimulatorDefaults = {
  ...listenDefaults,
  shop: "acme.myshopify.com",
  accessToken: "shpat_sim_token",
  apiVersion: "2026-10",
  webhookSecret: "shopify-sim-webhook-secret",
  bucket: { maximumAvailable: 2000, restoreRate: 100 },
  maxQueryCost: 1000,
  seed: 1
} as const

export const startShopifySimulator = async (options: ShopifySimulatorOptions = {}): Promise<RunningShopifySimulator> => {
  const o = { ...shopifySimulatorDefaults, ...options }
  const state = new ShopState(o.seed, options.now ?? Date.now)
  const bucket = new CostBucket(o.bucket.maximumAvailable, o.bucket.restoreRate, state.now)
  const faults = new Faults(seededRandom(o.seed + 1))
  const webhooks = new Webhooks(o.shop, o.webhookSecret, o.apiVersion, state.now)
  state.onOrderEvent(webhooks.onOrderEvent)
  const schema = makeShopifySchema()
  const rootValue = makeRootValue(state, { domain: o.shop, currencyCode: "USD" })
  const server = makeServer({
    accessToken: o.accessToken,
    faults,
    maxBodyBytes: 1024 * 1024,
    endpoint: { schema, state, bucket, rootValue, maxQueryCost: o.maxQueryCost },
    admin: { state, bucket, faults, webhooks }
  })
  return serve(server, o, () => webhooks.close(), (url) => ({
    graphqlUrl: `${url}/admin/api/${o.apiVersion}/graphql.json`,
    shop: o.shop,
    accessToken: o.accessToken,
    apiVersion: o.apiVersion,
    webhookSecret: o.webhookSecret
  }))
}

export type ShopifySimulatorStandaloneOptions = StandaloneOptions<ShopifySimulatorOptions>

/** Starts the simulator for `podsync simulate`: prints `shopify listening on <url>`. */
export const runShopifySimulatorStandalone = standalone("shopify", startShopifySimulator)
