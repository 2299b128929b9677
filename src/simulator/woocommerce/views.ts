import {
  localTime,
  money,
  wallTime,
  type MetaEntry,
  type StoredLineItem,
  type StoredNote,
  type StoredOrder,
  type StoredRefund,
  type TrackingItem
} from "./model.js"

/**
 * Resources as WooCommerce REST v3 writes them (`WC_REST_Orders_V2_Controller::get_formatted_item_data`
 * and friends): money as decimal strings with the store's 2 decimals, `date_*` in the site's local time
 * and `date_*_gmt` in GMT, both without a zone designator; line item meta with `display_key` and
 * `display_value`; `price` a number.
 */

export interface ViewContext {
  /** Site URL, e.g. `http://127.0.0.1:4000`; REST links hang off `<url>/wp-json/`. */
  readonly siteUrl: string
  readonly gmtOffsetHours: number
}

const attributeLabels: Record<string, string> = { pa_color: "Color", pa_size: "Size" }

const displayValue = (meta: MetaEntry): unknown => {
  if (meta.key === "pa_size" && typeof meta.value === "string") return meta.value.toUpperCase()
  if (meta.key.startsWith("pa_") && typeof meta.value === "string") return meta.value.charAt(0).toUpperCase() + meta.value.slice(1)
  return meta.value
}

const metaView = (meta: MetaEntry) => ({ id: meta.id, key: meta.key, value: meta.value })

const itemMetaView = (meta: MetaEntry) => ({
  ...metaView(meta),
  display_key: attributeLabels[meta.key] ?? meta.key,
  display_value: displayValue(meta)
})

const dates = (ctx: ViewContext, name: string, ms: number | null): Record<string, string | null> => ({
  [name]: ms === null ? null : localTime(ms, ctx.gmtOffsetHours),
  [`${name}_gmt`]: ms === null ? null : wallTime(ms)
})

const lineItemView = (item: StoredLineItem) => ({
  id: item.id,
  name: item.name,
  product_id: item.productId,
  variation_id: item.variationId,
  quantity: item.quantity,
  tax_class: item.taxClass,
  subtotal: money(item.subtotalCents),
  subtotal_tax: "0.00",
  total: money(item.totalCents),
  total_tax: "0.00",
  taxes: [],
  meta_data: item.meta.map(itemMetaView),
  sku: item.sku,
  price: item.quantity === 0 ? 0 : item.totalCents / item.quantity / 100,
  image: { id: item.imageId, src: "" },
  parent_name: item.parentName
})

const rest = (ctx: ViewContext, path: string) => [{ href: `${ctx.siteUrl}/wp-json/${path}` }]

