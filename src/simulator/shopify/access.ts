import { defaultFieldResolver, getNamedType, GraphQLError, type GraphQLFieldResolver, type GraphQLNamedType, isAbstractType } from "graphql"

/**
 * What an authenticated request may read and do, as Shopify decides it (store-apis.md §0):
 *
 * - **Access scopes.** A type or field of the Admin schema names the scopes that give it
 *   (`requiredAccess`, any of them); the table below copies those of the simulator's subset from
 *   the 2026-10 schema. A field the grant does not reach is answered `null` with an `errors[]` entry
 *   (`extensions.code: "ACCESS_DENIED"`, its `path`), the rest of `data` as usual; a non-null field
 *   takes its parent with it, as GraphQL says. A type is checked at the field that returns it (for a
 *   connection, the field that returns the connection). A write scope includes its read scope.
 * - **Protected customer data.** The buyer's name, email, phone and address lines are Level 2 data:
 *   on a shop on the Basic plan a custom app does not get them (help.shopify.com, "Custom Level 2 PII
 *   apps"), and they are denied the same way.
 * - **Older orders.** Without `read_all_orders` only the last 60 days of orders exist for the app:
 *   `order(id:)` and `nodes(ids:)` answer null for older ones, lists and counts leave them out.
 *
 * `Grant` is the seam with the credentials: whatever resolves a request's token (a static token, the
 * client credentials grant) answers one, and everything here reads only its scopes.
 */

export interface Grant {
  readonly scopes: ReadonlySet<string>
}

/** Every scope podsync asks for: what the simulator's static token is granted unless told otherwise. */
export const podsyncScopes: ReadonlyArray<string> = [
  "read_orders",
  "write_orders",
  "read_products",
  "read_merchant_managed_fulfillment_orders",
  "write_merchant_managed_fulfillment_orders",
  "read_all_orders"
]

/** Shopify's plans as they matter here: on `basic` a custom app gets no Level 2 protected customer data. */
export const shopPlans = ["basic", "shopify", "advanced", "plus"] as const
export type ShopPlan = (typeof shopPlans)[number]

/** What the resolvers are given (graphql-js's `contextValue`). */
export interface RequestAccess {
  /** The grant's scopes with the read scope of each write scope. */
  readonly scopes: ReadonlySet<string>
  /** The handles as granted (what `currentAppInstallation.accessScopes` lists). */
  readonly granted: ReadonlyArray<string>
  readonly level2: boolean
  /** Orders created before this (ms) do not exist for the request; 0 with `read_all_orders`. */
  readonly oldestOrderAt: number
}

export const ORDER_WINDOW_MS = 60 * 86_400_000

export const requestAccess = (grant: Grant, plan: ShopPlan, now: number): RequestAccess => {
  const scopes = new Set(grant.scopes)
  for (const scope of grant.scopes) if (scope.startsWith("write_")) scopes.add(`read_${scope.slice("write_".length)}`)
  return {
    scopes,
    granted: [...grant.scopes].sort(),
    level2: plan !== "basic",
    oldestOrderAt: scopes.has("read_all_orders") ? 0 : now - ORDER_WINDOW_MS
  }
}

const readFulfillmentOrders = [
  "read_assigned_fulfillment_orders",
  "read_merchant_managed_fulfillment_orders",
  "read_third_party_fulfillment_orders",
  "read_marketplace_fulfillment_orders"
]
const readOrders = ["read_orders", "read_marketplace_orders"]
const writeFulfillmentOrders = [
  "write_assigned_fulfillment_orders",
  "write_merchant_managed_fulfillment_orders",
  "write_third_party_fulfillment_orders"
]

/** `requiredAccess` of the subset's types (2026-10 schema): any one of the scopes gives the type. */
const TYPE_ACCESS: Readonly<Record<string, ReadonlyArray<string>>> = {
  Order: [...readOrders, "read_quick_sale"],
  LineItem: readOrders,
  FulfillmentLineItem: readOrders,
  Fulfillment: [...readOrders, ...readFulfillmentOrders],
  FulfillmentTrackingInfo: [...readOrders, ...readFulfillmentOrders],
  FulfillmentOrder: readFulfillmentOrders,
  FulfillmentHold: readFulfillmentOrders,
  FulfillmentOrderAssignedLocation: readFulfillmentOrders,
  FulfillmentOrderLineItem: readFulfillmentOrders.filter((s) => s !== "read_marketplace_fulfillment_orders"),
  FulfillmentOrderSupportedAction: readFulfillmentOrders.filter((s) => s !== "read_marketplace_fulfillment_orders"),
  Product: ["read_products"],
  ProductVariant: ["read_products"],
  Customer: ["read_customers"],
  Location: ["read_locations", "read_inventory", "read_markets_home"]
}

/**
 * `requiredAccess` of fields beyond their type's. `tagsAdd`, `tagsRemove` and `metafieldsSet` need
 * what changing their owner needs: this shop's only owner is an order, so `write_orders`.
 */
