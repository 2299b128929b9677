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
 * - Access as Shopify decides it (access.ts): the static token's `scopes` (default every scope podsync
 *   asks for), field-level `ACCESS_DENIED` partial answers, Level 2 protected customer data denied on a
 *   `basic` plan, the 60-day window without `read_all_orders`, `currentAppInstallation { accessScopes }`.
 *   `POST /__sim/shop { plan?, standing?, scopes? }` changes them (reset restores the options'); a
 *   `frozen` shop answers 402, a `locked` one 423, each `{"errors": "…"}`.
 * - An order spec's `fulfillAt` makes its fulfillment orders SCHEDULED until then (they open by themselves
 *   at that time, or by `fulfillmentOrderOpen`); `POST /__sim/orders/:id/move { times }` moves its open
 *   fulfillment orders to another location, closing the moved ones. An order none of whose lines needs
 *   shipping is FULFILLMENT_NOT_REQUIRED.
 * - Option `plainListsByFirst`: plain lists with a `first` argument are charged by it (see cost.ts).
 * - A Dev Dashboard app (options `clientId` and `clientSecret`): `POST /admin/oauth/access_token` issues
 *   tokens by the client credentials grant, each with the shop's scopes at the grant, living
 *   `tokenLifetimeSeconds` (default 86399), then answered 401 as Shopify does (tokens.ts); the static
 *   `accessToken` is refused (such an app has none); webhooks are signed with the client secret unless
 *   `webhookSecret` is given. Stats `tokenGrants`, `tokenRefusals`, `unauthorized`; `POST
 *   /__sim/tokens/expire` ends every token issued so far.
 */
import { listenDefaults, serve, standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import { type Grant, podsyncScopes, type ShopPlan } from "./access.js"
import { CostBucket } from "./cost.js"
import { Faults } from "./faults.js"
import { seededRandom } from "./fixtures.js"
import { makeRootValue } from "./resolvers.js"
import { makeShopifySchema } from "./schema.graphql.js"
import { makeServer } from "./server.js"
import { ShopState } from "./store.js"
import { AppTokens } from "./tokens.js"
import { Webhooks } from "./webhooks.js"

export { signWebhook } from "./webhooks.js"
export { CostBucket } from "./cost.js"
export { type Grant, podsyncScopes, type ShopPlan } from "./access.js"

/**
 * The static access token's grant: the shop's scopes as they are now. The seam with token
 * credentials: a request's token resolves to a grant, and only its scopes are read after that.
 */
const staticTokenGrant = (accessToken: string, state: ShopState) => (token: string | undefined): Grant | null =>
  token === accessToken ? { scopes: new Set(state.shop.scopes) } : null

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
  /** The static access token's scopes; default every scope podsync asks for (`read_all_orders` included). */
  readonly scopes?: ReadonlyArray<string>
  /** The shop currency, every order's (default USD): a shop has one. */
  readonly currencyCode?: string
  /** The shop's plan; default `shopify` (a `basic` shop gives a custom app no Level 2 protected customer data). */
  readonly plan?: ShopPlan
  /** Charge plain lists with a `first` argument by it (default: as one object, as the published table reads). */
  readonly plainListsByFirst?: boolean
  /** A Dev Dashboard app's client id: with `clientSecret`, tokens come from the client credentials grant only. */
  readonly clientId?: string
  readonly clientSecret?: string
  /** How long a granted token lives (default 86399 s, as Shopify's). */
  readonly tokenLifetimeSeconds?: number
}

export interface RunningShopifySimulator extends RunningSimulator {
  readonly graphqlUrl: string
  readonly shop: string
  readonly accessToken: string
  readonly apiVersion: string
  readonly webhookSecret: string
  /** The app's client id and secret when it is a client-credentials app. */
  readonly clientId?: string
  readonly clientSecret?: string
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
  const state = new ShopState(o.seed, options.now ?? Date.now, {
    plan: options.plan ?? "shopify",
    standing: "active",
    scopes: options.scopes ?? podsyncScopes,
    currencyCode: options.currencyCode ?? "USD"
  })
  const bucket = new CostBucket(o.bucket.maximumAvailable, o.bucket.restoreRate, state.now)
  const faults = new Faults(seededRandom(o.seed + 1))
  const appTokens = options.clientId !== undefined && options.clientSecret !== undefined
    ? new AppTokens({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      lifetimeSeconds: options.tokenLifetimeSeconds ?? 86_399
    }, state)
    : undefined
  // A Dev Dashboard app's webhooks are signed with its client secret.
  const webhookSecret = options.webhookSecret ?? appTokens?.app.clientSecret ?? o.webhookSecret
  const webhooks = new Webhooks(o.shop, webhookSecret, o.apiVersion, state.now)
  state.onOrderEvent(webhooks.onOrderEvent)
  const schema = makeShopifySchema()
  const rootValue = makeRootValue(state, { domain: o.shop, currencyCode: state.shop.currencyCode })
  const server = makeServer({
    authorize: appTokens?.authorize ?? staticTokenGrant(o.accessToken, state),
    ...(appTokens === undefined ? {} : { appTokens }),
    faults,
    maxBodyBytes: 1024 * 1024,
    endpoint: {
      schema,
      state,
      bucket,
      rootValue,
      maxQueryCost: o.maxQueryCost,
      costRules: { plainListsByFirst: options.plainListsByFirst ?? false }
    },
    admin: { state, bucket, faults, webhooks, ...(appTokens === undefined ? {} : { appTokens }) }
  })
  return serve(server, o, () => webhooks.close(), (url) => ({
    graphqlUrl: `${url}/admin/api/${o.apiVersion}/graphql.json`,
    shop: o.shop,
    accessToken: o.accessToken,
    apiVersion: o.apiVersion,
    webhookSecret,
    ...(appTokens === undefined ? {} : { clientId: appTokens.app.clientId, clientSecret: appTokens.app.clientSecret })
  }))
}

export type ShopifySimulatorStandaloneOptions = StandaloneOptions<ShopifySimulatorOptions>

/** Starts the simulator for `podsync simulate`: prints `shopify listening on <url>`. */
export const runShopifySimulatorStandalone = standalone("shopify", startShopifySimulator)