export const orderView = (ctx: ViewContext, order: StoredOrder) => {
  const shippingTotal = order.shippingLines.reduce((sum, s) => sum + s.totalCents, 0)
  const total = order.lineItems.reduce((sum, l) => sum + l.totalCents, 0) + shippingTotal
  return {
    id: order.id,
    parent_id: 0,
    status: order.status,
    currency: order.currency,
    version: "9.8.5",
    prices_include_tax: false,
    ...dates(ctx, "date_created", order.createdAt),
    ...dates(ctx, "date_modified", order.modifiedAt),
    discount_total: "0.00",
    discount_tax: "0.00",
    shipping_total: money(shippingTotal),
    shipping_tax: "0.00",
    cart_tax: "0.00",
    total: money(total),
    total_tax: "0.00",
    customer_id: order.customerId,
    order_key: order.orderKey,
    billing: { ...order.billing },
    shipping: (({ email: _email, ...shipping }) => shipping)(order.shipping),
    payment_method: order.paymentMethod,
    payment_method_title: order.paymentMethodTitle,
    transaction_id: order.transactionId,
    customer_ip_address: "203.0.113.24",
    customer_user_agent:
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
    created_via: order.createdVia,
    customer_note: order.customerNote,
    ...dates(ctx, "date_completed", order.completedAt),
    ...dates(ctx, "date_paid", order.paidAt),
    cart_hash: "",
    number: order.number,
    meta_data: order.meta.map(metaView),
    line_items: order.lineItems.map(lineItemView),
    tax_lines: [],
    shipping_lines: order.shippingLines.map((s) => ({
      id: s.id,
      method_title: s.methodTitle,
      method_id: s.methodId,
      instance_id: s.instanceId,
      total: money(s.totalCents),
      total_tax: "0.00",
      taxes: [],
      meta_data: []
    })),
    fee_lines: [],
    coupon_lines: [],
    refunds: order.refunds.map((r) => ({ id: r.id, reason: r.reason, total: `-${money(r.amountCents)}` })),
    payment_url: `${ctx.siteUrl}/checkout/order-pay/${order.id}/?pay_for_order=true&key=${order.orderKey}`,
    is_editable: order.status === "pending" || order.status === "on-hold",
    needs_payment: order.status === "pending" || order.status === "failed",
    needs_processing: true,
    currency_symbol: order.currency === "EUR" ? "€" : order.currency === "USD" ? "$" : order.currency,
    _links: {
      self: rest(ctx, `wc/v3/orders/${order.id}`),
      collection: rest(ctx, "wc/v3/orders"),
      ...(order.customerId === 0 ? {} : { customer: rest(ctx, `wc/v3/customers/${order.customerId}`) })
    }
  }
}

export const noteView = (ctx: ViewContext, order: StoredOrder, note: StoredNote) => ({
  id: note.id,
  author: note.author,
  ...dates(ctx, "date_created", note.createdAt),
  note: note.note,
  customer_note: note.customerNote,
  _links: {
    self: rest(ctx, `wc/v3/orders/${order.id}/notes/${note.id}`),
    collection: rest(ctx, `wc/v3/orders/${order.id}/notes`),
    up: rest(ctx, `wc/v3/orders/${order.id}`)
  }
})

export const refundView = (ctx: ViewContext, order: StoredOrder, refund: StoredRefund) => ({
  id: refund.id,
  ...dates(ctx, "date_created", refund.createdAt),
  amount: money(refund.amountCents),
  reason: refund.reason,
  refunded_by: 1,
  refunded_payment: false,
  meta_data: [],
  line_items: refund.lines.map((l) => {
    const item = order.lineItems.find((i) => i.id === l.refundedItemId)
    return {
      id: l.id,
      name: item?.name ?? "",
      product_id: item?.productId ?? 0,
      variation_id: item?.variationId ?? 0,
      quantity: -l.quantity,
      tax_class: "",
      subtotal: `-${money(l.totalCents)}`,
      subtotal_tax: "0.00",
      total: `-${money(l.totalCents)}`,
      total_tax: "0.00",
      taxes: [],
      meta_data: [{
        id: l.metaId,
        key: "_refunded_item_id",
        value: String(l.refundedItemId),
        display_key: "_refunded_item_id",
        display_value: String(l.refundedItemId)
      }],
      sku: item?.sku ?? "",
      price: item === undefined || item.quantity === 0 ? 0 : -(item.totalCents / item.quantity / 100)
    }
  }),
  shipping_lines: [],
  tax_lines: [],
  fee_lines: [],
  _links: {
    self: rest(ctx, `wc/v3/orders/${order.id}/refunds/${refund.id}`),
    collection: rest(ctx, `wc/v3/orders/${order.id}/refunds`),
    up: rest(ctx, `wc/v3/orders/${order.id}`)
  }
})

/** The Shipment Tracking extension's answer for one item, provider and link as `get_formatted_tracking_item` gives them. */
export const trackingView = (
  ctx: ViewContext,
  order: StoredOrder,
  item: TrackingItem,
  formatted: { readonly provider: string; readonly link: string }
) => ({
  tracking_id: item.tracking_id,
  tracking_provider: formatted.provider,
  tracking_link: formatted.link,
  tracking_number: item.tracking_number,
  date_shipped: new Date(Number(item.date_shipped) * 1000).toISOString().slice(0, 10),
  _links: {
    self: rest(ctx, `wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings/${item.tracking_id}`),
    collection: rest(ctx, `wc-shipment-tracking/v3/orders/${order.id}/shipment-trackings`),
    up: rest(ctx, `wc/v3/orders/${order.id}`)
  }
})

