/**
 * The Etsy adapter of the store port, on Open API v3 (`/v3/application`).
 * Built once per configured Etsy shop.
 *
 * - Credentials: `x-api-key: <keystring>:<shared_secret>` on every call, and
 *   an OAuth bearer from the newest refresh token, kept in the token store
 *   (the configured one only seeds it; EtsyTokens).
 * - Pull: getShopReceipts by `min_last_modified`, `sort_on=updated`
 *   ascending, offset within one-second ties only (EtsyCursor), with the
 *   paid/unshipped filters unless `receiptFilter: all`.
 * - Push: createReceiptShipment after reading `shipments[]` back (Etsy emails
 *   the buyer on every shipment), the carrier as `getShippingCarriers` names
 *   it (EtsyCarriers.ts); a 403 on one receipt refuses that push only.
 * - Rate limits: one bucket per shop (Etsy counts private calls per OAuth
 *   token), one for the app's public calls (per API key).
 * - Receipts have no tags, notes or private fields: `annotate` does nothing.
 * - Webhooks: the published envelope or the flat form, each naming one
 *   receipt; Standard Webhooks signatures; only when a webhook secret is
 *   configured (commercial apps), otherwise `webhookPayload: "none"`.
 */
import { Effect, Either, Option } from "effect"
import { type ConnectorMaker, readBackOrder } from "../ConnectorAssembly.js"
import { pullSettingsOf } from "../ConnectorConfig.js"
import { walkOrders } from "../OverlapWalk.js"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { refuseOutsideReplayWindow } from "../WebhookAdmission.js"
import { baseUrlOf, ETSY_PULL_LIMITS, type EtsyConnectorConfig } from "./EtsyConfig.js"
import { makeEtsyCarriers } from "./EtsyCarriers.js"
import { makeEtsyFulfillmentPush } from "./EtsyFulfillment.js"
import { makeEtsyHttp } from "./EtsyHttp.js"
import { normalizeEtsyReceipt } from "./EtsyNormalize.js"
import { etsyWalk } from "./EtsyPull.js"
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

export const makeEtsyConnector: ConnectorMaker<EtsyConnectorConfig> = (config) =>
  Effect.gen(function*() {
    const { storeKey, shopId } = config
    const http = yield* makeEtsyHttp(config)
    const reader = makeEtsyReceiptReader({ storeKey, shopId, filter: config.receiptFilter ?? "paidUnshipped" }, http)
    const carriers = yield* makeEtsyCarriers({ storeKey, shopId, shipsFromCountry: config.shipsFromCountry }, http)
    const pushFulfillment = makeEtsyFulfillmentPush(
      { storeKey, shopId, shipmentBody: config.shipmentBody ?? "json" },
      http,
      reader,
      carriers
    )
    const walk = etsyWalk(pullSettingsOf(config, ETSY_PULL_LIMITS), reader)

    const getOrder: StoreConnector["getOrder"] = (storeOrderId) =>
      isReceiptId(storeOrderId)
        ? Effect.flatMap(
          reader.byId(storeOrderId),
          Option.match({
            onNone: () => Effect.succeedNone,
            onSome: (fetched) =>
              readBackOrder(
                storeKey,
                "getShopReceipt",
                fetched.raw,
                Either.flatMap(fetched.receipt, (receipt) => normalizeEtsyReceipt(storeKey, receipt, fetched.raw))
              )
          })
        )
        : Effect.succeedNone

    const connector: StoreConnector = {
      storeKey,
      platform: "etsy",
      apiAddress: baseUrlOf(config),
      capabilities: etsyCapabilities(config.webhookSecret !== undefined),
      pull: (cursor, options) => walkOrders(walk, cursor, options),
      getOrder,
      pushFulfillment,
      // Etsy receipts have no tags, notes or private fields; the pipeline keeps its own record.
      annotate: () => Effect.void,
      verifyWebhook: (delivery) => verifyEtsyWebhook(config, delivery),
      admitWebhook: refuseOutsideReplayWindow
    }
    return connector
  })