const FIELD_ACCESS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "Query.ordersCount": readOrders,
  "Query.fulfillment": [...readOrders, ...readFulfillmentOrders],
  "Mutation.fulfillmentCreate": writeFulfillmentOrders,
  "Mutation.fulfillmentTrackingInfoUpdate": writeFulfillmentOrders,
  "Mutation.fulfillmentOrderHold": ["write_merchant_managed_fulfillment_orders", "write_third_party_fulfillment_orders"],
  "Mutation.fulfillmentOrderReleaseHold": [
    "write_merchant_managed_fulfillment_orders",
    "write_third_party_fulfillment_orders",
    "write_marketplace_fulfillment_orders"
  ],
  "Mutation.fulfillmentOrderOpen": writeFulfillmentOrders,
  "Mutation.tagsAdd": ["write_orders"],
  "Mutation.tagsRemove": ["write_orders"],
  "Mutation.metafieldsSet": ["write_orders"],
  "Location.name": ["read_locations", "read_markets_home"]
}

/** Level 2 protected customer data (`isProtected` in the schema). */
const PROTECTED = new Set([
  "Order.email",
  "Order.phone",
  "MailingAddress.name",
  "MailingAddress.firstName",
  "MailingAddress.lastName",
  "MailingAddress.address1",
  "MailingAddress.address2",
  "MailingAddress.zip",
  "MailingAddress.phone",
  "MailingAddress.formatted",
  "Customer.firstName",
  "Customer.lastName",
  "Customer.displayName",
  "Customer.email"
])

const DOCS = "https://shopify.dev/api/usage/access-scopes"
const PROTECTED_DOCS = "https://shopify.dev/docs/apps/launch/protected-customer-data"

const accessText = (scopes: ReadonlyArray<string>) => {
  const named = scopes.map((s) => `\`${s}\` access scope`)
  return named.length === 1 ? `${named[0]}.` : `${named.slice(0, -1).join(", ")} or ${named[named.length - 1]}.`
}

const denied = (field: string, scopes: ReadonlyArray<string>) =>
  new GraphQLError(`Access denied for ${field} field. Required access: ${accessText(scopes)}`, {
    extensions: { code: "ACCESS_DENIED", documentation: DOCS, requiredAccess: accessText(scopes) }
  })

const protectedDenied = (field: string) =>
  new GraphQLError(`This app is not approved to use the ${field} field. See ${PROTECTED_DOCS} for more details.`, {
    extensions: { code: "ACCESS_DENIED", documentation: PROTECTED_DOCS }
  })

/** A connection or edge is reached through the type of its nodes. */
const accessTypeOf = (name: string) => name.replace(/(Connection|Edge)$/, "")

const missing = (access: RequestAccess, required: ReadonlyArray<string> | undefined) =>
  required !== undefined && !required.some((scope) => access.scopes.has(scope))

const typeNamesOf = (value: unknown): Array<string> => {
  if (Array.isArray(value)) return value.flatMap(typeNamesOf)
  const typename = typeof value === "object" && value !== null ? (value as { __typename?: unknown }).__typename : undefined
  return typeof typename === "string" ? [typename] : []
}

/** What one field of the schema requires, worked out once per field (every request resolves thousands). */
interface FieldRule {
  readonly fieldAccess: ReadonlyArray<string> | undefined
  readonly protected: boolean
  readonly typeAccess: ReadonlyArray<string> | undefined
  readonly abstract: boolean
}

const rules = new Map<string, FieldRule>()

const ruleOf = (coordinate: string, returned: GraphQLNamedType): FieldRule => {
  const known = rules.get(coordinate)
  if (known !== undefined) return known
  const rule = {
    fieldAccess: FIELD_ACCESS[coordinate],
    protected: PROTECTED.has(coordinate),
    typeAccess: TYPE_ACCESS[accessTypeOf(returned.name)],
    abstract: isAbstractType(returned)
  }
  rules.set(coordinate, rule)
  return rule
}

/**
 * graphql-js's default resolver behind Shopify's access checks: the field's own access and
 * protection, then the type it returns (for an interface, the types it did return).
 */
export const guardedResolver: GraphQLFieldResolver<unknown, RequestAccess> = (source, args, access, info) => {
  const rule = ruleOf(`${info.parentType.name}.${info.fieldName}`, getNamedType(info.returnType))
  if (missing(access, rule.fieldAccess)) throw denied(info.fieldName, rule.fieldAccess ?? [])
  if (rule.protected && !access.level2) throw protectedDenied(info.fieldName)
  if (missing(access, rule.typeAccess)) throw denied(info.fieldName, rule.typeAccess ?? [])
  const value: unknown = defaultFieldResolver(source, args, access, info)
  if (rule.abstract) {
    for (const type of typeNamesOf(value)) {
      const required = TYPE_ACCESS[type]
      if (missing(access, required)) throw denied(info.fieldName, required ?? [])
    }
  }
  return value
}
