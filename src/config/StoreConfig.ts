import { Schema } from "effect"
import { IntLike, NumberLike, optional as optionalWith, Secret, Url, withDefault } from "./ConfigSchemas.js"

/**
 * `stores:` of the configuration file (contract: ARCHITECTURE.md "Configuration"): one entry per
 * store, with its platform's section, shipping, fulfilment and billing. AppConfig decodes the list.
 */

/** A store's key (`stores[].key`): lower-case, and the path its webhooks come to (POST /webhooks/<key>). */
export const StoreKey = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9-]+$/, { message: () => "expected lower-case letters, digits and dashes ([a-z0-9-]+)" }),
  Schema.maxLength(64),
  // POST /webhooks/pod is the POD service's: a store with that key could never get its webhooks.
  Schema.filter((key) => key !== "pod" || `"pod" is reserved (POST /webhooks/pod receives the POD service's webhooks)`)
)

export const ShippingMethod = Schema.Literal("METHOD_STANDARD", "METHOD_GROUND", "METHOD_FAST_SHIP", "METHOD_STAMP", "METHOD_ECONOMY")

/**
 * What to do with an Economy order to a US ZIP the Economy carrier does not serve: send it as
 * Standard (what the service itself would do, at the Standard price), or hold it for a person.
 */
export const EconomyUncovered = Schema.Literal("standard", "hold")

/** The secret a store signs its webhooks with, and the one before it while a rotation is under way. */
const WebhookSecrets = { webhookSecret: Secret, previousWebhookSecret: optionalWith(Secret) }

/** How a store's orders are pulled: the page size (up to the platform's maximum) and how far back each pull looks again. */
const pullWindow = (maxPageSize: number) => ({
  pageSize: optionalWith(IntLike.pipe(Schema.between(1, maxPageSize))),
  overlapSeconds: optionalWith(IntLike.pipe(Schema.between(0, 86_400)))
})

/**
 * A Shopify app's credentials: a Dev Dashboard app's client id and secret (tokens come from the
 * client credentials grant and expire; since 2026-01-01 the only way a seller gets a new app), or a
 * legacy custom app's static `accessToken`. Exactly one of the two; the webhook secret defaults to
 * the client secret (Shopify signs an app's webhooks with it) and is required with a static token.
 */
const ShopifyFields = Schema.Struct({
  shop: Schema.NonEmptyTrimmedString.pipe(
    Schema.pattern(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, {
      message: () => "expected the shop's myshopify domain, e.g. acme.myshopify.com"
    })
  ),
  accessToken: optionalWith(Secret),
  clientId: optionalWith(Schema.NonEmptyTrimmedString),
  clientSecret: optionalWith(Secret),
  webhookSecret: optionalWith(Secret),
  previousWebhookSecret: optionalWith(Secret),
  apiVersion: withDefault(Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}$/, { message: () => "expected YYYY-MM" })), () => "2026-10"),
  baseUrl: Schema.optionalWith(Url, { exact: true })
})

/** What is wrong with a Shopify section's credentials, at which key; undefined when they are whole. */
export const shopifyCredentialsIssue = (
  s: Pick<typeof ShopifyFields.Type, "accessToken" | "clientId" | "clientSecret" | "webhookSecret">
): { readonly path: ReadonlyArray<string>; readonly message: string } | undefined => {
  const app = s.clientId !== undefined || s.clientSecret !== undefined
  if (s.accessToken !== undefined && app) {
    return {
      path: ["accessToken"],
      message: "give either accessToken (a legacy custom app's token) or clientId and clientSecret (a Dev Dashboard app), not both"
    }
  }
  if (s.accessToken === undefined && !app) {
    return {
      path: [],
      message: "expected clientId and clientSecret (a Dev Dashboard app: Settings shows both), or accessToken (a legacy custom app's token)"
    }
  }
  if (app && s.clientId === undefined) return { path: ["clientId"], message: "is missing: clientSecret comes with the app's clientId" }
  if (app && s.clientSecret === undefined) {
    return { path: ["clientSecret"], message: "is missing: clientId comes with the app's clientSecret" }
  }
  if (s.accessToken !== undefined && s.webhookSecret === undefined) {
    return {
      path: ["webhookSecret"],
      message: "is missing: with a static accessToken, give the key the store's webhooks are signed with (its app's API secret key)"
    }
  }
  return undefined
}

const ShopifySection = ShopifyFields.pipe(
  Schema.filter((s) => {
    const issue = shopifyCredentialsIssue(s)
    return issue === undefined || { path: issue.path, message: issue.message }
  })
)

