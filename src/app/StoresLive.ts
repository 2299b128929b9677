import { HttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import type { StoreConfig } from "../config/AppConfig.js"
import { countStoreApiCalls } from "../observability/StoreApiMetrics.js"
import type { StoreSettings } from "../mapping/DraftPlan.js"
import { makeEtsyConnector } from "../stores/etsy/EtsyConnector.js"
import { makeJsonFeedConnector } from "../stores/jsonfeed/JsonFeedConnector.js"
import { makeShopifyConnector } from "../stores/shopify/ShopifyConnector.js"
import { makeWooCommerceConnector } from "../stores/woocommerce/WooCommerceConnector.js"
import { type StoreConnector, StoreConnectors } from "../stores/StoreConnector.js"

const unsupported = (store: StoreConfig) => Effect.dieMessage(`platform ${store.platform} (store ${store.key}) is not supported yet`)

const connectorFor = (store: StoreConfig): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> => {
  switch (store.platform) {
    case "shopify": {
      const s = store.shopify
      return makeShopifyConnector({
        storeKey: store.key,
        shop: s.shop,
        accessToken: s.accessToken,
        webhookSecret: s.webhookSecret,
        ...(s.previousWebhookSecret !== undefined ? { previousWebhookSecret: s.previousWebhookSecret } : {}),
        apiVersion: s.apiVersion,
        ...(s.baseUrl !== undefined ? { baseUrl: s.baseUrl } : {}),
        notifyCustomer: store.fulfillment.notifyCustomer
      })
    }
    case "woocommerce": {
      const w = store.woocommerce
      return makeWooCommerceConnector({
        storeKey: store.key,
        url: w.url,
        consumerKey: w.consumerKey,
        consumerSecret: w.consumerSecret,
        webhookSecret: w.webhookSecret,
        ...(w.previousWebhookSecret !== undefined ? { previousWebhookSecret: w.previousWebhookSecret } : {}),
        ...(w.pageSize !== undefined ? { pageSize: w.pageSize } : {}),
        ...(w.overlapSeconds !== undefined ? { overlapSeconds: w.overlapSeconds } : {}),
        ...(w.minRequestIntervalMs !== undefined ? { minRequestIntervalMs: w.minRequestIntervalMs } : {}),
        ...(w.trackingMode !== undefined ? { trackingMode: w.trackingMode } : {})
      })
    }
    case "jsonfeed": {
      const j = store.jsonfeed
      return makeJsonFeedConnector({
        storeKey: store.key,
        baseUrl: j.baseUrl,
        token: j.token,
        webhookSecret: j.webhookSecret,
        notifyCustomer: store.fulfillment.notifyCustomer,
        ...(j.previousWebhookSecret !== undefined ? { previousWebhookSecret: j.previousWebhookSecret } : {}),
        ...(j.pageSize !== undefined ? { pageSize: j.pageSize } : {}),
        ...(j.overlapSeconds !== undefined ? { overlapSeconds: j.overlapSeconds } : {}),
        ...(j.requestsPerSecond !== undefined ? { requestsPerSecond: j.requestsPerSecond } : {})
      })
    }
    case "etsy": {
      const e = store.etsy
      return makeEtsyConnector({
        storeKey: store.key,
        shopId: e.shopId,
        keystring: e.keystring,
        sharedSecret: e.sharedSecret,
        refreshToken: e.refreshToken,
        ...(e.baseUrl !== undefined ? { baseUrl: e.baseUrl } : {}),
        ...(e.webhookSecret !== undefined ? { webhookSecret: e.webhookSecret } : {}),
        ...(e.previousWebhookSecret !== undefined ? { previousWebhookSecret: e.previousWebhookSecret } : {}),
        ...(e.receiptFilter !== undefined ? { receiptFilter: e.receiptFilter } : {}),
        ...(e.pageSize !== undefined ? { pageSize: e.pageSize } : {}),
        ...(e.overlapSeconds !== undefined ? { overlapSeconds: e.overlapSeconds } : {}),
        ...(e.dailyReserve !== undefined ? { dailyReserve: e.dailyReserve } : {}),
        // Etsy may rotate refresh tokens; the newest is kept in memory and must not be lost silently.
        onRefreshTokenRotated: () =>
          Effect.logWarning("Etsy rotated the refresh token: podsync keeps the new one in memory until restart; update etsy.refreshToken").pipe(
            Effect.annotateLogs({ store: store.key })
          )
      })
    }
    default:
      // `store` is `never` here while every platform has a case; kept for a platform added later.
      return unsupported(store)
  }
}

/** One connector per configured store, by store key. */
export const StoresLive = (stores: ReadonlyArray<StoreConfig>) =>
  Layer.effect(
    StoreConnectors,
    Effect.map(
      Effect.forEach(stores, (store) =>
        connectorFor(store).pipe(
          // Store API calls counted for /metrics when the metrics are provided.
          Effect.provideServiceEffect(HttpClient.HttpClient, countStoreApiCalls(store.key, store.platform)),
          Effect.map((c) => [store.key, c] as const)
        )),
      (entries) => new Map(entries)
    )
  )

/** The planner's view of a store's configuration. */
export const storeSettingsOf = (store: StoreConfig): StoreSettings => ({
  storeKey: store.key,
  platform: store.platform,
  podStoreId: store.podStoreId,
  shipping: store.shipping,
  eligibleFinancialStatuses: store.eligible.financialStatuses,
  billing: store.billing
})
