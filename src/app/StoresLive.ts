import { HttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import type { StoreConfig } from "../config/AppConfig.js"
import { countStoreApiCalls } from "../observability/StoreApiMetrics.js"
import { reportStoreHealth } from "./DependencyReports.js"
import type { StoreSettings } from "../mapping/DraftPlan.js"
import { makeEtsyConnector } from "../stores/etsy/EtsyConnector.js"
import { makeJsonFeedConnector } from "../stores/jsonfeed/JsonFeedConnector.js"
import { makeShopifyConnector } from "../stores/shopify/ShopifyConnector.js"
import { makeWooCommerceConnector } from "../stores/woocommerce/WooCommerceConnector.js"
import { type StoreConnector, StoreConnectors } from "../stores/StoreConnector.js"

const unsupported = (store: StoreConfig) => Effect.dieMessage(`platform ${store.platform} (store ${store.key}) is not supported yet`)

// A store's config section (optional settings absent, never undefined) is its connector's config as it is.
const connectorFor = (store: StoreConfig): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> => {
  switch (store.platform) {
    case "shopify":
      return makeShopifyConnector({ storeKey: store.key, ...store.shopify, notifyCustomer: store.fulfillment.notifyCustomer })
    case "woocommerce":
      return makeWooCommerceConnector({ storeKey: store.key, ...store.woocommerce })
    case "jsonfeed":
      return makeJsonFeedConnector({ storeKey: store.key, ...store.jsonfeed, notifyCustomer: store.fulfillment.notifyCustomer })
    case "etsy":
      return makeEtsyConnector({
        storeKey: store.key,
        ...store.etsy,
        // Etsy may rotate refresh tokens; the newest is kept in memory and must not be lost silently.
        onRefreshTokenRotated: () =>
          Effect.logWarning("Etsy rotated the refresh token: podsync keeps the new one in memory until restart; update etsy.refreshToken")
            .pipe(
              Effect.annotateLogs({ store: store.key })
            )
      })
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
          // Store API calls counted for /metrics, and their outcomes reported to the daemon's health, when those are provided.
          Effect.provideServiceEffect(HttpClient.HttpClient, countStoreApiCalls(store.key, store.platform)),
          Effect.provideServiceEffect(HttpClient.HttpClient, reportStoreHealth(store.key)),
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
