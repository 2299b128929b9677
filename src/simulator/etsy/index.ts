/**
 * Etsy Open API v3 simulator (facts: store-apis.md §0 and §3). Shops of one app, their receipts,
 * Etsy's field names.
 *
 * API (base = `url`):
 * - `POST /v3/public/oauth/token` (form or JSON: grant_type=refresh_token, client_id=<keystring>,
 *   refresh_token) → `{access_token: "<user_id>.<token>", token_type, expires_in, refresh_token}`.
 *   Access tokens live `accessTokenTtlSeconds` (default 3600). Refresh tokens rotate as Etsy's do: every
 *   refresh answers a new one and the one presented is refused from then on (`invalid_grant`);
 *   `rotateRefreshTokens: false` keeps them. A refresh token (`<user_id>.<…>`) is granted by its seller's shop.
 * - `GET /v3/application/shops/{shop_id}/receipts` (getShopReceipts: min/max_created,
 *   min/max_last_modified, limit 1–100, offset, sort_on, sort_order, was_paid, was_shipped,
 *   was_delivered, was_canceled) → `{count, results}`; ties of the sort key ordered by receipt_id.
 * - `GET …/receipts/{receipt_id}` (getShopReceipt), `PUT …/receipts/{receipt_id}` (updateShopReceipt:
 *   was_shipped, was_paid), `POST …/receipts/{receipt_id}/tracking` (createReceiptShipment:
 *   tracking_code, carrier_name, send_bcc, note_to_buyer; JSON or form body; emails the buyer on every
 *   call, the tracking linked for a carrier Etsy knows; 409 for a canceled or unpaid receipt; 403 for a
 *   receipt whose shipments are refused (`refuse-shipments`); carriers Etsy does not know refused,
 *   "other" accepted; tracking required for US domestic receipts over $10 and for India).
 * - Public calls (the app's key only): `GET /v3/application/shops/{shop_id}` (getShop, with
 *   `shipping_from_country_iso`), `GET /v3/application/shipping-carriers?origin_country_iso=XX`
 *   (getShippingCarriers: the carriers Etsy knows for packages from that country, carriers.ts).
 * - Every API call needs `x-api-key: <keystring>:<shared_secret>` (bare keystring, wrong or missing:
 *   403); private calls `Authorization: Bearer <token>` with transactions_r (reads) or transactions_w
 *   (writes): missing/expired 401, wrong scope 403. Quotas per second (sliding) and per rolling day,
 *   per seller's token for private calls and per API key for public ones (store-apis.md §0); headers
 *   x-limit-per-second, x-remaining-this-second, x-limit-per-day, x-remaining-today; over → 429, with
 *   the limit headers and retry-after only when switched on.
 * - Text is HTML-encoded as Etsy sends it (`O&#39;Connell`); buyer_email is null unless
 *   `buyerEmailVisible`. A canceled paid receipt keeps is_paid = true and gets a full refund.
 * - Several shops (`otherShops`): each its seller (user id, refresh token), receipts and token limits;
 *   the key, the webhook endpoint, faults and the clock are the app's.
 *
 * Admin (`/__sim/`, no auth; `orders` is an alias of `receipts`; `/__sim/shops/<shop_id>/…` for a shop
 * other than the first): `POST reset`; `POST receipts` (a partial spec: address fields or
 * `address_withheld: true`, status, currency, message_from_buyer, is_gift, gift_message, transactions
 * [{title, sku, quantity, price_cents, listing_id, product_id, is_digital, shipping_method, variations,
 * personalization}]); `POST receipts/bulk {count, template?}`; `GET receipts` (each with its
 * `buyer_emails`: carrier, tracking code and link, note); `GET|PATCH receipts/:id`; `POST
 * receipts/:id/cancel|pay|refund|ship`; `POST receipts/:id/refuse-shipments {error?}` (null lifts it);
 * `GET stats` (requests, requestsByOperation, throttled, unauthorized, forbidden, tokenGrants,
 * tokenRefusals, shipmentsByReceipt, buyerEmailsByReceipt, faultsInjected, quota {usedToday,
 * maxInOneSecond…}, appQuota, webhooks); `POST|GET|DELETE faults` ({operation, kind:
 * error5xx|reset|commitThenDrop|latency|429, probability?, count?, latencyMs?, status?}); `POST
 * clock/advance {seconds}`; `POST churn {perListQuery}` (edits that many open receipts after each
 * answered getShopReceipts); `POST quota {perSecond?, perDay?, usedToday?, limitHeadersOn429?,
 * retryAfterOn429?}` (the shop's token limits); `POST tokens/expire`; `POST authorize` (the seller
 * authorises the app again: `{refresh_token}`, a new one, the others kept); `POST settings {htmlEntities?,
 * buyerEmailVisible?, acceptJson?, acceptForm?}`; webhooks: `POST webhooks/subscribe {url, events?}`,
 * `GET webhooks`, `POST webhooks/settings {autoDeliver?, delayMs?, duplicates?, reorder?, retries?,
 * retryDelayMs?, previousSecret?, payload?: "envelope"|"thin"}`, `POST webhooks/deliver {duplicates?,
 * reorder?}` (Standard Webhooks signing; the published envelope unless `thin`, webhooks.ts).
 */
