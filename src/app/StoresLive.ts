import * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Layer, type Redacted } from "effect"
import type { StoreConfig } from "../config/StoreConfig.js"
import { countStoreApiCalls } from "../observability/StoreApiMetrics.js"
import { reportStoreHealth } from "./DependencyReports.js"
import type { StoreSettings } from "../mapping/DraftPlan.js"
import { makeEtsyConnector } from "../stores/etsy/EtsyConnector.js"
import { etsyCredentialRefusal } from "../stores/etsy/EtsyHttp.js"
import { makeJsonFeedConnector } from "../stores/jsonfeed/JsonFeedConnector.js"
import { makeShopifyConnector } from "../stores/shopify/ShopifyConnector.js"
import { makeWooCommerceConnector } from "../stores/woocommerce/WooCommerceConnector.js"
import { wooCredentialRefusal } from "../stores/woocommerce/WooHttp.js"
import { type CredentialRefusal, type StoreConnector, StoreConnectors } from "../stores/StoreConnector.js"
import { Db } from "../db/Db.js"
import { reportStoreThrottling } from "../observability/StoreThrottling.js"
import { makeSqlStoreBuckets } from "../repos/SqlStoreBucket.js"
import type { StoreBudgetConfig } from "../stores/ConnectorConfig.js"
import type { StoreBuckets } from "../domain/StoreBucket.js"
import { inMemoryStoreBuckets } from "../stores/InMemoryStoreBucket.js"
import { makeInMemoryStoreTokens } from "../stores/InMemoryStoreTokens.js"
import { makeSqlStoreTokens } from "../repos/SqlStoreTokens.js"
import type { StoreTokenStore } from "../domain/StoreToken.js"
import type { ShopifyAppCredentials } from "../stores/shopify/ShopifyConfig.js"

const unsupported = (store: StoreConfig) => Effect.dieMessage(`platform ${store.platform} (store ${store.key}) is not supported yet`)

/** A store's throttling counted and logged, and its API budget in `buckets`. */
const budgetOf = (store: StoreConfig, buckets: StoreBuckets): Effect.Effect<StoreBudgetConfig> =>
  Effect.map(reportStoreThrottling(store.key, store.platform), (onThrottled) => ({ buckets, onThrottled }))

/** Where the stores' API budgets and tokens are kept: the database (shared by replicas) or this process's memory. */
interface SharedState {
  readonly buckets: StoreBuckets
  readonly tokens: StoreTokenStore
  /** Whether the tokens outlive this process (the database): else Etsy's refresh token is not spent. */
  readonly tokensKept: boolean
}

const connectorFor = (store: StoreConfig, shared: SharedState): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> =>
  Effect.flatMap(
    budgetOf(store, shared.buckets),
    (budget) => platformConnector(store, { ...budget, tokens: shared.tokens }, shared.tokensKept)
  )

type ShopifySection = Extract<StoreConfig, { readonly platform: "shopify" }>["shopify"]

/** The app's credentials as the config gives them (decoding has refused any other mix). */
const shopifyAppCredentials = (section: ShopifySection): ShopifyAppCredentials => {
  if (section.accessToken !== undefined) return { accessToken: section.accessToken }
  if (section.clientId !== undefined && section.clientSecret !== undefined) {
    return { clientId: section.clientId, clientSecret: section.clientSecret }
  }
  throw new Error("unreachable: the configuration's shopify section has neither accessToken nor clientId and clientSecret")
}

/** The key the store's webhooks are signed with: the configured one, else the app's client secret (Shopify's own default). */
const shopifyWebhookSecret = (section: ShopifySection): Redacted.Redacted<string> => {
  const secret = section.webhookSecret ?? section.clientSecret
  if (secret === undefined) throw new Error("unreachable: a static accessToken comes with a webhookSecret")
  return secret
}

