import {
  formatCents,
  fulfilledQuantity,
  gid,
  restFulfillmentStatus,
  shippingCents,
  subtotalCents,
  unfulfilledQuantity,
  type Address,
  type StoredOrder
} from "./model.js"

/**
 * An order as Shopify's webhooks send it: the REST resource, snake_case, numeric ids, timestamps with a
 * UTC offset, `line_items[].properties[{name, value}]`.
 */

const restTime = (ms: number | null): string | null => ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00")

const restAddress = (a: Address | null) =>
  a && {
    first_name: a.firstName,
    last_name: a.lastName,
    name: [a.firstName, a.lastName].filter((p) => p).join(" "),
    company: a.company,
    address1: a.address1,
    address2: a.address2,
    city: a.city,
    province: a.province,
    province_code: a.provinceCode,
    zip: a.zip,
    country: a.country,
    country_code: a.countryCodeV2,
    phone: a.phone,
    latitude: null,
    longitude: null
  }

export const restOrder = (order: StoredOrder): Record<string, unknown> => {
  const subtotal = subtotalCents(order, false)
  const currentSubtotal = subtotalCents(order, true)
  const shipping = shippingCents(order)
  return {
    id: order.id,
    admin_graphql_api_id: gid("Order", order.id),
    name: order.name,
    order_number: order.number,
    number: order.number - 1000,
    email: order.email,
    contact_email: order.email,
    phone: order.phone,
    created_at: restTime(order.createdAt),
    updated_at: restTime(order.updatedAt),
    processed_at: restTime(order.processedAt),
    cancelled_at: restTime(order.cancelledAt),
    cancel_reason: order.cancelReason === null ? null : order.cancelReason.toLowerCase(),
    closed_at: restTime(order.closedAt),
    confirmed: true,
    test: false,
    currency: order.currencyCode,
    presentment_currency: order.currencyCode,
    financial_status: order.financialStatus.toLowerCase(),
    fulfillment_status: restFulfillmentStatus(order),
    subtotal_price: formatCents(subtotal),
    current_subtotal_price: formatCents(currentSubtotal),
    total_shipping_price_set: { shop_money: { amount: formatCents(shipping), currency_code: order.currencyCode } },
    total_price: formatCents(subtotal + shipping),
    current_total_price: formatCents(currentSubtotal + (currentSubtotal > 0 ? shipping : 0)),
    note: order.note,
    note_attributes: order.customAttributes.map((a) => ({ name: a.key, value: a.value })),
    tags: [...order.tags].sort().join(", "),
    customer: {
      id: order.customerId,
      email: order.email,
      first_name: order.shippingAddress?.firstName ?? null,
      last_name: order.shippingAddress?.lastName ?? null
    },
    shipping_address: restAddress(order.shippingAddress),
    billing_address: restAddress(order.billingAddress),
    shipping_lines: order.shippingLine
      ? [{
        id: order.id,
        title: order.shippingLine.title,
        code: order.shippingLine.code,
        price: order.shippingLine.price,
        source: "shopify"
      }]
      : [],
    line_items: order.lineItems.map((l) => {
      const fulfilled = fulfilledQuantity(order, l.id)
      return {
        id: l.id,
        admin_graphql_api_id: gid("LineItem", l.id),
        name: l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title,
        title: l.title,
        variant_title: l.variantTitle,
        sku: l.sku,
        vendor: l.vendor,
        quantity: l.quantity,
        current_quantity: l.currentQuantity,
        fulfillable_quantity: unfulfilledQuantity(order, l),
        fulfillment_status: fulfilled === 0 ? null : fulfilled >= l.currentQuantity ? "fulfilled" : "partial",
        price: l.price,
        variant_id: l.variantId === null ? null : Number(l.variantId),
        product_id: l.productId === null ? null : Number(l.productId),
        requires_shipping: l.requiresShipping,
        gift_card: false,
        properties: l.customAttributes.map((a) => ({ name: a.key, value: a.value }))
      }
    }),
    fulfillments: order.fulfillments.map((f) => ({
      id: f.id,
      admin_graphql_api_id: gid("Fulfillment", f.id),
      name: f.name,
      order_id: order.id,
      status: f.status === "SUCCESS" ? "success" : "cancelled",
      created_at: restTime(f.createdAt),
      updated_at: restTime(f.updatedAt),
      tracking_company: f.tracking[0]?.company ?? null,
      tracking_number: f.tracking[0]?.number ?? null,
      tracking_numbers: f.tracking.flatMap((t) => (t.number === null ? [] : [t.number])),
      tracking_url: f.tracking[0]?.url ?? null,
      tracking_urls: f.tracking.flatMap((t) => (t.url === null ? [] : [t.url])),
      line_items: f.lines.map((fl) => ({ id: fl.lineItemId, quantity: fl.quantity }))
    }))
  }
}
