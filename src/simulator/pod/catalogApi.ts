// GET /api/v3/catalog, /catalog/variants and /catalog/variants/stock.
import type { Catalog, CatalogProduct, CatalogVariant } from "./catalog.js"
import { productOf } from "./catalog.js"
import type { ShippingMethod } from "./enums.js"
import { CATALOG_STOCK_LABELS, CATALOG_STOCK_PREFIX, SHIPPING_METHODS } from "./enums.js"
import { matchesAny, paginate, readArray, readEnumArray, readPaging } from "./listing.js"
import { moneyWriter } from "./money.js"
import { shippingCents } from "./pricing.js"
import type { Route, RouteContext } from "./routes.js"
import { Issues } from "./validation.js"
import type { Json, SimResponse } from "./wire.js"
import { invalidArgument, success } from "./wire.js"

const productSummary = (product: CatalogProduct): Record<string, Json> => ({
  product_id: product.productId,
  product_name: product.name,
  product_avatar_url: product.avatarUrl,
  print_locations: product.printLocations.map((l) => ({ ...l })),
  legacy_product_id: product.legacyProductId
})

/** What a variant is, as both the variant list and the shipping-fee answer name it. */
const variantIdentity = (variant: CatalogVariant): Record<string, Json> => ({
  variant_id: variant.variantId,
  name: variant.name,
  size: variant.size,
  color: variant.color,
  hex_color_code: variant.hex,
  variant_sku: variant.sku,
  color_code: variant.colorCode,
  size_code: variant.sizeCode
})

export const variantView = (catalog: Catalog, seed: number, variant: CatalogVariant): Json => {
  const money = moneyWriter(seed, variant.variantId)
  return {
    ...variantIdentity(variant),
    price: money(variant.priceCents),
    recommended_price: money(variant.recommendedCents),
    extra_price: money(variant.extraCents),
    net_price: money(variant.priceCents),
    stock_label: CATALOG_STOCK_PREFIX + variant.stockLabel,
    product: productSummary(productOf(catalog, variant)),
    legacy_variant_id: variant.legacyVariantId
  }
}

export const productView = (catalog: Catalog, seed: number, product: CatalogProduct): Json => ({
  ...productSummary(product),
  variants: product.variants.map((v) => variantView(catalog, seed, v))
})

const listProducts = (catalog: Catalog, seed: number) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const paging = readPaging(issues, context.query)
  const productIds = readArray(issues, context.query, "filter.product_ids", 100)
  const search = context.query.get("filter.search_text")
  if (search !== null && search.length > 100) issues.add("filter.search_text", "must be at most 100 characters")
  if (!issues.empty) return invalidArgument(issues.list)
  const needle = search?.toLowerCase() ?? ""
  const matching = catalog.products.filter(
    (p) =>
      matchesAny(productIds, p.productId) &&
      (needle === "" || p.name.toLowerCase().includes(needle) || p.typeName.toLowerCase().includes(needle))
  )
  const { page, paging: pageInfo } = paginate(matching, paging, seed)
  return success(page.map((p) => productView(catalog, seed, p)), pageInfo)
}

