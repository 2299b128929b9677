/**
 * The Shopify adapter of the store port, on the GraphQL Admin API only, at
 * the pinned `apiVersion`. Built once per configured Shopify store.
 */
import type { HttpClient } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import type { Annotation } from "../../domain/StoreTypes.js"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { keepBody, StoreApiError, type StoreError, StoreResponseError } from "../StoreErrors.js"
import { DEFAULT_OVERLAP_SECONDS, DEFAULT_PAGE_SIZE, type ShopifyConnectorConfig } from "./ShopifyConfig.js"
import { makeShopifyFulfillmentPush } from "./ShopifyFulfillment.js"
import { makeShopifyGraphql } from "./ShopifyGraphql.js"
import { normalizeShopifyOrder } from "./ShopifyNormalize.js"
import { makeShopifyOrderReader, rawOrder } from "./ShopifyOrders.js"
import { pullShopifyOrders } from "./ShopifyPull.js"
import { ANNOTATE, isLegacyOrderId, METAFIELDS_SET, orderGid, TAGS_ADD } from "./ShopifyQueries.js"
import { AnnotateData, MetafieldsSetData, type ShopifyOrder, TagsAddData } from "./ShopifySchemas.js"
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

/** Namespace of the connector's metafields (`podsync.draft` holds the draft id). */
export const METAFIELD_NAMESPACE = "podsync"

export const makeShopifyConnector = (
  config: ShopifyConnectorConfig
): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const { storeKey } = config
    const graphql = yield* makeShopifyGraphql(config)
    const reader = makeShopifyOrderReader(storeKey, graphql)
    const pushFulfillment = makeShopifyFulfillmentPush({ storeKey, notifyCustomer: config.notifyCustomer }, graphql)
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

    const userErrorsFail = (operation: string, errors: ReadonlyArray<{ message: string }>) =>
      errors.length === 0 ? Effect.void : Effect.fail(new StoreApiError({ storeKey, operation, messages: errors.map((e) => e.message) }))

    const annotate = (storeOrderId: string, annotation: Annotation): Effect.Effect<void, StoreError> =>
      Effect.gen(function* () {
        if (!isLegacyOrderId(storeOrderId)) {
          return yield* new StoreApiError({ storeKey, operation: "annotate", messages: [`"${storeOrderId}" is not a Shopify order id`] })
        }
        const id = orderGid(storeOrderId)
        const metafields = annotation.field === undefined ? undefined : [{
          ownerId: id,
          namespace: METAFIELD_NAMESPACE,
          key: annotation.field.key,
          type: "single_line_text_field",
          value: annotation.field.value
        }]
        if (metafields !== undefined && annotation.tag !== undefined) {
          // One request for both; the private field first: it is what podsync itself reads, the tag is for the seller's eyes.
          const { metafieldsSet, tagsAdd } = yield* graphql.run({
            name: "annotate",
            document: ANNOTATE,
            variables: { metafields, id, tags: [annotation.tag] },
            data: AnnotateData,
            mutation: true,
            estimatedCost: 20
          })
          yield* userErrorsFail("metafieldsSet", metafieldsSet?.userErrors ?? [])
          return yield* userErrorsFail("tagsAdd", tagsAdd?.userErrors ?? [])
        }
        if (metafields !== undefined) {
          const { metafieldsSet } = yield* graphql.run({
            name: "metafieldsSet",
            document: METAFIELDS_SET,
            variables: { metafields },
            data: MetafieldsSetData,
            mutation: true,
            estimatedCost: 10
          })
          yield* userErrorsFail("metafieldsSet", metafieldsSet?.userErrors ?? [])
        }
        if (annotation.tag !== undefined) {
          const { tagsAdd } = yield* graphql.run({
            name: "tagsAdd",
            document: TAGS_ADD,
            variables: { id, tags: [annotation.tag] },
            data: TagsAddData,
            mutation: true,
            estimatedCost: 10
          })
          yield* userErrorsFail("tagsAdd", tagsAdd?.userErrors ?? [])
        }
      })

    const connector: StoreConnector = {
      storeKey,
      platform: "shopify",
      capabilities: shopifyCapabilities,
      pull: (cursor, options) => pullShopifyOrders(settings, reader, cursor, options),
      getOrder,
      pushFulfillment,
      annotate,
      verifyWebhook: (delivery) => verifyShopifyWebhook(config, delivery)
    }
    return connector
  })
