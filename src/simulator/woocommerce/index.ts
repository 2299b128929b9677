/**
 * WooCommerce REST API v3 simulator (facts: store-apis.md §2), with the Shipment Tracking extension
 * switchable on and off so both ways of pushing tracking can be exercised.
 *
 * API (`<url>/wp-json/…`, or `<url>/?rest_route=/…`; key as HTTP Basic or `consumer_key`/`consumer_secret`):
 * - `GET /wc/v3/orders` with page, per_page (1–100, else 400 `rest_invalid_param`), offset, after, before,
 *   modified_after, modified_before (exclusive, second precision), dates_are_gmt, include, exclude,
 *   order, orderby (date|id|include|title|slug|modified, ties broken by ID), status, search, customer;
 *   `X-WP-Total`, `X-WP-TotalPages`, `Link`. Date bounds follow WP core (see query.ts).
 * - `GET|PUT|POST|PATCH|DELETE /wc/v3/orders/<id>` (status transitions add a system note and send the
 *   customer emails core sends; `completed` emails the buyer), `GET|POST /wc/v3/orders/<id>/notes`
 *   (`customer_note: true` emails the buyer), `GET|DELETE …/notes/<id>`, `GET …/refunds`,
 *   `GET|POST /wc/v3/webhooks`, `GET|DELETE /wc/v3/webhooks/<id>`.
 * - Shipment Tracking (when on): `GET|POST /wc-shipment-tracking/v3/orders/<id>/shipment-trackings`,
 *   `GET|DELETE …/<tracking_id>`, `GET /wc-shipment-tracking/v3/orders/<id>/shipment-trackings/providers`
 *   (the provider list is per order; there is no `/shipment-trackings/providers`). Items are kept in the
 *   order meta `_wc_shipment_tracking_items`; the Completed email lists them (provider, number, link).
 *   Without the extension its routes answer 404 `rest_no_route`.
 * - Line items carry internal meta as the REST answer shows it (`_reduced_stock` once stock is reduced).
 * - A host that strips the `Authorization` header (`stripsAuthorizationHeader`): Basic credentials are
 *   answered 401 "Consumer key is missing."; query-string credentials work.
 * - Errors are WooCommerce's `{code, message, data: {status}}`; 429/5xx from the "host" are HTML pages.
 * - Webhooks name the site's home (`homeUrl`, default the site URL) as their source; a webhook of API
 *   version `legacy_v3` delivers `{"order": …}` in the legacy API's shape; secrets are stored sanitized
 *   and signed with after `wp_specialchars_decode`.
 *
 * Admin (`/__sim/`, no auth): reset; orders (create, bulk with `spacingSeconds`, PATCH with REST field
 * names, refund, trash, read with notes, emails and tracking items); stats (requests, per operation,
 * rateLimited, minGapMs, trackingsByOrder, notesByOrder, buyerEmailsByOrder, completedEmailsByOrder,
 * faultsInjected, webhooks); faults (error5xx with status, reset, commitThenDrop, latency, 429, each
 * with `retryAfterSeconds`, per operation name or "*"); `extensions { shipmentTracking }`; `host
 * { stripsAuthorization?, homeUrl? }`; `rate-limit { requests, windowSeconds, retryAfterSeconds }`;
 * webhooks (subscribe with `apiVersion`, settings, deliver with duplicates/reorder, ping);
 * `clock/advance`; `churn { perListQuery }` (mutate during a walk). Each order's `emails` hold what
 * the buyer read: the tracking items (provider, number, link) and a customer note's text.
 *
 * Deviations: plain HTTP with Basic auth (a real site wants HTTPS for Basic); one fixed UTC offset, no
 * DST; taxes and coupons are always zero; only order webhooks; no `POST /wc/v3/orders`, no batch.
 */
