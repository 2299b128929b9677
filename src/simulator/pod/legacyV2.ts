// Legacy v2 operations: credentials in the body (`api_key` = the client key;
// `api_signature` is accepted when non-empty, since how the real service computes
// it is not documented), flat field names, answers in v2 shapes. They share the
// v3 world: a v2 draft is a draft, and its integer id is the order's legacy id.
import type { ShippingMethod } from "./enums.js"
import { createDraft } from "./drafts.js"
import type { PricedLineInput } from "./pricing.js"
import { quote } from "./pricing.js"
import type { Route, RouteContext } from "./routes.js"
import type { SimState } from "./state.js"
import type { LineInput } from "./validation.js"
import { Issues, readAddress, readLineItem, readText } from "./validation.js"
import { draftQuote } from "./views.js"
import type { FieldIssue, Json, SimResponse } from "./wire.js"
import { iso, isRecord } from "./wire.js"

/** v2 shipping_method integers (undocumented; the simulator's choice). */
export const V2_SHIPPING_METHODS: Readonly<Record<number, ShippingMethod>> = {
  0: "METHOD_STANDARD",
  1: "METHOD_STANDARD",
  2: "METHOD_FAST_SHIP",
  3: "METHOD_GROUND",
  4: "METHOD_STAMP"
}

const ADDRESS_FROM_V2: ReadonlyArray<readonly [v2: string, v3: string]> = [
  ["shipping_company_name", "company"],
  ["shipping_address1", "street_1"],
  ["shipping_address2", "street_2"],
  ["shipping_province_code", "state_code"],
  ["shipping_city", "city"],
  ["shipping_zipcode", "zip_code"],
  ["shipping_country_code", "country_code"],
  ["shipping_phone", "phone_no"],
  ["shipping_email", "email"]
]
const V2_NAME: Readonly<Record<string, string>> = Object.fromEntries([
  ...ADDRESS_FROM_V2.map(([v2, v3]) => [`shipping.${v3}`, v2]),
  ["shipping.first_name", "shipping_name"],
  ["shipping.last_name", "shipping_name"]
])
const DESIGN_KEYS = ["front", "back", "pocket", "whole", "left_sleeve", "right_sleeve"] as const

const v2Ok = (key: "data" | "result", value: Json): SimResponse => ({
  status: 200,
  body: { status: "success", message: "Success", [key]: value }
})
const v2Error = (status: number, message: string, issues?: ReadonlyArray<FieldIssue>): SimResponse => ({
  status,
  body: { status: "error", message, ...(issues === undefined ? {} : { errors: issues.map((i) => ({ ...i })) }) }
})
const v2Invalid = (issues: Issues): SimResponse => {
  const renamed = issues.list.map((i) => ({
    field: V2_NAME[i.field] ?? i.field.replace(/\.legacy_id$/, ".variant_id").replace(/\.printing_options(\[\d+\])?(\.\w+)?$/, ".designs"),
    issue: i.issue
  }))
  return v2Error(400, `${renamed[0]?.field ?? "request"}: ${renamed[0]?.issue ?? "invalid"}`, renamed)
}

const bodyOf = (context: RouteContext): Readonly<Record<string, unknown>> => (isRecord(context.body) ? context.body : {})

const readMethod = (issues: Issues, value: unknown): ShippingMethod => {
  if (value === undefined || value === null) return "METHOD_STANDARD"
  const method = typeof value === "number" ? V2_SHIPPING_METHODS[value] : undefined
  if (method === undefined) issues.add("shipping_method", "must be 1 (standard), 2 (fast ship), 3 (ground) or 4 (stamp)")
  return method ?? "METHOD_STANDARD"
}

const readV2Address = (issues: Issues, body: Readonly<Record<string, unknown>>): Readonly<Record<string, string>> | undefined => {
  const name = typeof body["shipping_name"] === "string" ? body["shipping_name"].trim() : undefined
  const [first, ...rest] = name === undefined ? [] : name.split(/\s+/)
  const address: Record<string, unknown> = { first_name: first, last_name: rest.length > 0 ? rest.join(" ") : undefined }
  for (const [v2, v3] of ADDRESS_FROM_V2) address[v3] = body[v2]
  return readAddress(issues, address, "shipping")
}