const stripHash = (text: string): string => text.replace(/^#/, "").toLowerCase()

const listVariants = (catalog: Catalog, seed: number) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const q = context.query
  const paging = readPaging(issues, q)
  const colorCodes = readArray(issues, q, "filter.color_codes", 100)?.map(stripHash)
  const colors = readArray(issues, q, "filter.colors", 100)?.map((c) => c.toLowerCase())
  const legacyRaw = readArray(issues, q, "filter.legacy_variant_ids", 100)
  const legacyIds = legacyRaw?.map((raw) => {
    const n = Number(raw)
    if (!/^[0-9]+$/.test(raw) || n <= 0 || n > 2_147_483_647) {
      issues.add("filter.legacy_variant_ids", "each value must be an int32 greater than 0")
    }
    return n
  })
  const productIds = readArray(issues, q, "filter.product_ids", 100)
  const search = q.get("filter.search_text")
  if (search !== null && search.length > 100) issues.add("filter.search_text", "must be at most 100 characters")
  const sizeCodes = readArray(issues, q, "filter.size_codes", 100)?.map((s) => s.toLowerCase())
  const sizes = readArray(issues, q, "filter.sizes", 100)?.map((s) => s.toLowerCase())
  const skus = readArray(issues, q, "filter.skus", 100)
  const stockLabels = readEnumArray(issues, q, "filter.stock_labels", CATALOG_STOCK_LABELS.map((l) => CATALOG_STOCK_PREFIX + l))
  const variantIds = readArray(issues, q, "filter.variant_ids", 100)
  if (!issues.empty) return invalidArgument(issues.list)
  const needle = search?.toLowerCase() ?? ""
  const matching = catalog.variants.filter((v) => {
    if (colorCodes !== undefined && !colorCodes.includes(v.colorCode) && !colorCodes.includes(stripHash(v.hex))) return false
    if (colors !== undefined && !colors.includes(v.color.toLowerCase())) return false
    if (legacyIds !== undefined && !legacyIds.includes(v.legacyVariantId)) return false
    if (!matchesAny(productIds, v.productId) || !matchesAny(skus, v.sku) || !matchesAny(variantIds, v.variantId)) return false
    if (sizeCodes !== undefined && !sizeCodes.includes(v.sizeCode)) return false
    if (sizes !== undefined && !sizes.includes(v.size.toLowerCase())) return false
    if (!matchesAny(stockLabels, CATALOG_STOCK_PREFIX + v.stockLabel)) return false
    if (needle !== "") {
      const haystack = `${productOf(catalog, v).name} ${v.name} ${v.sku}`.toLowerCase()
      if (!haystack.includes(needle)) return false
    }
    return true
  })
  const { page, paging: pageInfo } = paginate(matching, paging, seed)
  return success(page.map((v) => variantView(catalog, seed, v)), pageInfo)
}

const METHOD_NAMES: Readonly<Record<string, ShippingMethod>> = Object.fromEntries(
  SHIPPING_METHODS.flatMap((m) => [[m, m], [m.slice("METHOD_".length).toLowerCase().replace("_", ""), m]])
)

/** GET /api/v3/catalog/variants/shipping-fee (from the real SDK; shape is the simulator's): first and additional item fees. */
const shippingFees = (catalog: Catalog, seed: number) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const q = context.query
  const ids = readArray(issues, q, "filter.variant_ids", 100) ?? readArray(issues, q, "variant_ids", 100) ?? []
  const country = (q.get("filter.country_code") ?? q.get("country_code") ?? "US").toUpperCase()
  if (!/^[A-Z]{2}$/.test(country)) issues.add("country_code", "must be an ISO 3166-1 alpha-2 code")
  const rawMethod = q.get("filter.method") ?? q.get("method")
  const methods = rawMethod === null ? [...SHIPPING_METHODS] : [METHOD_NAMES[rawMethod] ?? METHOD_NAMES[rawMethod.toLowerCase()]]
  if (methods.some((m) => m === undefined)) issues.add("method", `must be one of ${SHIPPING_METHODS.join(", ")}`)
  const variants = ids.map((id) => catalog.variantById.get(id))
  if (ids.length === 0) issues.add("filter.variant_ids", "at least one variant id is required")
  if (variants.some((v) => v === undefined)) issues.add("filter.variant_ids", "unknown variant")
  if (!issues.empty) return invalidArgument(issues.list)
  const rows = variants.flatMap((variant) =>
    variant === undefined ? [] : [{
      ...variantIdentity(variant),
      product_id: variant.productId,
      shipping_services: methods.map((method) => {
        const money = moneyWriter(seed, `${variant.variantId}:${method}`)
        const one = shippingCents({ countryCode: country, stateCode: "", method: method as ShippingMethod, labeled: false }, 1)
        const two = shippingCents({ countryCode: country, stateCode: "", method: method as ShippingMethod, labeled: false }, 2)
        return { fee_amount: money(one), additional_item: money(two - one), shipping_profile: method ?? "", shipping_service: method ?? "" }
      })
    }]
  )
  return success(rows)
}

export const catalogRoutes = (catalog: Catalog, seed: number): ReadonlyArray<Route> => [
  { method: "GET", pattern: "/api/v3/catalog/variants/shipping-fee", auth: "v3", handle: shippingFees(catalog, seed) },
  { method: "GET", pattern: "/api/v3/catalog", auth: "v3", handle: listProducts(catalog, seed) },
  { method: "GET", pattern: "/api/v3/catalog/variants", auth: "v3", handle: listVariants(catalog, seed) },
  { method: "GET", pattern: "/api/v3/catalog/variants/stock", auth: "v3", handle: listVariants(catalog, seed) }
]
