/**
 * Pure: what Shopify withheld from an order read (its `ACCESS_DENIED` entries), in the normalized
 * order's terms, grouped by why, each with what the seller does about it.
 *
 * - The buyer's email, name, address lines, postal code and phone are Level 2 protected customer
 *   data: a custom app gets them only on a store on the Shopify plan or higher (a public app after
 *   Shopify's review).
 * - A line's variant and product need `read_products`; a denial names the scope it wanted.
 */
import type { WithheldData } from "../../domain/NormalizedOrder.js"
import type { DeniedField } from "./ShopifyAnswers.js"
import { scopesNamedIn } from "./ShopifyAnswers.js"

/** One withheld field of an order, named in the normalized order's terms, with Shopify's words. */
export interface WithheldField {
  readonly field: string
  readonly message: string
}

const ADDRESS_FIELDS: Readonly<Record<string, string>> = {
  name: "name",
  firstName: "firstName",
  lastName: "lastName",
  company: "company",
  address1: "line1",
  address2: "line2",
  city: "city",
  province: "region",
  provinceCode: "regionCode",
  zip: "postalCode",
  country: "country",
  countryCodeV2: "countryCode",
  phone: "phone"
}

const LINE_FIELDS: Readonly<Record<string, string>> = { variant: "variantId", product: "productId" }

/** What an order read holds of its line items: their ids, to name a withheld line field by its line. */
interface WithLines {
  readonly lineItems: { readonly nodes: ReadonlyArray<{ readonly id: string }> }
}

/**
 * The denied fields of one order (paths relative to it: `["email"]`, `["shippingAddress", "zip"]`,
 * `["lineItems", "nodes", 2, "variant"]`) in the normalized order's terms; a path this does not know
 * keeps Shopify's own (`fulfillmentOrders.nodes.0.status`).
 */
export const withheldFields = (order: WithLines, denied: ReadonlyArray<DeniedField>): ReadonlyArray<WithheldField> =>
  denied.map(({ path, message }) => {
    const [first, second, third, fourth] = path
    if (first === "email") return { field: "email", message }
    if (first === "shippingAddress" && typeof second === "string") {
      return { field: `shipTo.${ADDRESS_FIELDS[second] ?? second}`, message }
    }
    if (first === "lineItems" && second === "nodes" && typeof third === "number" && typeof fourth === "string") {
      const line = order.lineItems.nodes[third]
      const field = LINE_FIELDS[fourth]
      if (line !== undefined && field !== undefined) return { field: `lines.${line.id}.${field}`, message }
    }
    return { field: path.join("."), message }
  })

/** Denied paths under `prefix` (e.g. `["orders", "nodes", 3]`), made relative to it. */
export const deniedUnder = (
  denied: ReadonlyArray<DeniedField>,
  prefix: ReadonlyArray<string | number>
): ReadonlyArray<DeniedField> =>
  denied.flatMap((d) => prefix.every((step, i) => d.path[i] === step) ? [{ path: d.path.slice(prefix.length), message: d.message }] : [])

export const LEVEL_2_REASON = "Shopify withholds the buyer's name, address, email and phone from podsync: the app has no access to " +
  "Level 2 protected customer data. A custom app (made in the Dev Dashboard) gets it only on a store on the Shopify plan or higher, " +
  "once its protected customer data settings ask for name, email, phone and address; a public app needs Shopify's review. " +
  "podsync reads the order again and releases it once the data comes through"

const scopeReason = (scopes: ReadonlyArray<string>) =>
  `Shopify withholds it from podsync: the app lacks the ${
    scopes.map((s) => `${s}`).join(" or ")
  } access scope. Grant it to the app (its API access settings) and approve the new scope in the store; ` +
  "podsync reads the order again and releases it once the data comes through"

/** The withheld fields grouped by why: Level 2 customer data, a scope (named), anything else in Shopify's words. */
export const withheldData = (fields: ReadonlyArray<WithheldField>): ReadonlyArray<WithheldData> => {
  const byReason = new Map<string, Array<string>>()
  for (const { field, message } of fields) {
    const scopes = scopesNamedIn(message)
    const reason = scopes.length > 0 ? scopeReason(scopes) : field === "email" || field.startsWith("shipTo.") ? LEVEL_2_REASON : message
    const list = byReason.get(reason) ?? []
    if (!list.includes(field)) list.push(field)
    byReason.set(reason, list)
  }
  return [...byReason].map(([reason, list]) => ({ fields: list, reason }))
}