const designsOf = (item: Readonly<Record<string, unknown>>): Array<{ location_code: string; url: unknown }> => {
  const designs = isRecord(item["designs"]) ? item["designs"] : {}
  const out = DESIGN_KEYS.filter((k) => designs[k] !== undefined && designs[k] !== "").map((k) => ({
    location_code: `PRINT_LOCATION_CODE_${k.toUpperCase()}`,
    url: designs[k]
  }))
  if (typeof item["design_link"] === "string" && item["design_link"] !== "") {
    out.push({
      location_code: item["side"] === "back" ? "PRINT_LOCATION_CODE_BACK" : "PRINT_LOCATION_CODE_FRONT",
      url: item["design_link"]
    })
  }
  if (typeof item["design_link_back"] === "string" && item["design_link_back"] !== "") {
    out.push({ location_code: "PRINT_LOCATION_CODE_BACK", url: item["design_link_back"] })
  }
  return out
}

const readV2Lines = (issues: Issues, state: SimState, value: unknown): Array<LineInput> => {
  if (!Array.isArray(value) || value.length < 1 || value.length > 1000) {
    issues.add("line_items", "must hold 1 to 1000 line items")
    return []
  }
  return value.flatMap((item: unknown, i) => {
    if (!isRecord(item)) {
      issues.add(`line_items[${i}]`, "must be an object")
      return []
    }
    const asV3 = {
      legacy_id: item["variant_id"],
      quantity: item["quantity"],
      printing_options: designsOf(item),
      barcode_url: item["barcode_link"]
    }
    return readLineItem(issues, state.catalog, asV3, `line_items[${i}]`) ?? []
  })
}

const dollars = (cents: number): number => cents / 100

const priceV2 = (state: SimState) => (context: RouteContext): SimResponse => {
  const body = bodyOf(context)
  const issues = new Issues()
  const method = readMethod(issues, body["shipping_method"])
  const country = readText(issues, body["shipping_country_code"], "shipping_country_code", 2, 2, true)
  const lines = readV2Lines(issues, state, body["line_items"])
  if (!issues.empty) return v2Invalid(issues)
  const priced: Array<PricedLineInput> = lines.map((l) => ({
    variant: l.variant,
    quantity: l.quantity,
    locationCount: l.printingOptions.length
  }))
  const stateCode = typeof body["shipping_province_code"] === "string" ? body["shipping_province_code"] : ""
  const q = quote(
    priced,
    { countryCode: country ?? "US", stateCode, method, labeled: false },
    typeof body["gift_message_body"] === "string" && body["gift_message_body"] !== "" ? 1 : 0,
    null
  )
  return v2Ok("data", {
    total: dollars(q.total),
    sub_total: dollars(q.subTotal),
    tax: dollars(q.tax),
    shipping_fee: dollars(q.shipping),
    gift_message_fee: dollars(q.giftMessageFee),
    handle_fee: dollars(q.handleFee),
    total_discount: dollars(q.discount),
    currency: "USD"
  })
}

const draftV2 = (state: SimState, labeled: boolean) => (context: RouteContext): SimResponse => {
  const body = bodyOf(context)
  const issues = new Issues()
  const storeId = readText(issues, body["store_id"], "store_id", 1, 255, true)
  const external = readText(issues, body["external_id"], "external_id", 0, 255, false) ??
    readText(issues, body["order_id"] === undefined ? undefined : String(body["order_id"]), "order_id", 0, 255, false)
  const gift = readText(issues, body["gift_message_body"], "gift_message_body", 0, 1000, false)
  const address = labeled ? null : readV2Address(issues, body)
  const method = readMethod(issues, body["shipping_method"])
  const label = labeled ? readText(issues, body["shipping_label_link"], "shipping_label_link", 1, 2048, true) : undefined
  const lines = readV2Lines(issues, state, body["line_items"])
  if (!issues.empty) return v2Invalid(issues)
  const ioss = typeof body["ioss_number"] === "string" && body["ioss_number"] !== "" ? body["ioss_number"] : null
  const draft = createDraft(state, {
    referenceId: external === undefined || external === "" ? null : external,
    platform: "MARKETPLACE_PLATFORM_GEARMENT",
    storeId: storeId ?? "",
    createdMethod: labeled ? "VENDOR_CREATED_METHOD_LABEL" : "VENDOR_CREATED_METHOD_API",
    address: address ?? null,
    shippingMethod: method,
    billingOption: ioss === null ? null : { ioss_number: ioss },
    iossNumber: ioss,
    giftMessageBody: gift === undefined || gift === "" ? null : gift,
    labelUrls: label === undefined ? [] : [label],
    agreeAtRisk: body["agree_at_risk"] === true,
    autoApprove: true,
    lines
  })
  return v2Ok("result", { id: draft.legacyNumber, name: `#${draft.legacyNumber}` })
}