const WooCommerceSection = Schema.Struct({
  url: Url,
  homeUrl: optionalWith(Url),
  consumerKey: Secret,
  consumerSecret: Secret,
  authentication: optionalWith(Schema.Literal("auto", "header", "query")),
  ...WebhookSecrets,
  ...pullWindow(100),
  minRequestIntervalMs: optionalWith(IntLike.pipe(Schema.between(0, 60_000))),
  trackingMode: optionalWith(Schema.Literal("auto", "shipment-tracking", "note"))
})

const EtsySection = Schema.Struct({
  shopId: Schema.NonEmptyTrimmedString,
  keystring: Secret,
  sharedSecret: Secret,
  refreshToken: Secret,
  baseUrl: Schema.optionalWith(Url, { exact: true }),
  webhookSecret: optionalWith(Secret),
  previousWebhookSecret: optionalWith(Secret),
  receiptFilter: optionalWith(Schema.Literal("paidUnshipped", "all")),
  ...pullWindow(100),
  dailyReserve: optionalWith(IntLike.pipe(Schema.between(0, 10_000))),
  shipsFromCountry: optionalWith(
    Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "expected a two-letter country code (ISO 3166-1), e.g. US" }))
  )
})

const JsonFeedSection = Schema.Struct({
  baseUrl: Url,
  token: Secret,
  ...WebhookSecrets,
  ...pullWindow(250),
  requestsPerSecond: optionalWith(NumberLike.pipe(Schema.between(0, 1000)))
})

export const Platform = Schema.Literal("shopify", "woocommerce", "etsy", "jsonfeed").annotations({
  message: (issue) => ({
    message: `expected one of shopify, woocommerce, etsy, jsonfeed; got ${JSON.stringify(issue.actual)}`,
    override: true
  })
})

const StoreFields = Schema.Struct({
  key: StoreKey,
  platform: Platform,
  podStoreId: Schema.NonEmptyTrimmedString,
  shopify: Schema.optionalWith(ShopifySection, { exact: true }),
  woocommerce: Schema.optionalWith(WooCommerceSection, { exact: true }),
  etsy: Schema.optionalWith(EtsySection, { exact: true }),
  jsonfeed: Schema.optionalWith(JsonFeedSection, { exact: true }),
  mappings: Schema.NonEmptyTrimmedString,
  shipping: withDefault(
    Schema.Struct({
      default: withDefault(ShippingMethod, () => "METHOD_STANDARD" as const),
      byTitle: withDefault(Schema.Record({ key: Schema.String, value: ShippingMethod }), () => ({})),
      economyUncovered: withDefault(EconomyUncovered, () => "standard" as const)
    }),
    () => ({ default: "METHOD_STANDARD" as const, byTitle: {}, economyUncovered: "standard" as const })
  ),
  fulfillment: withDefault(
    Schema.Struct({ notifyCustomer: withDefault(Schema.Boolean, () => true) }),
    () => ({ notifyCustomer: true })
  ),
  eligible: withDefault(
    Schema.Struct({ financialStatuses: withDefault(Schema.Array(Schema.NonEmptyTrimmedString), () => ["PAID", "PARTIALLY_REFUNDED"]) }),
    () => ({ financialStatuses: ["PAID", "PARTIALLY_REFUNDED"] })
  ),
  billing: Schema.optionalWith(
    Schema.Struct({
      iossNumber: Schema.optionalWith(Schema.NonEmptyTrimmedString, { exact: true }),
      taxNumber: Schema.optionalWith(Schema.NonEmptyTrimmedString, { exact: true })
    }),
    { exact: true }
  )
})

/** The section `platform` names is present: as a type, so that `switch (store.platform)` narrows to it. */
type WithItsSection =
  | { readonly platform: "shopify"; readonly shopify: typeof ShopifySection.Type }
  | { readonly platform: "woocommerce"; readonly woocommerce: typeof WooCommerceSection.Type }
  | { readonly platform: "etsy"; readonly etsy: typeof EtsySection.Type }
  | { readonly platform: "jsonfeed"; readonly jsonfeed: typeof JsonFeedSection.Type }

const hasItsSection = (store: typeof StoreFields.Type): store is typeof StoreFields.Type & WithItsSection =>
  store[store.platform] !== undefined

export const StoreConfig = StoreFields.pipe(
  Schema.filter((store) =>
    hasItsSection(store) || {
      path: [store.platform],
      message: `a "${store.platform}" section is required for platform ${store.platform}`
    }
  ),
  // The same check as a refinement, which carries the narrowed type; it cannot fail here, since
  // the filter above (which names the missing section's path) has already refused such a store.
  Schema.filter(hasItsSection)
)
export type StoreConfig = typeof StoreConfig.Type