// A store's config section (optional settings absent, never undefined) is its connector's config as it is.
const platformConnector = (
  store: StoreConfig,
  budget: StoreBudgetConfig & { readonly tokens: StoreTokenStore },
  tokensKept: boolean
): Effect.Effect<StoreConnector, never, HttpClient.HttpClient> => {
  switch (store.platform) {
    case "shopify": {
      const { accessToken: _token, clientId: _id, clientSecret: _secret, webhookSecret: _webhook, ...settings } = store.shopify
      return makeShopifyConnector({
        storeKey: store.key,
        ...settings,
        ...shopifyAppCredentials(store.shopify),
        webhookSecret: shopifyWebhookSecret(store.shopify),
        notifyCustomer: store.fulfillment.notifyCustomer,
        ...budget
      })
    }
    case "woocommerce":
      return makeWooCommerceConnector({ storeKey: store.key, ...store.woocommerce, ...budget })
    case "jsonfeed":
      return makeJsonFeedConnector({ storeKey: store.key, ...store.jsonfeed, notifyCustomer: store.fulfillment.notifyCustomer })
    case "etsy":
      return makeEtsyConnector({
        storeKey: store.key,
        ...store.etsy,
        // Etsy issues a new refresh token at every refresh: the newest is kept with the access token in `tokens`.
        ...budget,
        refreshTokenKept: tokensKept
      })
    default:
      // `store` is `never` here while every platform has a case; kept for a platform added later.
      return unsupported(store)
  }
}

/** Which of a platform's 401/403 answers refuse the store's credentials (see `CredentialRefusal`); all, unless said here. */
const credentialRefusalOf = (store: StoreConfig): CredentialRefusal | undefined => {
  switch (store.platform) {
    case "woocommerce":
      return wooCredentialRefusal(store.woocommerce.authentication ?? "auto")
    case "etsy":
      return etsyCredentialRefusal
    default:
      return undefined
  }
}

const connectorsLayer = (stores: ReadonlyArray<StoreConfig>, shared: SharedState) =>
  Layer.effect(
    StoreConnectors,
    Effect.map(
      Effect.forEach(stores, (store) =>
        connectorFor(store, shared).pipe(
          // Store API calls counted for /metrics, and their outcomes reported to the daemon's health, when those are provided.
          Effect.provideServiceEffect(HttpClient.HttpClient, countStoreApiCalls(store.key, store.platform)),
          Effect.provideServiceEffect(HttpClient.HttpClient, reportStoreHealth(store.key, credentialRefusalOf(store))),
          Effect.map((c) => [store.key, c] as const)
        )),
      (entries) => new Map(entries)
    )
  )

/**
 * One connector per configured store, by store key; their API budgets in the database, shared by
 * every replica and command using the credential (ARCHITECTURE.md, rate budget 6). Needs `Db`.
 */
export const StoresLive = (stores: ReadonlyArray<StoreConfig>) =>
  Layer.unwrapEffect(
    // The root handle: a bucket's statements never join a caller's transaction.
    Effect.map(Db, (db) =>
      connectorsLayer(stores, {
        buckets: makeSqlStoreBuckets(db.kysely),
        tokens: makeSqlStoreTokens(db.kysely),
        tokensKept: true
      }))
  )

/** The same with each credential's budget and token in this process's memory: `check` where there is no database to share. */
export const StoresInMemoryBudgetsLive = (stores: ReadonlyArray<StoreConfig>) =>
  Layer.unwrapEffect(
    Effect.sync(() => connectorsLayer(stores, { buckets: inMemoryStoreBuckets, tokens: makeInMemoryStoreTokens(), tokensKept: false }))
  )

/** The planner's view of a store's configuration. */
export const storeSettingsOf = (store: StoreConfig): StoreSettings => ({
  storeKey: store.key,
  platform: store.platform,
  podStoreId: store.podStoreId,
  shipping: store.shipping,
  eligibleFinancialStatuses: store.eligible.financialStatuses,
  mappingFile: store.mappings,
  billing: store.billing
})
