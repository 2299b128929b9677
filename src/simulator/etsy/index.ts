/**
 * Etsy Open API v3 simulator (facts: store-apis.md §3). One shop, its receipts, Etsy's field names.
 *
 * API (base = `url`):
 * - `POST /v3/public/oauth/token` (form or JSON: grant_type=refresh_token, client_id=<keystring>,
 *   refresh_token) → `{access_token: "<user_id>.<token>", token_type, expires_in, refresh_token}`.
 *   Access tokens live `accessTokenTtlSeconds` (default 3600). Refresh tokens are not rotated unless
 *   `rotateRefreshTokens` (§3 does not say Etsy rotates; the switch lets a client prove it copes).
 * - `GET /v3/application/shops/{shop_id}/receipts` (getShopReceipts: min/max_created,
 *   min/max_last_modified, limit 1–100, offset, sort_on, sort_order, was_paid, was_shipped,
 *   was_delivered, was_canceled) → `{count, results}`; ties of the sort key ordered by receipt_id.
 * - `GET …/receipts/{receipt_id}` (getShopReceipt), `PUT …/receipts/{receipt_id}` (updateShopReceipt:
 *   was_shipped, was_paid), `POST …/receipts/{receipt_id}/tracking` (createReceiptShipment:
 *   tracking_code, carrier_name, send_bcc, note_to_buyer; JSON or form body; emails the buyer on every
 *   call; 409 for a canceled or unpaid receipt; unknown carriers refused, "other" accepted; tracking
 *   required for US domestic receipts over $10 and for India).
 * - Every API call needs `x-api-key: <keystring>:<shared_secret>` (bare keystring, wrong or missing:
 *   403) and `Authorization: Bearer <token>` with transactions_r (reads) or transactions_w (writes):
 *   missing/expired 401, wrong scope 403. Quotas per second (sliding) and per rolling day, headers
 *   x-limit-per-second, x-remaining-this-second, x-limit-per-day, x-remaining-today; over → 429, with
 *   the limit headers and retry-after only when switched on.
 * - Text is HTML-encoded as Etsy sends it (`O&#39;Connell`); buyer_email is null unless
 *   `buyerEmailVisible`. A canceled paid receipt keeps is_paid = true and gets a full refund.
 *
 * Admin (`/__sim/`, no auth; `orders` is an alias of `receipts`): `POST reset`; `POST receipts` (a
 * partial spec: address fields or `address_withheld: true`, status, currency, message_from_buyer,
 * is_gift, gift_message, transactions [{title, sku, quantity, price_cents, listing_id, product_id,
 * is_digital, shipping_method, variations, personalization}]); `POST receipts/bulk {count, template?}`;
 * `GET receipts`; `GET|PATCH receipts/:id`; `POST receipts/:id/cancel|pay|refund|ship`; `GET stats`
 * (requests, requestsByOperation, throttled, unauthorized, forbidden, tokenGrants, tokenRefusals,
 * shipmentsByReceipt, buyerEmailsByReceipt, faultsInjected, quota {usedToday, maxInOneSecond…},
 * webhooks); `POST|GET|DELETE faults` ({operation, kind: error5xx|reset|commitThenDrop|latency|429,
 * probability?, count?, latencyMs?, status?}); `POST clock/advance {seconds}`; `POST churn
 * {perListQuery}` (edits that many open receipts after each answered getShopReceipts); `POST quota
 * {perSecond?, perDay?, usedToday?, limitHeadersOn429?, retryAfterOn429?}`; `POST tokens/expire`;
 * `POST settings {htmlEntities?, buyerEmailVisible?, acceptJson?, acceptForm?}`; webhooks:
 * `POST webhooks/subscribe {url, events?}`, `GET webhooks`, `POST webhooks/settings {autoDeliver?,
 * delayMs?, duplicates?, reorder?, retries?, retryDelayMs?, previousSecret?}`, `POST webhooks/deliver
 * {duplicates?, reorder?}` (Standard Webhooks signing, thin payloads; see webhooks.ts).
 */