import { listenDefaults, serve, standalone, type RunningSimulator, type StandaloneOptions } from "../kit/lifecycle.js"
import type { Switches } from "./admin.js"
import { SimShops, type SimShop } from "./shops.js"
import { EtsyAuth } from "./auth.js"
import { Faults } from "./faults.js"
import { seededRandom } from "./fixtures.js"
import { Quota } from "./quota.js"
import { makeServer } from "./server.js"
import { EtsyShop } from "./store.js"
import { Webhooks } from "./webhooks.js"

export { webhookSignature } from "./webhooks.js"

/** Another shop whose seller authorised the same app. */
export interface EtsyShopOptions {
  readonly shopId: number
  /** The seller's Etsy user id: the prefix of their tokens. */
  readonly userId: number
  readonly refreshToken?: string
  readonly shopCountry?: string
}

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
  /** Shops of other sellers who authorised the app, beside the first (`shopId`, `userId`). */
  readonly otherShops?: ReadonlyArray<EtsyShopOptions>
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
  /** Every shop, the first included: its id, seller and refresh token at start. */
  readonly shops: ReadonlyArray<{ readonly shopId: number; readonly userId: number; readonly refreshToken: string }>
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
  rotateRefreshTokens: true,
  scopes: ["transactions_r", "transactions_w"],
  webhookSecret: `whsec_${Buffer.from("etsy-simulator-webhook-signing-key").toString("base64")}`
} as const

export const startEtsySimulator = async (options: EtsySimulatorOptions = {}): Promise<RunningEtsySimulator> => {
  const o = { ...etsySimulatorDefaults, ...options }
  const now = options.now ?? Date.now
  const quotaSettings = () => ({
    perSecond: o.quota?.perSecond ?? 10,
    perDay: o.quota?.perDay ?? 10_000,
    limitHeadersOn429: o.limitHeadersOn429 ?? false,
    retryAfterOn429: o.retryAfterOn429 ?? false
  })
  const sellers: ReadonlyArray<EtsyShopOptions> = [
    {
      shopId: o.shopId,
      userId: o.userId,
      shopCountry: o.shopCountry,
      ...(options.refreshToken === undefined ? {} : { refreshToken: options.refreshToken })
    },
    ...(options.otherShops ?? [])
  ]
  const shops = new SimShops(sellers.map((seller, index): SimShop => {
    const shop = new EtsyShop(o.seed + index, seller.userId, now, index)
    const refreshToken = seller.refreshToken ?? `${seller.userId}.sim-refresh-token-0001`
    return {
      shopId: seller.shopId,
      userId: seller.userId,
      country: seller.shopCountry ?? o.shopCountry,
      refreshToken,
      shop,
      auth: new EtsyAuth(
        {
          keystring: o.keystring,
          sharedSecret: o.sharedSecret,
          userId: seller.userId,
          accessTokenTtlSeconds: o.accessTokenTtlSeconds,
          rotateRefreshTokens: o.rotateRefreshTokens,
          scopes: o.scopes
        },
        refreshToken,
        shop.now
      ),
      quota: new Quota(quotaSettings(), shop.now)
    }
  }))
  let url = ""
  const webhooks = new Webhooks(o.webhookSecret, () => url, shops.clock.now)
  for (const s of shops.all) s.shop.onReceiptEvent(webhooks.forShop(s.shopId))
  const defaultSwitches: Switches = {
    htmlEntities: o.htmlEntities ?? true,
    buyerEmailVisible: o.buyerEmailVisible ?? false,
    acceptJson: true,
    acceptForm: true
  }
  const server = makeServer({
    app: {
      faults: new Faults(seededRandom(o.seed + 1)),
      webhooks,
      switches: { ...defaultSwitches },
      defaultSwitches,
      appQuota: new Quota(quotaSettings(), shops.clock.now)
    },
    shops,
    maxBodyBytes: 1024 * 1024
  })
  return serve(server, o, () => webhooks.close(), (root) => {
    url = root
    return {
      shopId: o.shopId,
      userId: o.userId,
      keystring: o.keystring,
      sharedSecret: o.sharedSecret,
      refreshToken: shops.primary.refreshToken,
      webhookSecret: o.webhookSecret,
      shops: shops.all.map((s) => ({ shopId: s.shopId, userId: s.userId, refreshToken: s.refreshToken }))
    }
  })
}

export type EtsySimulatorStandaloneOptions = StandaloneOptions<EtsySimulatorOptions>

/** Starts the simulator for `podsync simulate`: prints `etsy listening on <url>`. */
export const runEtsySimulatorStandalone = standalone("etsy", startEtsySimulator)
