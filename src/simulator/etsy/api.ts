import { knownCarrier } from "./carriers.js"
import { parseReceiptQuery, selectReceipts } from "./listing.js"
import { grandtotalCents, isCanceled } from "./model.js"
import type { EtsyShop } from "./store.js"
import { receiptView, type ViewOptions } from "./views.js"

/**
 * The Open API v3 operations the simulator serves, as pure handlers over the shop state: the HTTP layer
 * (server.ts) has already checked the key, the quota, the bearer and the faults.
 */

export interface ApiContext {
  readonly shop: EtsyShop
  readonly shopId: number
  readonly shopCountry: string
  readonly views: ViewOptions
}

/** Etsy's `Shop` (getShop, a public call): the fields a client reads, among them where the shop ships from. */
export const shopView = (ctx: ApiContext) => ({
  shop_id: ctx.shopId,
  user_id: ctx.shop.sellerUserId,
  shop_name: `AcmePrints${ctx.shopId % 1000}`,
  create_date: 1577836800,
  created_timestamp: 1577836800,
  title: "Prints on demand, made to order",
  announcement: null,
  currency_code: ctx.shopCountry === "US" ? "USD" : ctx.shopCountry === "GB" ? "GBP" : "EUR",
  is_vacation: false,
  vacation_message: null,
  sale_message: null,
  digital_sale_message: null,
  update_date: ctx.shop.nowSeconds(),
  updated_timestamp: ctx.shop.nowSeconds(),
  listing_active_count: 48,
  digital_listing_count: 0,
  login_name: `acmeprints${ctx.shopId % 1000}`,
  accepts_custom_requests: true,
  url: `https://www.etsy.com/shop/AcmePrints${ctx.shopId % 1000}`,
  num_favorers: 312,
  languages: ["en-US"],
  is_shop_us_based: ctx.shopCountry === "US",
  transaction_sold_count: 1250,
  shipping_from_country_iso: ctx.shopCountry,
  shop_location_country_iso: ctx.shopCountry,
  review_count: 210,
  review_average: 4.9
})

export interface ApiAnswer {
  readonly status: number
  readonly body: unknown
}

const error = (status: number, message: string): ApiAnswer => ({ status, body: { error: message } })

const notFound = (ctx: ApiContext, receiptId: string) =>
  error(404, `Could not find a Shop Receipt with receipt_id = ${receiptId} associated with shop_id = ${ctx.shopId}.`)

export const getShopReceipts = (ctx: ApiContext, params: URLSearchParams): ApiAnswer => {
  const query = parseReceiptQuery(params)
  if (typeof query === "string") return error(400, query)
  const { count, page } = selectReceipts(query, ctx.shop.receipts.values())
  return { status: 200, body: { count, results: page.map((r) => receiptView(r, ctx.views)) } }
}

export const getShopReceipt = (ctx: ApiContext, receiptId: string): ApiAnswer => {
  const receipt = ctx.shop.find(Number(receiptId))
  return receipt === undefined ? notFound(ctx, receiptId) : { status: 200, body: receiptView(receipt, ctx.views) }
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

const flag = (value: unknown): boolean | undefined | "invalid" => {
  if (value === undefined) return undefined
  if (value === true || value === "true" || value === "1" || value === 1) return true
  if (value === false || value === "false" || value === "0" || value === 0) return false
  return "invalid"
}

export const createReceiptShipment = (ctx: ApiContext, receiptId: string, params: Record<string, unknown>): ApiAnswer => {
  const receipt = ctx.shop.find(Number(receiptId))
  if (receipt === undefined) return notFound(ctx, receiptId)
  // Refused for this receipt alone (the app and its token are fine): Etsy's 403 "not allowed to perform".
  if (receipt.shipmentRefusal !== null) return error(403, receipt.shipmentRefusal)
  const trackingCode = text(params["tracking_code"])?.trim() || undefined
  const noteToBuyer = text(params["note_to_buyer"])?.trim() || null
  const carrierName = text(params["carrier_name"])?.trim() || undefined
  if (flag(params["send_bcc"]) === "invalid") return error(400, "send_bcc must be a boolean")
  if (isCanceled(receipt)) return error(409, `Receipt ${receiptId} is canceled and cannot be shipped`)
  if (!receipt.is_paid) return error(409, `Receipt ${receiptId} has not been paid`)
  if ((trackingCode === undefined) !== (carrierName === undefined)) {
    return error(400, "tracking_code and carrier_name must be given together")
  }
  if (carrierName !== undefined && knownCarrier(carrierName) === undefined) {
    return error(400, `carrier_name "${carrierName}" is not a supported carrier; send carrier_name=other`)
  }
  const domesticUs = ctx.shopCountry === "US" && receipt.country_iso === "US" && grandtotalCents(receipt) > 1000
  if (trackingCode === undefined && (domesticUs || receipt.country_iso === "IN")) {
    return error(400, "Tracking information is required for this order")
  }
  ctx.shop.ship(
    receipt,
    trackingCode === undefined || carrierName === undefined ? null : { tracking_code: trackingCode, carrier_name: carrierName },
    noteToBuyer
  )
  return { status: 200, body: receiptView(receipt, ctx.views) }
}

export const updateShopReceipt = (ctx: ApiContext, receiptId: string, params: Record<string, unknown>): ApiAnswer => {
  const receipt = ctx.shop.find(Number(receiptId))
  if (receipt === undefined) return notFound(ctx, receiptId)
  const wasShipped = flag(params["was_shipped"])
  const wasPaid = flag(params["was_paid"])
  if (wasShipped === "invalid" || wasPaid === "invalid") return error(400, "was_shipped and was_paid must be booleans")
  if (wasShipped === undefined && wasPaid === undefined) return error(400, "nothing to update: give was_shipped or was_paid")
  if (wasPaid === false && receipt.is_paid) return error(409, "a paid receipt cannot be marked unpaid")
  ctx.shop.setFlags(receipt, {
    ...(wasShipped === undefined ? {} : { was_shipped: wasShipped }),
    ...(wasPaid === undefined ? {} : { was_paid: wasPaid })
  })
  return { status: 200, body: receiptView(receipt, ctx.views) }
}
