/**
 * The Shopify access scopes podsync needs, each with what fails without it.
 *
 * Derived from the `requiredAccess` of what the connector's GraphQL documents select and call in
 * Shopify's Admin schema (2026-10), where a type or field accepts any of several scopes the one a
 * seller's own app (a merchant-managed location) is given; `tagsAdd` and `metafieldsSet` on an order
 * need `write_orders` (the schema says "the same access as mutating the owner"). `podsync check`
 * names the missing ones from this list; the README's "Going live" lists the same; CI compares it
 * with the schema.
 *
 * Not here: `write_fulfillments`, which older docs name for `fulfillmentCreate` but the 2026-10
 * schema does not (it asks for `write_*_fulfillment_orders`); a store whose fulfilment orders sit at
 * a fulfilment-service location grants `…_third_party_…` or `…_assigned_fulfillment_orders` instead,
 * which `alsoGrantedBy` accepts.
 */

export interface ShopifyScope {
  readonly handle: string
  /** Without it podsync still works, with the loss `withoutIt` says (`podsync check` warns instead of failing). */
  readonly optional: boolean
  /** Schema coordinates whose `requiredAccess` this scope answers (`Type` or `Type.field`). */
  readonly needs: ReadonlyArray<string>
  /** Other handles that give the same access (a write scope includes its read scope). */
  readonly alsoGrantedBy: ReadonlyArray<string>
  /** What fails without it, in a seller's words. */
  readonly withoutIt: string
}

export const SHOPIFY_SCOPES: ReadonlyArray<ShopifyScope> = [
  {
    handle: "read_orders",
    optional: false,
    needs: ["Order", "LineItem", "FulfillmentLineItem", "Fulfillment", "FulfillmentTrackingInfo"],
    alsoGrantedBy: ["write_orders"],
    withoutIt: "no order can be read: every pull fails"
  },
  {
    handle: "write_orders",
    optional: false,
    needs: ["Mutation.tagsAdd", "Mutation.metafieldsSet"],
    alsoGrantedBy: [],
    withoutIt:
      "the podsync:drafted tag and the draft metafield are refused, so the seller cannot see in Shopify which orders have a POD draft"
  },
  {
    handle: "read_products",
    optional: false,
    needs: ["ProductVariant", "Product"],
    alsoGrantedBy: ["write_products"],
    withoutIt:
      "every order's line variants and products are withheld: lines mapped by variant id are held (lines mapped by SKU still match)"
  },
  {
    handle: "read_merchant_managed_fulfillment_orders",
    optional: false,
    needs: ["FulfillmentOrder", "FulfillmentOrderLineItem", "FulfillmentHold"],
    alsoGrantedBy: [
      "write_merchant_managed_fulfillment_orders",
      "read_third_party_fulfillment_orders",
      "write_third_party_fulfillment_orders",
      "read_assigned_fulfillment_orders",
      "write_assigned_fulfillment_orders"
    ],
    withoutIt: "fulfilment orders cannot be read: every pull fails and no tracking can be pushed"
  },
  {
    handle: "write_merchant_managed_fulfillment_orders",
    optional: false,
    needs: ["Mutation.fulfillmentCreate", "Mutation.fulfillmentTrackingInfoUpdate"],
    alsoGrantedBy: ["write_third_party_fulfillment_orders", "write_assigned_fulfillment_orders"],
    withoutIt: "every tracking push is refused: buyers never see their tracking in Shopify"
  },
  {
    handle: "read_all_orders",
    optional: true,
    needs: [],
    alsoGrantedBy: [],
    withoutIt:
      "orders older than 60 days read as missing: a package that ships late for such an order cannot be pushed (it is refused as an unknown order); Shopify grants it on request (Partner Dashboard or Dev Dashboard: API access)"
  }
]

/** Whether `granted` (the handles of `currentAppInstallation.accessScopes`) gives `scope`. */
export const grants = (granted: ReadonlySet<string>, scope: ShopifyScope): boolean =>
  granted.has(scope.handle) || scope.alsoGrantedBy.some((handle) => granted.has(handle))

/** The scopes podsync needs that `granted` lacks, required ones first. */
export const missingScopes = (granted: ReadonlySet<string>): ReadonlyArray<ShopifyScope> =>
  SHOPIFY_SCOPES.filter((scope) => !grants(granted, scope)).sort((a, b) => Number(a.optional) - Number(b.optional))

/** Every handle podsync asks for (what a seller grants the app). */
export const SHOPIFY_SCOPE_HANDLES: ReadonlyArray<string> = SHOPIFY_SCOPES.map((scope) => scope.handle)
