/**
 * The Shopify adapter of the store port, on the GraphQL Admin API only, at
 * the pinned `apiVersion`. Built once per configured Shopify store.
 */
import { Effect, Option } from "effect"
import { type ConnectorMaker, readBackOrder } from "../ConnectorAssembly.js"
import { pullSettingsOf } from "../ConnectorConfig.js"
import { walkOrders } from "../OverlapWalk.js"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { acceptEvery } from "../WebhookAdmission.js"
import { makeShopifyAccess } from "./ShopifyAccess.js"
import { makeShopifyAnnotations } from "./ShopifyAnnotations.js"
import { SHOPIFY_PULL_LIMITS, type ShopifyConnectorConfig } from "./ShopifyConfig.js"
import { makeShopifyFulfillment } from "./ShopifyFulfillment.js"
import { makeShopifyFulfillmentBatch } from "./ShopifyFulfillmentBatch.js"
import { makeShopifyGraphql } from "./ShopifyGraphql.js"
import { normalizeReadOrder } from "./ShopifyNormalize.js"
import { makeShopifyOrderReader, rawOrder, type ReadOrder } from "./ShopifyOrders.js"
import { shopifyWalk } from "./ShopifyPull.js"
import { isLegacyOrderId } from "./ShopifyQueries.js"
import { verifyShopifyWebhook } from "./ShopifyWebhooks.js"

export const shopifyCapabilities: StoreCapabilities = {
  fulfillmentGranularity: "fulfillmentOrderLine",
  partialFulfillment: true,
  multiplePackages: true,
  pushNotifiesBuyer: "optional",
  // Shopify has no private order note through the API (orderUpdate.note overwrites the buyer's note).
  annotations: ["tag", "field"],
  holds: true,
  webhookPayload: "full"
}

export { METAFIELD_NAMESPACE } from "./ShopifyAnnotations.js"

export const makeShopifyConnector: ConnectorMaker<ShopifyConnectorConfig> = (config) =>
  Effect.gen(function*() {
    const { storeKey } = config
    const graphql = yield* makeShopifyGraphql(config)
    const reader = makeShopifyOrderReader(storeKey, graphql)
    const access = makeShopifyAccess(graphql)
    const fulfillment = makeShopifyFulfillment(
      { storeKey, notifyCustomer: config.notifyCustomer, unknownOrderHint: access.unknownOrderHint },
      graphql
    )
    const annotations = makeShopifyAnnotations(storeKey, graphql)
    const walk = shopifyWalk(pullSettingsOf(config, SHOPIFY_PULL_LIMITS), reader)
    const normalizeFetched = (read: ReadOrder) => readBackOrder(storeKey, "order", rawOrder(read.order), normalizeReadOrder(storeKey, read))

    const getOrder: StoreConnector["getOrder"] = (storeOrderId) =>
      isLegacyOrderId(storeOrderId)
        ? Effect.flatMap(
          reader.byId(storeOrderId),
          Option.match({ onNone: () => Effect.succeedNone, onSome: normalizeFetched })
        )
        : Effect.succeedNone

    const connector: StoreConnector = {
      storeKey,
      platform: "shopify",
      apiAddress: config.baseUrl ?? `https://${config.shop}`,
      capabilities: shopifyCapabilities,
      pull: (cursor, options) => walkOrders(walk, cursor, options),
      getOrder,
      pushFulfillment: fulfillment.pushFulfillment,
      pushFulfillments: makeShopifyFulfillmentBatch(storeKey, graphql, fulfillment),
      annotate: annotations.annotate,
      annotateMany: annotations.annotateMany,
      checkAccess: access.checkAccess,
      verifyWebhook: (delivery) => verifyShopifyWebhook(config, delivery),
      admitWebhook: acceptEvery
    }
    return connector
  })
