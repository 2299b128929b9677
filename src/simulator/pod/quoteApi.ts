// POST /api/v3/orders/price: a deterministic quote for line items and a destination.
import type { Catalog, CatalogVariant } from "./catalog.js"
import type { ShippingMethod } from "./enums.js"
import { PRINT_LOCATION_PREFIX, PRINT_LOCATIONS, QUOTE_PLATFORMS } from "./enums.js"
import { moneyWriter } from "./money.js"
import type { PricedLineInput, Quote } from "./pricing.js"
import { quote } from "./pricing.js"
import type { Route, RouteContext } from "./routes.js"
import { Issues, readText } from "./validation.js"
import type { Json, SimResponse } from "./wire.js"
import { invalidArgument, isRecord, success } from "./wire.js"

const METHODS: Readonly<Record<string, ShippingMethod>> = {
  standard: "METHOD_STANDARD",
  method_standard: "METHOD_STANDARD",
  ground: "METHOD_GROUND",
  method_ground: "METHOD_GROUND",
  fastship: "METHOD_FAST_SHIP",
  method_fast_ship: "METHOD_FAST_SHIP",
  stamp: "METHOD_STAMP",
  method_stamp: "METHOD_STAMP",
  economy: "METHOD_ECONOMY",
  method_economy: "METHOD_ECONOMY"
}

const LOCATION_NAMES = new Set([...PRINT_LOCATIONS.map((l) => l.toLowerCase()), ...PRINT_LOCATIONS.map((l) => PRINT_LOCATION_PREFIX + l)])

export const quoteView = (seed: number, key: string, q: Quote): Json => {
  const money = moneyWriter(seed, key)
  return {
    order_shipping_fee: money(q.shipping),
    order_fee: money(q.fee),
    order_tax: money(q.tax),
    order_sub_total: money(q.subTotal),
    order_total: money(q.total),
    order_discount: money(q.discount),
    order_gift_message_fee: money(q.giftMessageFee),
    order_handle_fee: money(q.handleFee),
    line_items: q.lines.map((line, index) => ({
      id: String(index + 1),
      item_quantity: line.quantity,
      unit_base_price: money(line.unitBase),
      item_price: money(line.itemPrice),
      item_fee: money(0),
      item_discount: money(line.quantity === 0 ? 0 : Math.floor(line.discount / line.quantity)),
      line_sub_total: money(line.subTotal),
      line_tax: money(line.tax),
      line_fee: money(line.fee),
      line_discount: money(line.discount),
      line_total: money(line.total)
    })),
    fees: q.fees.map((fee) => ({ order_id: "", line_item_id: "", fee_code: fee.code, amount: money(fee.amount) }))
  }
}

const readQuoteLine = (issues: Issues, catalog: Catalog, value: unknown, path: string): PricedLineInput | undefined => {
  if (!isRecord(value)) {
    issues.add(path, "must be an object")
    return undefined
  }
  const id = value["variant_id"]
  let variant: CatalogVariant | undefined
  if (typeof id !== "string" || id === "") issues.add(`${path}.variant_id`, "is required")
  else {
    variant = catalog.variantById.get(id)
    if (variant === undefined) issues.add(`${path}.variant_id`, "unknown variant")
  }
  const quantity = value["quantity"]
  if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1 || quantity > 1000) {
    issues.add(`${path}.quantity`, "must be an integer from 1 to 1000")
  }
  const locations = value["print_locations"]
  if (!Array.isArray(locations) || locations.length === 0) issues.add(`${path}.print_locations`, "at least one print location is required")
  else if (!locations.every((l) => typeof l === "string" && LOCATION_NAMES.has(l))) {
    issues.add(`${path}.print_locations`, "must be front, back, left_sleeve, right_sleeve, pocket, whole or PRINT_LOCATION_CODE_*")
  }
  if (variant === undefined || typeof quantity !== "number" || !Array.isArray(locations)) return undefined
  return { variant, quantity, locationCount: new Set(locations).size }
}

export const priceHandler = (catalog: Catalog, seed: number) => (context: RouteContext): SimResponse => {
  const issues = new Issues()
  const body = isRecord(context.body) ? context.body : {}
  const platform = body["order_platform"] ?? ""
  if (typeof platform !== "string" || !QUOTE_PLATFORMS.includes(platform)) {
    issues.add("order_platform", "must be a lower-case platform name or empty")
  }
  const shipping = isRecord(body["shipping"]) ? body["shipping"] : undefined
  if (shipping === undefined) issues.add("shipping", "is required")
  const address = shipping !== undefined && isRecord(shipping["address"]) ? shipping["address"] : shipping ?? {}
  const base = shipping !== undefined && isRecord(shipping["address"]) ? "shipping.address" : "shipping"
  const country = shipping === undefined ? undefined : readText(issues, address["country_code"], `${base}.country_code`, 2, 2, true)
  const state = shipping === undefined ? undefined : readText(issues, address["state_code"], `${base}.state_code`, 0, 6, false)
  const rawMethod = address["method"] ?? shipping?.["method"]
  const method = typeof rawMethod === "string" ? METHODS[rawMethod.toLowerCase()] : undefined
  if (shipping !== undefined && method === undefined) {
    issues.add(`${base}.method`, "must be standard, economy, ground, fastship, stamp or METHOD_*")
  }
  const label = shipping !== undefined && isRecord(shipping["label"]) ? shipping["label"] : undefined
  if (label !== undefined && typeof label["url"] !== "string") issues.add("shipping.label.url", "must be a URL")
  const billing = isRecord(body["billing"]) ? body["billing"] : undefined
  const ioss = typeof billing?.["ioss_number"] === "string" && billing["ioss_number"] !== "" ? billing["ioss_number"] : null
  const rawLines = body["line_items"]
  const lines: Array<PricedLineInput> = []
  if (!Array.isArray(rawLines) || rawLines.length < 1 || rawLines.length > 1000) issues.add("line_items", "must hold 1 to 1000 line items")
  else {rawLines.forEach((line: unknown, i) => {
      const read = readQuoteLine(issues, catalog, line, `line_items[${i}]`)
      if (read !== undefined) lines.push(read)
    })}
  const gifts = body["gift_messages"]
  let giftCount = 0
  if (gifts !== undefined && gifts !== null) {
    if (!Array.isArray(gifts)) issues.add("gift_messages", "must be an array")
    else {gifts.forEach((gift: unknown, i) => {
        if (!isRecord(gift)) return issues.add(`gift_messages[${i}]`, "must be an object")
        readText(issues, gift["content"], `gift_messages[${i}].content`, 0, 300, false)
        giftCount += 1
      })}
  }
  if (!issues.empty || method === undefined) return invalidArgument(issues.list)
  const q = quote(lines, { countryCode: country ?? "US", stateCode: state ?? "", method, labeled: label !== undefined }, giftCount, ioss)
  return success(quoteView(seed, JSON.stringify(body), q))
}

export const quoteRoutes = (catalog: Catalog, seed: number): ReadonlyArray<Route> => [
  { method: "POST", pattern: "/api/v3/orders/price", auth: "v3", handle: priceHandler(catalog, seed) }
]
