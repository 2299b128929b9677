/**
 * The Shopify adapter of the store port, on the GraphQL Admin API only, at
 * the pinned `apiVersion`. Built once per configured Shopify store.
 */
import type { HttpClient } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { keepBody, StoreResponseError } from "../StoreErrors.js"
import { makeShopifyAnnotations } from "./ShopifyAnnotations.js"
import { DEFAULT_OVERLAP_SECONDS, DEFAULT_PAGE_SIZE, type ShopifyConnectorConfig } from "./ShopifyConfig.js"
import { makeShopifyFulfillment } from "./ShopifyFulfillment.js"
import { makeShopifyFulfillmentBatch } from "./ShopifyFulfillmentBatch.js"
import { makeShopifyGraphql } from "./ShopifyGraphql.js"
import { normalizeShopifyOrder } from "./ShopifyNormalize.js"
import { makeShopifyOrderReader, rawOrder } from "./ShopifyOrders.js"
import { pullShopifyOrders } from "./ShopifyPull.js"
import { isLegacyOrderId } from "./ShopifyQueries.js"
import type { ShopifyOrder } from "./ShopifySchemas.js"
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

export const makeShopifyConnector = (
  config: ShopifyConnectorConfig
): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const { storeKey } = config
    const graphql = yield* makeShopifyGraphql(config)
    const reader = makeShopifyOrderReader(storeKey, graphql)
    const fulfillment = makeShopifyFulfillment({ storeKey, notifyCustomer: config.notifyCustomer }, graphql)
    const annotations = makeShopifyAnnotations(storeKey, graphql)
    const settings = {
      storeKey,
      pageSize: config.pageSize ?? DEFAULT_PAGE_SIZE,
      overlapSeconds: config.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS
    }

    const normalizeFetched = (order: ShopifyOrder) =>
      Either.match(normalizeShopifyOrder(storeKey, order, rawOrder(order)), {
        onRight: (normalized) => Effect.succeedSome(normalized),
        onLeft: (problem) =>
          Effect.fail(
            new StoreResponseError({
              storeKey,
              operation: "order",
              ambiguous: false,
              status: 200,
              body: keepBody(JSON.stringify(rawOrder(order))),
              detail: problem
            })
          )
      })

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
      capabilities: shopifyCapabilities,
      pull: (cursor, options) => pullShopifyOrders(settings, reader, cursor, options),
      getOrder,
      pushFulfillment: fulfillment.pushFulfillment,
      pushFulfillments: makeShopifyFulfillmentBatch(storeKey, graphql, fulfillment),
      annotate: annotations.annotate,
      annotateMany: annotations.annotateMany,
      verifyWebhook: (delivery) => verifyShopifyWebhook(config, delivery)
    }
    return connector
  })
