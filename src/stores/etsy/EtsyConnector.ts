/**
 * The Etsy adapter of the store port, on Open API v3 (`/v3/application`).
 * Built once per configured Etsy shop.
 *
 * - Credentials: `x-api-key: <keystring>:<shared_secret>` on every call, and
 *   an OAuth bearer obtained from the configured refresh token (EtsyTokens).
 * - Pull: getShopReceipts by `min_last_modified`, `sort_on=updated`
 *   ascending, offset within one-second ties only (EtsyCursor), with the
 *   paid/unshipped filters unless `receiptFilter: all`.
 * - Push: createReceiptShipment after reading `shipments[]` back (Etsy emails
 *   the buyer on every shipment).
 * - Receipts have no tags, notes or private fields: `annotate` does nothing.
 * - Webhooks: thin, Standard Webhooks signatures; only when a webhook secret
 *   is configured (commercial apps), otherwise `webhookPayload: "none"`.
 */
import type { HttpClient } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { keepBody, StoreResponseError } from "../StoreErrors.js"
import {
  DEFAULT_OVERLAP_SECONDS,
  DEFAULT_PAGE_SIZE,
  type EtsyConnectorConfig
} from "./EtsyConfig.js"
import { makeEtsyFulfillmentPush } from "./EtsyFulfillment.js"
import { makeEtsyHttp } from "./EtsyHttp.js"
import { normalizeEtsyReceipt } from "./EtsyNormalize.js"
import { pullEtsyReceipts } from "./EtsyPull.js"
import { isReceiptId, makeEtsyReceiptReader } from "./EtsyReceipts.js"
import { verifyEtsyWebhook } from "./EtsyWebhooks.js"

export const etsyCapabilities = (webhooks: boolean): StoreCapabilities => ({
  fulfillmentGranularity: "order",
  partialFulfillment: false,
  multiplePackages: true,
  pushNotifiesBuyer: "always",
  annotations: [],
  holds: false,
  webhookPayload: webhooks ? "thin" : "none"
})

export const makeEtsyConnector = (
  config: EtsyConnectorConfig
): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const { storeKey, shopId } = config
    const http = yield* makeEtsyHttp(config)
    const reader = makeEtsyReceiptReader({ storeKey, shopId, filter: config.receiptFilter ?? "paidUnshipped" }, http)
    const pushFulfillment = makeEtsyFulfillmentPush({ storeKey, shopId, shipmentBody: config.shipmentBody ?? "json" }, http, reader)
    const settings = {
      storeKey,
      // At least 2: every page after the first starts with the anchor (EtsyCursor.ts).
      pageSize: Math.min(100, Math.max(2, config.pageSize ?? DEFAULT_PAGE_SIZE)),
      overlapSeconds: config.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS
    }

    const getOrder: StoreConnector["getOrder"] = (storeOrderId) =>
      isReceiptId(storeOrderId)
        ? Effect.flatMap(
            reader.byId(storeOrderId),
            Option.match({
              onNone: () => Effect.succeedNone,
              onSome: (fetched) =>
                Either.match(Either.flatMap(fetched.receipt, (receipt) => normalizeEtsyReceipt(storeKey, receipt, fetched.raw)), {
                  onRight: (order) => Effect.succeedSome(order),
                  onLeft: (problem) =>
                    Effect.fail(
                      new StoreResponseError({
                        storeKey, operation: "getShopReceipt", ambiguous: false, status: 200,
                        body: keepBody(JSON.stringify(fetched.raw)), detail: problem
                      })
                    )
                })
            })
          )
        : Effect.succeedNone

    const connector: StoreConnector = {
      storeKey,
      platform: "etsy",
      capabilities: etsyCapabilities(config.webhookSecret !== undefined),
      pull: (cursor, options) => pullEtsyReceipts(settings, reader, cursor, options),
      getOrder,
      pushFulfillment,
      // Etsy receipts have no tags, notes or private fields; the pipeline keeps its own record.
      annotate: () => Effect.void,
      verifyWebhook: (delivery) => verifyEtsyWebhook(config, delivery)
    }
    return connector
  })
