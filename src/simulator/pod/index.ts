// The POD service simulator: a stateful peer of the real service (v3 and legacy v2).
//
// Deviations from / additions to notes/POD_SIM_CONTRACT.md (all additive):
// - Options: `webhookDeliveryDelayMs` (default 100), `webhookRetry` ({ attempts: 5, baseDelayMs: 200 }),
//   `webhookTimeoutMs` (default 30000), `log` (a line printer for the standalone runner).
// - `allowHttpDelivery: true` accepts any http:// delivery_url (not only loopback), so a containerised
//   daemon can receive deliveries; false demands https://.
// - Admin extras: `GET /__sim/faults`, `GET /__sim/rate-limit`, `POST /__sim/tick` (one clock step),
//   `POST /__sim/webhooks/auto` `{ enabled }` (pause/resume automatic delivery; paused events stay queued
//   for `/__sim/webhooks/deliver`). Faults take `retryAfterSeconds` for `rateLimit429` (default 1).
//   `GET /__sim/webhooks/deliveries` answers a bare array of attempts ({ delivery_id, webhook_id, url, topic,
//   order_id, attempt, duplicate, nonce, at, status (null when no answer), error? }); `GET /__sim/webhooks/queue`
//   → { queued, autoDeliver }. Stats add `byStatus`, `connectionsDropped`, `drafts`, `orders`,
//   `firstRequestAt`, `lastRequestAt`, `webhooksQueued`.
// - `GET /api/v3/catalog/variants/shipping-fee` (named by the real SDK, shape not documented): query
//   `filter.variant_ids` (repeated), `country_code`, `method` → data[] { variant_id, shipping_method,
//   country_code, first_item_fee, additional_item_fee }.
// - `POST /__sim/drafts/:id/checkout` takes `{ paid?: boolean }` (default false → AWAITING_PAYMENT;
//   true → AWAITING_FULFILLMENT, payment SUCCESS). `checkout-all` takes the same body.
// - `POST /__sim/drafts/:id/status` takes `{ status: "DELETED" | "ARCHIVED" }`: the seller deleted or archived a
//   draft (not checked out) in the dashboard; it is listed with that status and never checks out.
// - Drafts created approved (auto_approve omitted or true) have status AWAITING_CHECKOUT; unapproved ones
//   DRAFT until POST .../approve. The clock (autoAdvance) checks out approved drafts only.
// - `POST /__sim/reset` also clears rate-limit blocks, restores the rate limit the simulator started with,
//   empties the webhook delivery queue and log, and turns automatic delivery back on.
// - Auth comes before the limiter: a 401 is counted in `requests`/`total` but is not an arrival in the
//   rate window. The rate window is per client key; `maxInWindow` is the highest over keys.
// - v2: `api_signature` is accepted when non-empty. GET /api/v2/orders/:id also accepts the credentials as
//   query parameters (fetch cannot send a GET body). v2 integer `shipping_method`: 1 standard, 2 fast ship,
//   3 ground, 4 stamp. A v2 draft's integer id is also its order's id in GET /api/v2/orders/:id.
// - Paths may carry the real base prefix `/integration-handler`.
// - 400 details name fields by their path from the body root: `data.address.first_name`,
//   `data.line_items[0].quantity`, `data.line_items[0].printing_options` (PATCH: `line_items[0].quantity`;
//   quote: `shipping.address.method`, `gift_messages[0].content`; v2: flat names, in `errors[]`).
// - Lists answer newest first. `paging.total` is a string when seed + page is even, else a number; Money
//   `units` is a string or a number per record (hash of its id + seed), so both forms always appear.
// - Webhook events, delivered as the real service publishes them (webhookDelivery.ts): SHIPPING_ADDRESS_VERIFIED at
//   checkout; SHIPPING_ADDRESS_UNVERIFIED when a draft is created with zip code 00000 (such a draft cannot be checked
//   out) and on `POST /__sim/drafts/:id/address-verification { verified }` (a draft id or its order's; true verifies
//   it again, with a VERIFIED event); TRACKING_ORDER_UPDATED once per package added; ORDER_COMPLETED on first SHIPPED;
//   ORDER_CANCELLED; ORDER_ON_HOLD; PRODUCT_OUT_OF_STOCK on `POST /__sim/variants/:variant_id/stock { label:
//   "OUT_OF_STOCK" }`, for each draft or order carrying the variant that is not yet in production (the label is
//   also what the catalog, drafts and orders show; reset restores the seeded labels). Every attempt (retry or
//   duplicate) carries a fresh nonce and timestamp. Signed with the API client secret (`webhookSigningKey`
//   overrides it) and sent with the API client key (`webhookClientKey` overrides it). Subscriptions take topic,
//   status and version as names or numbers; an empty webhook list answers without `data`, as protobuf JSON does.
//   The delivery log adds `type` (the body's) and `version`; `order_id` is the draft's id while it has no order.
// - Auth: both published v3 header pairs are accepted (X-Gearment-Client-Key/-Secret and X-API-Key/-Secret);
//   the `authHeaders` option (one pair or several) or `POST /__sim/auth-headers { accept }` narrows it (auth.ts).
// - Economy shipping (coverage.ts): `POST /api/v3/shipping/economy/coverage/check`; Economy drafts to an
//   uncovered ZIP are moved to Standard with `shipping_substitution`, non-US/military/offshore ones refused;
//   `POST /__sim/economy/coverage { uncovered, covered }` marks ZIPs.
import { standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import type { AddressInfo } from "node:net"
import { adminRoutes } from "./admin.js"
import { AcceptedHeaders, authHeaderRoutes, type HeaderPair, PUBLISHED_HEADER_PAIRS } from "./auth.js"
import { generateCatalog } from "./catalog.js"
import { catalogRoutes } from "./catalogApi.js"
import { coverageAdminRoutes, coverageRoutes, EconomyCoverage } from "./coverage.js"
import { draftRoutes } from "./drafts.js"
import { FaultBoard } from "./faults.js"
import { legacyRoutes } from "./legacyV2.js"
import type { RateLimitConfig } from "./limiter.js"
import { SlidingWindowLimiter } from "./limiter.js"
import { OrderLifecycle, orderRoutes } from "./orders.js"
import { quoteRoutes } from "./quoteApi.js"
import type { Route } from "./routes.js"
import { routeKey } from "./routes.js"
import { createSimServer } from "./server.js"
import { SimState } from "./state.js"
import { SimStats } from "./stats.js"
import { webhookRoutes } from "./webhookApi.js"
import { WebhookDelivery } from "./webhookDelivery.js"

export interface PodSimulatorOptions {
  readonly host?: string
  readonly port?: number
  readonly seed?: number
  readonly clientKey?: string
  readonly clientSecret?: string
  /** The v3 header pair(s) accepted; default both published pairs (auth.ts). */
  readonly authHeaders?: HeaderPair | ReadonlyArray<HeaderPair>
  readonly rateLimit?: RateLimitConfig | false
  /** The webhook HMAC key; default the API client secret, as the real service signs. */
  readonly webhookSigningKey?: string
  /** X-Connect-Client-Key and the V1 `api_key`; default the API client key. */
  readonly webhookClientKey?: string
  readonly autoAdvance?: { readonly stepMs: number } | false
  readonly allowHttpDelivery?: boolean
  readonly webhookDeliveryDelayMs?: number
  readonly webhookRetry?: { readonly attempts: number; readonly baseDelayMs: number }
  readonly webhookTimeoutMs?: number
  /**
   * Write the enums of some records as numbers, as protobuf JSON allows and the
   * published contract types them ("string or number"). Default true; tests of
   * the simulator's own behaviour that read raw fields turn it off.
   */
  readonly enumNumbers?: boolean
}

export type RunningPodSimulator = RunningSimulator

export const DEFAULT_RATE_LIMIT: RateLimitConfig = { requests: 100, windowSeconds: 10, blockSeconds: 60 }

export const startPodSimulator = async (options: PodSimulatorOptions = {}): Promise<RunningPodSimulator> => {
  const now = (): number => Date.now()
  const seed = options.seed ?? 1
  const state = new SimState(generateCatalog(seed), seed, now)
  const faults = new FaultBoard()
  const lifecycle = new OrderLifecycle(state, () => faults.packagesFor())
  const coverage = new EconomyCoverage(seed)
  const acceptedHeaders = new AcceptedHeaders(
    options.authHeaders === undefined ? PUBLISHED_HEADER_PAIRS : "key" in options.authHeaders ? [options.authHeaders] : options.authHeaders
  )
  const initialRateLimit: RateLimitConfig | false = options.rateLimit ?? DEFAULT_RATE_LIMIT
  let rateLimit = initialRateLimit
  let limiter = rateLimit === false ? null : new SlidingWindowLimiter(rateLimit, now)
  const stats = new SimStats(rateLimit === false ? DEFAULT_RATE_LIMIT.windowSeconds : rateLimit.windowSeconds, now)
  const clientKey = options.clientKey ?? "sim-client-key"
  const clientSecret = options.clientSecret ?? "sim-client-secret"
  const delivery = new WebhookDelivery(state, {
    signingKey: options.webhookSigningKey ?? clientSecret,
    clientKey: options.webhookClientKey ?? clientKey,
    delayMs: options.webhookDeliveryDelayMs ?? 100,
    retryAttempts: options.webhookRetry?.attempts ?? 5,
    retryBaseDelayMs: options.webhookRetry?.baseDelayMs ?? 200,
    timeoutMs: options.webhookTimeoutMs ?? 30_000
  })
  const apiRoutes: ReadonlyArray<Route> = [
    ...catalogRoutes(state.catalog, seed),
    ...quoteRoutes(state.catalog, seed),
    ...draftRoutes(state, coverage),
    ...orderRoutes(state),
    ...webhookRoutes(state, options.allowHttpDelivery ?? true),
    ...legacyRoutes(state),
    ...coverageRoutes(coverage)
  ]
  const setRateLimit = (config: RateLimitConfig | false): void => {
    rateLimit = config
    limiter = config === false ? null : new SlidingWindowLimiter(config, now)
    if (config !== false) stats.setWindowSeconds(config.windowSeconds)
  }
  const admin = adminRoutes({
    state,
    lifecycle,
    faults,
    stats,
    delivery,
    apiRouteKeys: () => apiRoutes.map(routeKey),
    rateLimit: () => rateLimit,
    setRateLimit,
    blockedUntil: () => limiter?.blockedUntil() ?? null,
    resetAll: () => {
      state.reset()
      faults.clear()
      stats.reset()
      delivery.reset()
      delivery.autoDeliver = true
      setRateLimit(initialRateLimit)
      coverage.reset()
      acceptedHeaders.reset()
    }
  })
  const server = createSimServer({
    routes: [...admin, ...authHeaderRoutes(acceptedHeaders), ...coverageAdminRoutes(coverage), ...apiRoutes],
    credentials: {
      clientKey,
      clientSecret,
      headerPairs: () => acceptedHeaders.pairs
    },
    stats,
    faults,
    limiter: () => limiter,
    enumNumbersSeed: options.enumNumbers === false ? null : seed
  })
  // Longer than any client's idle timeout, so clients close idle sockets first (no reuse-after-close races).
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })
  const ticker = options.autoAdvance === undefined || options.autoAdvance === false
    ? undefined
    : setInterval(() => lifecycle.tick(), options.autoAdvance.stepMs)
  ticker?.unref()
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${address.port}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        if (ticker !== undefined) clearInterval(ticker)
        delivery.close()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    }
  }
}

export type PodSimulatorStandaloneOptions = StandaloneOptions<PodSimulatorOptions>

/** Starts the simulator for `podsync simulate --pod-port` (no clock auto-advance): prints `pod listening on <url>`. */
export const runPodSimulatorStandalone = standalone(
  "pod",
  (options?: PodSimulatorOptions) => startPodSimulator({ autoAdvance: false, ...options })
)

export { generateCatalog } from "./catalog.js"
export type { Catalog, CatalogProduct, CatalogVariant } from "./catalog.js"
export { ArrivalWindow, SlidingWindowLimiter } from "./limiter.js"
export type { LimitDecision, RateLimitConfig } from "./limiter.js"
export { base64UrlPadded, signWebhook, sortedJson } from "./webhookDelivery.js"
export { UNVERIFIABLE_ZIP_CODE } from "./drafts.js"
export { quote } from "./pricing.js"
export { sampleAddress, sampleDraftData } from "./samples.js"
export type { SampleDraftOptions } from "./samples.js"