/** `WC_API_Server::format_datetime`: UTC with a `Z`, no fraction. */
const legacyTime = (ms: number | null): string | null => (ms === null ? null : `${wallTime(ms)}Z`)

const legacyAddress = (address: StoredOrder["billing"]) => ({
  first_name: address.first_name,
  last_name: address.last_name,
  company: address.company,
  address_1: address.address_1,
  address_2: address.address_2,
  city: address.city,
  state: address.state,
  postcode: address.postcode,
  country: address.country,
  ...(address.email === undefined ? {} : { email: address.email }),
  phone: address.phone
})

/**
 * The order as the legacy REST API v3 (`WC_API_Orders::get_order`) writes it: what a webhook whose
 * API version is `legacy_v3` delivers, wrapped as `{"order": …}`. Other names than REST v3
 * (`order_number`, `updated_at` in UTC with a `Z`, `billing_address`, line `meta` as key/label/value).
 */
export const legacyOrderView = (ctx: ViewContext, order: StoredOrder) => {
  const shippingTotal = order.shippingLines.reduce((sum, s) => sum + s.totalCents, 0)
  const itemsTotal = order.lineItems.reduce((sum, l) => sum + l.totalCents, 0)
  return {
    id: order.id,
    order_number: order.number,
    order_key: order.orderKey,
    created_at: legacyTime(order.createdAt),
    updated_at: legacyTime(order.modifiedAt),
    completed_at: legacyTime(order.completedAt),
    status: order.status,
    currency: order.currency,
    total: money(itemsTotal + shippingTotal),
    subtotal: money(order.lineItems.reduce((sum, l) => sum + l.subtotalCents, 0)),
    total_line_items_quantity: order.lineItems.reduce((sum, l) => sum + l.quantity, 0),
    total_tax: "0.00",
    total_shipping: money(shippingTotal),
    cart_tax: "0.00",
    shipping_tax: "0.00",
    total_discount: "0.00",
    shipping_methods: order.shippingLines.map((s) => s.methodTitle).join(", "),
    payment_details: { method_id: order.paymentMethod, method_title: order.paymentMethodTitle, paid: order.paidAt !== null },
    billing_address: legacyAddress(order.billing),
    shipping_address: legacyAddress(order.shipping),
    note: order.customerNote,
    customer_ip: "203.0.113.24",
    customer_id: order.customerId,
    view_order_url: `${ctx.siteUrl}/my-account/view-order/${order.id}/`,
    line_items: order.lineItems.map((item) => ({
      id: item.id,
      subtotal: money(item.subtotalCents),
      subtotal_tax: "0.00",
      total: money(item.totalCents),
      total_tax: "0.00",
      price: money(item.quantity === 0 ? 0 : Math.round(item.totalCents / item.quantity)),
      quantity: item.quantity,
      tax_class: item.taxClass === "" ? null : item.taxClass,
      name: item.name,
      product_id: item.variationId > 0 ? item.variationId : item.productId,
      sku: item.sku,
      // The legacy API leaves hidden (`_`) meta out.
      meta: item.meta.filter((m) => !m.key.startsWith("_")).map((m) => ({
        key: m.key,
        label: attributeLabels[m.key] ?? m.key,
        value: String(displayValue(m))
      }))
    })),
    shipping_lines: order.shippingLines.map((s) => ({
      id: s.id,
      method_id: s.methodId,
      method_title: s.methodTitle,
      total: money(s.totalCents)
    })),
    tax_lines: [],
    fee_lines: [],
    coupon_lines: []
  }
}
