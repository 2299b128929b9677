import {
  grandtotalCents,
  money,
  shippingCents,
  subtotalCents,
  type StoredReceipt,
  type StoredShipment,
  type StoredTransaction
} from "./model.js"

/**
 * Receipts as Etsy's Open API v3 answers them (`ShopReceipt`, `ShopReceiptTransaction`,
 * `ShopReceiptShipment`, money as `{amount, divisor, currency_code}`), with both spellings of the
 * timestamps. Etsy returns text HTML-encoded (etsy/open-api#446: `"13 O&#39;Connell Street"`), so text
 * fields are encoded here unless the simulator is told otherwise.
 */

export interface ViewOptions {
  readonly htmlEntities: boolean
  /** buyer_email is null unless Etsy has approved the app's access to it. */
  readonly buyerEmailVisible: boolean
}

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export const htmlEncode = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c] ?? c)

const countries: Record<string, string> = {
  US: "United States",
  DE: "Germany",
  FR: "France",
  GB: "United Kingdom",
  CA: "Canada",
  JP: "Japan",
  PL: "Poland"
}

const formattedAddress = (r: StoredReceipt): string | null => {
  const cityLine = [r.city, [r.state, r.zip].filter((p) => p !== null).join(" ")].filter((p) => p !== null && p !== "").join(", ")
  const lines = [r.name, r.first_line, r.second_line, cityLine, r.country_iso === null ? null : countries[r.country_iso] ?? r.country_iso]
  const present = lines.filter((l): l is string => l !== null && l !== "")
  // Withheld (every line null, the name kept): Etsy withholds the formatted address too.
  return present.length <= (r.name === null || r.name === "" ? 0 : 1) ? null : present.join("\n")
}

const shipmentView = (s: StoredShipment) => ({
  receipt_shipping_id: s.receipt_shipping_id,
  shipment_notification_timestamp: s.shipment_notification_timestamp,
  carrier_name: s.carrier_name,
  tracking_code: s.tracking_code
})

const transactionView = (r: StoredReceipt, t: StoredTransaction, text: (s: string) => string) => ({
  transaction_id: t.transaction_id,
  title: text(t.title),
  description: null,
  seller_user_id: r.seller_user_id,
  buyer_user_id: r.buyer_user_id,
  create_timestamp: t.create_timestamp,
  created_timestamp: t.create_timestamp,
  paid_timestamp: t.paid_timestamp,
  shipped_timestamp: t.shipped_timestamp,
  quantity: t.quantity,
  listing_image_id: t.listing_id + 7000000000,
  receipt_id: r.receipt_id,
  is_digital: t.is_digital,
  file_data: "",
  listing_id: t.listing_id,
  transaction_type: "listing",
  product_id: t.product_id,
  sku: t.sku,
  price: money(t.priceCents, r.currency),
  shipping_cost: money(t.shippingCents, r.currency),
  variations: t.variations.map((v) => ({
    property_id: v.property_id,
    value_id: v.value_id,
    formatted_name: text(v.formatted_name),
    formatted_value: text(v.formatted_value),
    ...(v.question_id === undefined ? {} : { question_id: v.question_id })
  })),
  product_data: t.variations
    .filter((v) => v.value_id !== null)
    .map((v) => ({
      property_id: v.property_id,
      property_name: text(v.formatted_name),
      scale_id: null,
      scale_name: null,
      value_ids: [v.value_id],
      values: [text(v.formatted_value)]
    })),
  shipping_profile_id: 190000000001,
  min_processing_days: 1,
  max_processing_days: 3,
  shipping_method: t.shipping_method,
  shipping_upgrade: null,
  expected_ship_date: t.expected_ship_date,
  buyer_coupon: 0,
  shop_coupon: 0
})

export const receiptView = (r: StoredReceipt, options: ViewOptions) => {
  const text = (s: string) => (options.htmlEntities ? htmlEncode(s) : s)
  const nullableText = (s: string | null) => (s === null ? null : text(s))
  const address = formattedAddress(r)
  return {
    receipt_id: r.receipt_id,
    receipt_type: r.receipt_type,
    seller_user_id: r.seller_user_id,
    seller_email: "seller@acme-prints.example",
    buyer_user_id: r.buyer_user_id,
    buyer_email: options.buyerEmailVisible ? r.buyer_email : null,
    // A string in Etsy's OAS, even where the address is withheld.
    name: text(r.name ?? ""),
    first_line: nullableText(r.first_line),
    second_line: nullableText(r.second_line),
    city: nullableText(r.city),
    state: nullableText(r.state),
    zip: nullableText(r.zip),
    status: r.status,
    formatted_address: address === null ? null : text(address),
    country_iso: r.country_iso,
    payment_method: r.payment_method,
    payment_email: null,
    message_from_seller: null,
    message_from_buyer: text(r.message_from_buyer),
    message_from_payment: null,
    is_paid: r.is_paid,
    is_shipped: r.is_shipped,
    create_timestamp: r.create_timestamp,
    created_timestamp: r.create_timestamp,
    update_timestamp: r.update_timestamp,
    updated_timestamp: r.update_timestamp,
    is_gift: r.is_gift,
    gift_message: text(r.gift_message),
    gift_sender: "",
    grandtotal: money(grandtotalCents(r), r.currency),
    subtotal: money(subtotalCents(r) - r.discountCents, r.currency),
    total_price: money(subtotalCents(r), r.currency),
    total_shipping_cost: money(shippingCents(r), r.currency),
    total_tax_cost: money(r.taxCents, r.currency),
    total_vat_cost: money(r.vatCents, r.currency),
    discount_amt: money(r.discountCents, r.currency),
    gift_wrap_price: money(0, r.currency),
    shipments: r.shipments.map(shipmentView),
    transactions: r.transactions.map((t) => transactionView(r, t, text)),
    refunds: r.refunds.map((refund) => ({
      amount: money(refund.amountCents, r.currency),
      created_timestamp: refund.created_timestamp,
      reason: refund.reason,
      note_from_issuer: refund.note_from_issuer,
      status: refund.status
    }))
  }
}

export type ReceiptView = ReturnType<typeof receiptView>