const lineItemsV2 = (state: SimState) => (context: RouteContext): SimResponse => {
  const body = bodyOf(context)
  const id = typeof body["order_id"] === "number" ? body["order_id"] : Number(body["order_id"])
  const draft = Number.isInteger(id) ? state.draftByLegacyNumber(id) : undefined
  if (draft === undefined) return v2Error(404, "order not found")
  if (draft.status === "CHECKED_OUT") return v2Error(400, "order can no longer change")
  const issues = new Issues()
  const items = Array.isArray(body["line_items"]) ? body["line_items"] : []
  if (items.length === 0) issues.add("line_items", "must hold 1 to 1000 line items")
  const updates: Array<() => void> = []
  items.forEach((item: unknown, i) => {
    if (!isRecord(item)) return issues.add(`line_items[${i}]`, "must be an object")
    const line = draft.lineItems.find((l) => String(l.id) === String(item["order_item_id"]))
    if (line === undefined) return issues.add(`line_items[${i}].order_item_id`, "no such item in this order")
    const parsed = readLineItem(issues, state.catalog, {
      legacy_id: item["variant_id"] ?? line.variant.legacyVariantId,
      quantity: item["quantity"] ?? line.quantity,
      printing_options: designsOf(item)
    }, `line_items[${i}]`)
    if (parsed !== undefined) {
      updates.push(() =>
        Object.assign(line, { variant: parsed.variant, quantity: parsed.quantity, printingOptions: parsed.printingOptions })
      )
    }
  })
  if (!issues.empty) return v2Invalid(issues)
  updates.forEach((update) => update())
  draft.updatedAt = state.now()
  return v2Ok("result", { id: draft.legacyNumber })
}

const getOrderV2 = (state: SimState) => (context: RouteContext): SimResponse => {
  const id = Number(context.params["order_id"])
  const order = Number.isInteger(id) ? state.orderByLegacyNumber(id) : undefined
  const draft = order?.draft ?? (Number.isInteger(id) ? state.draftByLegacyNumber(id) : undefined)
  if (draft === undefined) return v2Error(404, "order not found")
  const q = draftQuote(draft)
  return v2Ok("result", {
    ord_id: draft.legacyNumber,
    order_number: `#${draft.legacyNumber}`,
    external_id: draft.referenceId ?? "",
    ord_time: iso(draft.createdAt),
    ord_payment_at: order?.paidAt === null || order === undefined ? "" : iso(order.paidAt),
    ord_subtotal: dollars(q.subTotal),
    ord_fee_shipping: dollars(q.shipping),
    ord_tax: dollars(q.tax),
    ord_total: dollars(q.total),
    verify_address: 1,
    fulfillment_notes: "",
    ord_status: order === undefined ? draft.status.toLowerCase() : order.status.toLowerCase(),
    ord_completed_time: order?.shippedAt === null || order === undefined ? "" : iso(order.shippedAt),
    is_approve: draft.isApproved ? 1 : 0,
    ord_archive: 0,
    ord_payment_status: order === undefined ? "pending" : order.paymentStatus.toLowerCase(),
    ord_ioss_number: draft.iossNumber ?? "",
    ord_ioss_number_total: 0,
    trackings: (order?.trackings ?? []).map((t) => ({ tracking_number: t.trackingNo, carrier: t.carrier, tracking_url: t.url })),
    items: draft.lineItems.map((l) => ({
      order_item_id: l.id,
      variant_id: l.variant.legacyVariantId,
      sku: l.variant.sku,
      quantity: l.quantity
    }))
  })
}

export const legacyRoutes = (state: SimState): ReadonlyArray<Route> => [
  { method: "POST", pattern: "/api/v2/orders/price", auth: "v2", handle: priceV2(state) },
  { method: "POST", pattern: "/api/v2/orders/draft", auth: "v2", handle: draftV2(state, false) },
  { method: "POST", pattern: "/api/v2/orders/draft/labeled", auth: "v2", handle: draftV2(state, true) },
  { method: "POST", pattern: "/api/v2/orders/draft/line-items", auth: "v2", handle: lineItemsV2(state) },
  { method: "GET", pattern: "/api/v2/orders/:order_id", auth: "v2", handle: getOrderV2(state) }
]
