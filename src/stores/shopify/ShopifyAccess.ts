/**
 * What the app may read and do in the shop, as Shopify says it: the scopes it was granted
 * (`currentAppInstallation.accessScopes`) against those podsync needs, and whether the buyer's
 * details come through (Level 2 protected customer data), from the newest order.
 */
import { Effect, Option } from "effect"
import type { AccessFinding } from "../StoreConnector.js"
import type { StoreError } from "../StoreErrors.js"
import type { ShopifyGraphql } from "./ShopifyGraphql.js"
import { ACCESS_SCOPES, RECENT_ORDER_BUYER } from "./ShopifyQueries.js"
import { AccessScopesData, RecentOrderBuyerData } from "./ShopifySchemas.js"
import { grants, missingScopes, SHOPIFY_SCOPES } from "./ShopifyScopes.js"
import { LEVEL_2_REASON } from "./ShopifyWithheld.js"

const READ_ALL_ORDERS = SHOPIFY_SCOPES.find((s) => s.handle === "read_all_orders")
const READ_ORDERS = SHOPIFY_SCOPES.find((s) => s.handle === "read_orders")

/** Where a seller grants a scope to their own app, said once in every finding about one. */
const GRANT_HOW = "grant it to the app (Dev Dashboard: the app's access scopes; a legacy custom app: its Admin API scopes in the Shopify " +
  "admin) and approve it in the store"

export const makeShopifyAccess = (graphql: ShopifyGraphql) => {
  /** The scope handles the app holds now. */
  const grantedScopes: Effect.Effect<ReadonlySet<string>, StoreError> = Effect.map(
    graphql.run({
      name: "currentAppInstallation",
      document: ACCESS_SCOPES,
      variables: {},
      data: AccessScopesData,
      mutation: false,
      estimatedCost: 2
    }),
    ({ currentAppInstallation }) => new Set(currentAppInstallation.accessScopes.map((s) => s.handle))
  )

  /** What the newest order says of the buyer's details: withheld (and why), given, or no order to tell by. */
  const buyerData: Effect.Effect<"withheld" | "given" | "no_order", StoreError> = Effect.map(
    graphql.runPartial({
      name: "orders",
      document: RECENT_ORDER_BUYER,
      variables: {},
      data: RecentOrderBuyerData,
      mutation: false,
      estimatedCost: 5,
      partial: true
    }),
    ({ data, denied }) => (data.orders.nodes.length === 0 ? "no_order" : denied.length > 0 ? "withheld" : "given")
  )

  const checkAccess = (): Effect.Effect<ReadonlyArray<AccessFinding>, StoreError> =>
    Effect.gen(function*() {
      const granted = yield* grantedScopes
      const findings: Array<AccessFinding> = missingScopes(granted).map((scope) => ({
        severity: scope.optional ? "warning" : "error",
        message: `the app lacks the ${scope.handle} access scope: ${scope.withoutIt}. ${
          scope.optional ? "To have it" : "Fix"
        }: ${GRANT_HOW}`
      }))
      // Without read_orders no order can be read to tell: the finding above says why.
      if (READ_ORDERS !== undefined && !grants(granted, READ_ORDERS)) return findings
      const buyer = yield* buyerData
      if (buyer === "withheld") findings.push({ severity: "error", message: `${LEVEL_2_REASON}. Until then every order is held` })
      if (buyer === "no_order") {
        findings.push({
          severity: "note",
          message: "the shop has no order yet, so whether Shopify gives podsync the buyer's details is not known: " +
            "they are Level 2 protected customer data (a custom app gets them on the Shopify plan or higher)"
        })
      }
      return findings
    })

  /**
   * Why Shopify may not know an order podsync knows: without `read_all_orders` an app sees only
   * the last 60 days of orders. Said only when the app lacks it (and nothing when the scopes
   * cannot be read: the plain "does not exist" stands).
   */
  const unknownOrderHint: Effect.Effect<Option.Option<string>> = grantedScopes.pipe(
    Effect.map((granted) =>
      READ_ALL_ORDERS === undefined || grants(granted, READ_ALL_ORDERS)
        ? Option.none()
        : Option.some(
          "Shopify shows an app without the read_all_orders access scope only the last 60 days of orders, so an older order " +
            "reads as missing: add this tracking in Shopify by hand, and grant read_all_orders so that late packages of older orders are pushed"
        )
    ),
    Effect.catchAll((error) =>
      Effect.as(Effect.logDebug(`could not read the app's access scopes to explain an unknown order: ${error.message}`), Option.none())
    )
  )

  return { checkAccess, grantedScopes, unknownOrderHint }
}

export type ShopifyAccess = ReturnType<typeof makeShopifyAccess>