import { listenDefaults, serve, standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import type { Switches } from "./admin.js"
import { EtsyAuth } from "./auth.js"
import { Faults } from "./faults.js"
import { seededRandom } from "./fixtures.js"
import { Quota } from "./quota.js"
import { makeServer } from "./server.js"
import { EtsyShop } from "./store.js"
import { Webhooks } from "./webhooks.js"

export { webhookSignature } from "./webhooks.js"

export interface EtsySimulatorOptions {
  readonly host?: string
  readonly port?: number
  readonly seed?: number
  readonly shopId?: number
  /** The seller's Etsy user id: the prefix of every token. */
  readonly userId?: number
  readonly shopCountry?: string
  readonly keystring?: string
  readonly sharedSecret?: string
  /** The refresh token valid at start (as if the seller had just authorised the app). */
  readonly refreshToken?: string
  readonly accessTokenTtlSeconds?: number
  readonly rotateRefreshTokens?: boolean
  readonly scopes?: ReadonlyArray<string>
  readonly quota?: { readonly perSecond?: number; readonly perDay?: number }
  readonly limitHeadersOn429?: boolean
  readonly retryAfterOn429?: boolean
  readonly htmlEntities?: boolean
  readonly buyerEmailVisible?: boolean
  /** `whsec_<base64 key>`. */
  readonly webhookSecret?: string
  /** The wall clock (ms) behind timestamps, tokens and quotas; default Date.now. */
  readonly now?: () => number
}

export interface RunningEtsySimulator extends RunningSimulator {
  readonly shopId: number
  readonly userId: number
  readonly keystring: string
  readonly sharedSecret: string
  readonly refreshToken: string
  readonly webhookSecret: string
}

export const etsySimulatorDefaults = {
  ...listenDefaults,
  seed: 1,
  shopId: 48213795,
  userId: 873421905,
  shopCountry: "US",
  keystring: "1aa2bb3cc4dd5ee6ff7gg8hh",
  sharedSecret: "etsysimsharedsecret",
  accessTokenTtlSeconds: 3600,
  rotateRefreshTokens: false,
  scopes: ["transactions_r", "transactions_w"],
  webhookSecret: `whsec_${Buffer.from("etsy-simulator-webhook-signing-key").toString("base64")}`
} as const

export const startEtsySimulator = async (options: EtsySimulatorOptions = {}): Promise<RunningEtsySimulator> => {
  const o = { ...etsySimulatorDefaults, ...options }
  const refreshToken = options.refreshToken ?? `${o.userId}.sim-refresh-token-0001`
  const shop = new EtsyShop(o.seed, o.userId, options.now ?? Date.now)
  const auth = new EtsyAuth(
    {
      keystring: o.keystring,
      sharedSecret: o.sharedSecret,
      userId: o.userId,
      accessTokenTtlSeconds: o.accessTokenTtlSeconds,
      rotateRefreshTokens: o.rotateRefreshTokens,
      scopes: o.scopes
    },
    refreshToken,
    shop.now
  )
  const quota = new Quota(
    {
      perSecond: o.quota?.perSecond ?? 10,
      perDay: o.quota?.perDay ?? 10_000,
      limitHeadersOn429: o.limitHeadersOn429 ?? false,
      retryAfterOn429: o.retryAfterOn429 ?? false
    },
    shop.now
  )
  let url = ""
  const webhooks = new Webhooks(o.webhookSecret, o.shopId, () => url, shop.now)
  shop.onReceiptEvent(webhooks.onReceiptEvent)
  const defaultSwitches: Switches = {
    htmlEntities: o.htmlEntities ?? true,
    buyerEmailVisible: o.buyerEmailVisible ?? false,
    acceptJson: true,
    acceptForm: true
  }
  const server = makeServer({
    admin: { shop, auth, quota, faults: new Faults(seededRandom(o.seed + 1)), webhooks, switches: { ...defaultSwitches }, defaultSwitches },
    api: { shop, shopId: o.shopId, shopCountry: o.shopCountry },
    maxBodyBytes: 1024 * 1024
  })
  return serve(server, o, () => webhooks.close(), (root) => {
    url = root
    return {
      shopId: o.shopId,
      userId: o.userId,
      keystring: o.keystring,
      sharedSecret: o.sharedSecret,
      refreshToken,
      webhookSecret: o.webhookSecret
    }
  })
}

export type EtsySimulatorStandaloneOptions = StandaloneOptions<EtsySimulatorOptions>

/** Starts the simulator for `podsync simulate`: prints `etsy listening on <url>`. */
export const runEtsySimulatorStandalone = standalone("etsy", startEtsySimulator)
