/**
 * The JSON feed adapter of the store port (`platform: jsonfeed`): a custom
 * storefront or marketplace that implements the REST contract podsync
 * defines in docs/jsonfeed.md. Built once per configured store.
 */
import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { DEFAULT_OVERLAP_SECONDS, DEFAULT_PAGE_SIZE, type JsonFeedConnectorConfig, MAX_PAGE_SIZE } from "./JsonFeedConfig.js"
import { makeJsonFeedFulfillmentPush } from "./JsonFeedFulfillment.js"
import { makeJsonFeedHttp } from "./JsonFeedHttp.js"
import { makeJsonFeedOrderReader } from "./JsonFeedOrders.js"
import { pullJsonFeedOrders } from "./JsonFeedPull.js"
import { verifyJsonFeedWebhook } from "./JsonFeedWebhooks.js"

export const jsonFeedCapabilities: StoreCapabilities = {
  fulfillmentGranularity: "line",
  partialFulfillment: true,
  multiplePackages: true,
  pushNotifiesBuyer: "optional",
  // The contract has no annotation endpoint: podsync keeps its marks on its side, and writes only fulfilments.
  annotations: [],
  holds: true,
  // Deliveries carry the order id and version only; podsync reads the order itself.
  webhookPayload: "thin"
}

export const makeJsonFeedConnector = (
  config: JsonFeedConnectorConfig
): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const { storeKey } = config
    const http = yield* makeJsonFeedHttp(config)
    const reader = makeJsonFeedOrderReader(storeKey, http)
    const settings = {
      storeKey,
      pageSize: Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(config.pageSize ?? DEFAULT_PAGE_SIZE))),
      overlapSeconds: config.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS
    }
    const connector: StoreConnector = {
      storeKey,
      platform: "jsonfeed",
      capabilities: jsonFeedCapabilities,
      pull: (cursor, options) => pullJsonFeedOrders(settings, http, cursor, options),
      getOrder: reader.byId,
      pushFulfillment: makeJsonFeedFulfillmentPush({ storeKey, notifyCustomer: config.notifyCustomer }, http, reader),
      // Repeatable without harm because it does nothing: see `annotations` above.
      annotate: () => Effect.void,
      verifyWebhook: (delivery) => verifyJsonFeedWebhook(config, delivery)
    }
    return connector
  })
