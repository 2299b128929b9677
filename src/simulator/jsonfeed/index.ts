/**
 * A storefront that implements the podsync JSON feed contract
 * (docs/jsonfeed.md): the reference implementation a seller can read, and the
 * peer podsync's `jsonfeed` connector is tested against over real HTTP.
 *
 * Contract endpoints below `baseUrl` (`<url><basePath>`):
 *   GET  /orders?updated_since&cursor&limit   keyset pages under a frozen upper bound (paging.ts)
 *   GET  /orders/{id}
 *   GET  /orders/{id}/fulfillments
 *   POST /orders/{id}/fulfillments            Idempotency-Key (fulfillments.ts)
 * all with `Authorization: Bearer <token>`, a sliding-window rate limit
 * answering 429 + Retry-After (limiter.ts), and signed webhooks (webhooks.ts).
 *
 * Admin under `/__sim/` (no auth): reset; orders (create, bulk, edit, cancel,
 * hold, release, read); stats (requests, rateLimited, fulfillmentsByOrder,
 * buyerEmailsByOrder, idempotentReplays, keysInUse, faultsInjected); faults
 * (error5xx, reset, commitThenDrop, latency, rateLimit); ratelimit; webhooks
 * (subscribe, settings, deliver with duplicates/reorder, ping); clock/advance;
 * churn (orders edited after each page, to test paging under edits).
 */
import { listenDefaults, serve, standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import { Faults } from "./faults.js"
import { seededRandom } from "./fixtures.js"
import { FulfillmentDesk } from "./fulfillments.js"
import { type RateLimit, SlidingWindowLimiter } from "./limiter.js"
import { makeServer } from "./server.js"
import { FeedState } from "./store.js"
import { Webhooks } from "./webhooks.js"

export { signedDelivery, signWebhookBody } from "./webhooks.js"
export type { WebhookEnvelope, WireFulfillment, WireOrder, WireOrdersPage } from "./wire.js"

export interface JsonFeedSimulatorOptions {
  readonly host?: string
  readonly port?: number
  /** Where the contract's `<base>` sits on the server; default "/podsync/v1". */
  readonly basePath?: string
  /** The bearer token it accepts; default "jf_sim_token". */
  readonly token?: string
  /** The shared secret that signs its webhooks; default "jsonfeed-sim-webhook-secret". */
  readonly webhookSecret?: string
  /** Default 20 requests per sliding second; false for none. */
  readonly rateLimit?: RateLimit | false
  readonly seed?: number
  /** The wall clock (ms) behind timestamps and the rate limit; default Date.now. Tests may own it. */
  readonly now?: () => number
  /** false: a storefront written before docs/jsonfeed.md §6.5, refusing a fulfilment without lines (400). */
  readonly trackingOnlyFulfillments?: boolean
}

export interface RunningJsonFeedSimulator extends RunningSimulator {
  /** The contract's `<base>`, what a connector's `baseUrl` is set to. */
  readonly baseUrl: string
  readonly token: string
  readonly webhookSecret: string
}

export const jsonFeedSimulatorDefaults = {
  ...listenDefaults,
  basePath: "/podsync/v1",
  token: "jf_sim_token",
  webhookSecret: "jsonfeed-sim-webhook-secret",
  rateLimit: { requests: 20, windowSeconds: 1 },
  seed: 7
} as const

export const startJsonFeedSimulator = async (options: JsonFeedSimulatorOptions = {}): Promise<RunningJsonFeedSimulator> => {
  const o = { ...jsonFeedSimulatorDefaults, ...options }
  const basePath = `/${o.basePath.replace(/^\/+|\/+$/g, "")}`
  const state = new FeedState(o.seed, options.now ?? Date.now)
  const desk = new FulfillmentDesk(state, options.trackingOnlyFulfillments ?? true)
  const faults = new Faults(seededRandom(o.seed + 1))
  const initialRateLimit = o.rateLimit === false ? null : o.rateLimit
  const limiter = new SlidingWindowLimiter(initialRateLimit, state.now)
  const webhooks = new Webhooks(o.webhookSecret, state.now)
  state.onOrderEvent(webhooks.onOrderEvent)
  const server = makeServer({
    basePath,
    token: o.token,
    api: { state, desk },
    admin: { state, desk, faults, limiter, webhooks, initialRateLimit },
    faults,
    limiter,
    maxBodyBytes: 1024 * 1024
  })
  return serve(server, o, () => webhooks.close(), (url) => ({
    baseUrl: `${url}${basePath}`,
    token: o.token,
    webhookSecret: o.webhookSecret
  }))
}

export type JsonFeedSimulatorStandaloneOptions = StandaloneOptions<JsonFeedSimulatorOptions>

/** Starts the simulator for `podsync simulate`: prints `jsonfeed listening on <url>`. */
export const runJsonFeedSimulatorStandalone = standalone("jsonfeed", startJsonFeedSimulator)
