import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Layer } from "effect"
import type { StoreConfig } from "../config/StoreConfig.js"
import { countStoreApiCalls } from "../observability/StoreApiMetrics.js"
import { reportStoreHealth } from "./DependencyReports.js"
import type { StoreSettings } from "../mapping/DraftPlan.js"
import { makeEtsyConnector } from "../stores/etsy/EtsyConnector.js"
import { makeJsonFeedConnector } from "../stores/jsonfeed/JsonFeedConnector.js"
import { makeShopifyConnector } from "../stores/shopify/ShopifyConnector.js"
import { makeWooCommerceConnector } from "../stores/woocommerce/WooCommerceConnector.js"
import { type StoreConnector, StoreConnectors } from "../stores/StoreConnector.js"
import { Db } from "../db/Db.js"
import { reportStoreThrottling } from "../observability/StoreThrottling.js"
import { makeSqlStoreBuckets } from "../repos/SqlStoreBucket.js"
import type { StoreBudgetConfig } from "../stores/ConnectorConfig.js"

const unsupported = (store: StoreConfig) => Effect.dieMessage(`platform ${store.platform} (store ${store.key}) is not supported yet`)

/**
 * A store's API budget in the database, shared by every replica and command using its credential
 * (ARCHITECTURE.md, rate budget 6), and its throttling counted and logged.
 */
const budgetOf = (store: StoreConfig): Effect.Effect<StoreBudgetConfig, never, Db> =>
  Effect.gen(function*() {
    const db = yield* Db
    // The root handle: a bucket's statements never join a caller's transaction.
    return { buckets: makeSqlStoreBuckets(db.kysely), onThrottled: yield* reportStoreThrottling(store.key, store.platform) }
  })

const connectorFor = (store: StoreConfig): Effect.Effect<StoreConnector, never, HttpClient.HttpClient | Db> =>
  Effect.flatMap(budgetOf(store), (budget) => platformConnector(store, budget))

// A store's config section (optional settings absent, never undefined) is its connector's config as it is.
const platformConnector = (store: StoreConfig, budget: StoreBudgetConfig): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> => {
  switch (store.platform) {
    case "shopify":
      return makeShopifyConnector({ storeKey: store.key, ...store.shopify, notifyCustomer: store.fulfillment.notifyCustomer, ...budget })
    case "woocommerce":
      return makeWooCommerceConnector({ storeKey: store.key, ...store.woocommerce, ...budget })
    case "jsonfeed":
      return makeJsonFeedConnector({ storeKey: store.key, ...store.jsonfeed, notifyCustomer: store.fulfillment.notifyCustomer })
    case "etsy":
      return makeEtsyConnector({
        storeKey: store.key,
        ...store.etsy,
        ...budget,
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

/** One connector per configured store, by store key; their API budgets in the database (needs `Db`). */
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