import { listenDefaults, serve, standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import type { KeyPermissions } from "./auth.js"
import { Faults, HostLimiter, type HostLimit } from "./faults.js"
import { seededRandom } from "./fixtures.js"
import type { DateBoundMode } from "./query.js"
import { makeServer } from "./server.js"
import { WooState } from "./store.js"
import { formatTracking } from "./trackingApi.js"
import { legacyOrderView, orderView, type ViewContext } from "./views.js"
import { Webhooks } from "./webhooks.js"

export { signWebhook, wpSpecialcharsDecode } from "./webhooks.js"

export interface WooCommerceSimulatorOptions {
  readonly host?: string
  readonly port?: number
  readonly consumerKey?: string
  readonly consumerSecret?: string
  readonly keyPermissions?: KeyPermissions
  /** Secret of webhooks subscribed through the admin API without one. */
  readonly webhookSecret?: string
  /** Whether the Shipment Tracking extension is installed at start (switchable at run time). */
  readonly shipmentTracking?: boolean
  /** The site's `gmt_offset` in hours; local `date_*` fields and non-GMT bounds use it. */
  readonly gmtOffsetHours?: number
  readonly dateBounds?: DateBoundMode
  /** The host strips the `Authorization` header (Apache with CGI/FastCGI): only query-string credentials work. */
  readonly stripsAuthorizationHeader?: boolean
  /** The site's home URL (`home_url('/')`), when it is not where the REST API answers (default: the site URL). */
  readonly homeUrl?: string
  /** A host rate limit in front of the site; none by default (WooCommerce core has none). */
  readonly rateLimit?: HostLimit | null
  readonly seed?: number
  /** The wall clock (ms) behind timestamps and the rate limit; default Date.now. Tests may drive it. */
  readonly now?: () => number
}

export interface RunningWooCommerceSimulator extends RunningSimulator {
  /** Site URL; the REST API is at `${url}/wp-json`. */
  readonly url: string
  readonly consumerKey: string
  readonly consumerSecret: string
  readonly webhookSecret: string
}

export const wooCommerceSimulatorDefaults = {
  ...listenDefaults,
  consumerKey: "ck_5f1c0f2b8e4d4a7c9b3e6d2a1f0e9c8b7a6d5e4f",
  consumerSecret: "cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
  keyPermissions: "read_write" as KeyPermissions,
  webhookSecret: "woo-sim-webhook-secret",
  shipmentTracking: true,
  gmtOffsetHours: -5,
  dateBounds: "wp-core" as DateBoundMode,
  seed: 1
}

export const startWooCommerceSimulator = async (options: WooCommerceSimulatorOptions = {}): Promise<RunningWooCommerceSimulator> => {
  const o = { ...wooCommerceSimulatorDefaults, ...options }
  const state = new WooState(
    o.seed,
    options.now ?? Date.now,
    o.gmtOffsetHours,
    o.shipmentTracking,
    { stripsAuthorization: options.stripsAuthorizationHeader ?? false, homeUrl: options.homeUrl ?? null },
    formatTracking
  )
  let siteUrl = "http://127.0.0.1"
  const view: ViewContext = {
    get siteUrl() {
      return siteUrl
    },
    gmtOffsetHours: o.gmtOffsetHours
  }
  const webhooks = new Webhooks(
    () => `${(state.host.homeUrl ?? siteUrl).replace(/\/+$/, "")}/`,
    state.now,
    (order) => orderView(view, order),
    (order) => legacyOrderView(view, order)
  )
  state.onOrderEvent(webhooks.onOrderEvent)
  const ctx = {
    state,
    webhooks,
    view,
    dateBounds: o.dateBounds,
    faults: new Faults(seededRandom(o.seed + 1)),
    limiter: new HostLimiter(options.rateLimit ?? null),
    webhookSecret: o.webhookSecret
  }
  const server = makeServer({
    ctx,
    key: { consumerKey: o.consumerKey, consumerSecret: o.consumerSecret, permissions: o.keyPermissions },
    maxBodyBytes: 1024 * 1024
  })
  return serve(server, o, () => webhooks.close(), (url) => {
    siteUrl = url
    return { consumerKey: o.consumerKey, consumerSecret: o.consumerSecret, webhookSecret: o.webhookSecret }
  })
}

export type WooCommerceSimulatorStandaloneOptions = StandaloneOptions<WooCommerceSimulatorOptions>

/** Starts the simulator for `podsync simulate`: prints `woocommerce listening on <url>`. */
export const runWooCommerceSimulatorStandalone = standalone("woocommerce", startWooCommerceSimulator)
