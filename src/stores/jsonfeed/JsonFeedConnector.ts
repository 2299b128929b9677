/**
 * The JSON feed adapter of the store port (`platform: jsonfeed`): a custom
 * storefront or marketplace that implements the REST contract podsync
 * defines in docs/jsonfeed.md. Built once per configured store.
 */
import { Effect } from "effect"
import type { ConnectorMaker } from "../ConnectorAssembly.js"
import { pullSettingsOf } from "../ConnectorConfig.js"
import { walkOrders } from "../OverlapWalk.js"
import type { StoreCapabilities, StoreConnector } from "../StoreConnector.js"
import { refuseOutsideReplayWindow } from "../WebhookAdmission.js"
import { JSON_FEED_PULL_LIMITS, type JsonFeedConnectorConfig } from "./JsonFeedConfig.js"
import { makeJsonFeedFulfillmentPush } from "./JsonFeedFulfillment.js"
import { makeJsonFeedHttp } from "./JsonFeedHttp.js"
import { makeJsonFeedOrderReader } from "./JsonFeedOrders.js"
import { jsonFeedWalk } from "./JsonFeedPull.js"
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

export const makeJsonFeedConnector: ConnectorMaker<JsonFeedConnectorConfig> = (config) =>
  Effect.gen(function*() {
    const { storeKey } = config
    const http = yield* makeJsonFeedHttp(config)
    const reader = makeJsonFeedOrderReader(storeKey, http)
    const walk = jsonFeedWalk(pullSettingsOf(config, JSON_FEED_PULL_LIMITS), http)
    const connector: StoreConnector = {
      storeKey,
      platform: "jsonfeed",
      apiAddress: config.baseUrl,
      capabilities: jsonFeedCapabilities,
      pull: (cursor, options) => walkOrders(walk, cursor, options),
      getOrder: reader.byId,
      pushFulfillment: makeJsonFeedFulfillmentPush({ storeKey, notifyCustomer: config.notifyCustomer }, http, reader),
      // Repeatable without harm because it does nothing: see `annotations` above.
      annotate: () => Effect.void,
      verifyWebhook: (delivery) => verifyJsonFeedWebhook(config, delivery),
      admitWebhook: refuseOutsideReplayWindow
    }
    return connector
  })
