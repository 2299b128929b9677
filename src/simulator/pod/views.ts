// How drafts and orders look on the wire (v3). Amounts come from the same
// deterministic price function as the price quote.
import type { Catalog, CatalogVariant } from "./catalog.js"
import { productOf } from "./catalog.js"
import { DRAFT_STATUS_PREFIX, ORDER_STATUS_PREFIX, orderStockLabel, PAYMENT_STATUS_PREFIX, PRINT_LOCATION_PREFIX } from "./enums.js"
import { moneyWriter } from "./money.js"
import type { Quote } from "./pricing.js"
import { quote } from "./pricing.js"
import { omitZeroValues } from "./protoJson.js"
import type { DraftRecord, LineRecord, OrderRecord, TrackingRecord } from "./state.js"
import type { Json } from "./wire.js"
import { iso } from "./wire.js"

type MoneyOf = (cents: number) => Json

export const draftQuote = (draft: DraftRecord): Quote =>
  quote(
    draft.lineItems.map((l) => ({ variant: l.variant, quantity: l.quantity, locationCount: l.printingOptions.length })),
    {
      countryCode: draft.address?.["country_code"] ?? "US",
      stateCode: draft.address?.["state_code"] ?? "",
      method: draft.shippingMethod,
      labeled: draft.labelUrls.length > 0
    },
    draft.giftMessageBody === null ? 0 : 1,
    draft.iossNumber
  )

const at = (ms: number | null): string | undefined => (ms === null ? undefined : iso(ms))

// The published contract gives each form its own fields: a draft line's variant
// has prices and images; an order list line's has variant_name and option_3_name.
const variantSummary = (catalog: Catalog, variant: CatalogVariant, money: MoneyOf, kind: "draft" | "order"): Json => {
  const product = productOf(catalog, variant)
  const common = {
    variant_id: variant.variantId,
    legacy_id: variant.legacyVariantId,
    sku: variant.sku,
    name: variant.name,
    description: `${product.name}, ${variant.color}, ${variant.size}`,
    option_1: variant.color,
    option_2: variant.size,
    option_3: "",
    option_1_name: "Color",
    option_2_name: "Size",
    stock_label: orderStockLabel(variant.stockLabel)
  }
  return kind === "draft"
    ? {
      ...common,
      price: money(variant.priceCents),
      price_gm: money(variant.priceCents),
      images: [{ url: variant.imageUrl, tag: "mockup" }]
    }
    : { ...common, variant_name: variant.name, option_3_name: "" }
}

const printingOptions = (line: LineRecord): Json =>
  line.printingOptions.map((o) => ({ print_location_code: PRINT_LOCATION_PREFIX + o.location, design_url: o.url }))

const giftMessages = (draft: DraftRecord, orderId: string): Json =>
  draft.giftMessageBody === null
    ? []
    : [{
      order_id: orderId,
      gift_message_id: `gm-${draft.legacyNumber}`,
      type: "TYPE_CUSTOM_IMAGE",
      content: draft.giftMessageBody,
      avatar_url: "",
      gift_message_name: "Gift message"
    }]

const addresses = (draft: DraftRecord): Json => (draft.address === null ? [] : [{ ...draft.address }])

const orderMoney = (q: Quote, money: MoneyOf): Record<string, Json> => ({
  order_total: money(q.total),
  order_subtotal: money(q.subTotal),
  order_shipping_fee: money(q.shipping),
  order_handle_fee: money(q.handleFee),
  order_tax: money(q.tax),
  order_fee: money(q.fee),
  order_discount: money(q.discount)
})

const lineMoney = (priced: Quote["lines"][number] | undefined, money: MoneyOf): Record<string, Json> => ({
  item_price: money(priced?.itemPrice ?? 0),
  line_tax: money(priced?.tax ?? 0),
  line_fee: money(priced?.fee ?? 0),
  line_discount: money(priced?.discount ?? 0),
  line_subtotal: money(priced?.subTotal ?? 0),
  line_total: money(priced?.total ?? 0)
})

/** Protobuf JSON of one record: zero values left out (enums become numbers for some records in the server). */
const asSent = (_seed: number, _id: string, view: Json): Json => omitZeroValues(view)

/**
 * A draft as `VendorOrderDraft` (get one, `full`) or `VendorOrderDraft.Short`
 * (list items and create answers). Drafts carry no `created_at`: `order_date`
 * is when the draft was made.
 */
export const draftView = (catalog: Catalog, seed: number, draft: DraftRecord, full: boolean): Json => {
  const money = moneyWriter(seed, draft.id)
  const q = draftQuote(draft)
  return asSent(seed, draft.id, {
    order_id: draft.id,
    team_id: "",
    store_id: draft.storeId,
    store_name: `Store ${draft.storeId}`,
    reference_id: draft.referenceId ?? "",
    ...(full ? { platform_ref: draft.referenceId ?? "" } : {}),
    order_platform: draft.platform,
    import_id: "",
    pull_id: "",
    request_id: draft.requestId,
    created_method: draft.createdMethod,
    fulfillment_vendor: "VENDOR_FULFILLMENT_VENDOR_GEARMENT",
    priority: "VENDOR_FULFILLMENT_PRIORITY_NORMAL",
    fulfillment_option: { purchase_tracking_config: "VENDOR_PURCHASE_TRACKING_TIME_DEFAULT" },
    shipping_option: { method: draft.shippingMethod },
    ...(draft.substitution === undefined ? {} : { shipping_substitution: { ...draft.substitution } }),
    billing_option: draft.billingOption ?? {},
    order_date: iso(draft.createdAt),
    status: DRAFT_STATUS_PREFIX + draft.status,
    shipping_labels: [...draft.labelUrls],
    is_label_attached: draft.labelUrls.length > 0,
    shipping_verification_status: draft.labelUrls.length > 0
      ? "VENDOR_SHIPPING_VERIFICATION_STATUS_CONSTRAINT_VALID"
      : draft.addressVerified
      ? "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_VERIFIED"
      : "VENDOR_SHIPPING_VERIFICATION_STATUS_ADDRESS_UNVERIFIED",
    product_matching_status: "VENDOR_PRODUCT_MATCHING_STATUS_MATCHED",
    is_shipping_verification_bypassed: draft.agreeAtRisk,
    is_approved: draft.isApproved,
    approved_at: at(draft.approvedAt),
    origin_draft_id: "",
    origin_order_id: draft.originOrderId ?? "",
    addresses: addresses(draft),
    gift_messages: giftMessages(draft, draft.id),
    legacy_external_id: String(draft.legacyNumber),
    ...orderMoney(q, money),
    auto_approve: draft.autoApprove,
    line_items: draft.lineItems.map((line, index) => {
      const product = productOf(catalog, line.variant)
      const priced = q.lines[index]
      return {
        id: line.id,
        line_item_id: line.lineItemId,
        order_id: draft.id,
        quantity: line.quantity,
        printing_options: printingOptions(line),
        origin_options: [],
        fulfillment_option: { barcode_url: line.barcodeUrl ?? "" },
        variant: variantSummary(catalog, line.variant, money, "draft"),
        product: {
          product_id: product.productId,
          name: product.name,
          description: product.description,
          images: [{ url: product.avatarUrl, tag: "avatar" }],
          print_locations: product.printLocations.map((l) => ({ ...l })),
          sku: product.skuPrefix
        },
        ...(full ? lineMoney(priced, money) : { line_total: money(priced?.total ?? 0) })
      }
    })
  })
}

const trackingFile = (t: TrackingRecord): Json => ({
  file_name: `${t.trackingNo}.pdf`,
  file_url: `https://labels.pod-sim.test/${t.trackingNo}.pdf`,
  storage_type: "STORAGE_TYPE_S3"
})

/** What both forms of an order line carry. */
const orderLineCommon = (catalog: Catalog, order: OrderRecord, line: LineRecord): Record<string, Json> => {
  const product = productOf(catalog, line.variant)
  return {
    id: String(line.id),
    line_item_id: line.lineItemId,
    order_id: order.id,
    quantity: line.quantity,
    printing_options: printingOptions(line),
    seller_variant_id: "",
    product_id: product.productId,
    product_name: product.name,
    product_url: product.avatarUrl
  }
}

/**
 * An order as `VendorOrder` (get one) or `VendorOrder.Short` (list items). A
 * list item carries only the primary tracking, as `tracking_number` and its
 * `tracking_*` companions; the whole order carries `tracking_no` and every
 * package in `order_trackings`. Only the whole order has `created_at`.
 */
export const orderView = (catalog: Catalog, seed: number, order: OrderRecord, listItem: boolean): Json => {
  const draft = order.draft
  const money = moneyWriter(seed, order.id)
  const q = draftQuote(draft)
  const primary = order.trackings.find((t) => t.type === "TRACKING_TYPE_PRIMARY")
  const paid = order.paymentStatus === "SUCCESS"
  const common = {
    order_id: order.id,
    store_id: draft.storeId,
    store_name: `Store ${draft.storeId}`,
    team_id: "",
    created_method: draft.createdMethod,
    order_platform: draft.platform,
    platform_ref: draft.referenceId ?? "",
    fulfillment_option: { purchase_tracking_config: "VENDOR_PURCHASE_TRACKING_TIME_DEFAULT" },
    shipping_option: { method: draft.shippingMethod },
    ...(draft.substitution === undefined ? {} : { shipping_substitution: { ...draft.substitution } }),
    billing_option: draft.billingOption ?? {},
    shipping_labels: [...draft.labelUrls],
    order_date: iso(draft.createdAt),
    approved_at: at(draft.approvedAt ?? order.createdAt),
    paid_at: at(order.paidAt),
    order_status: ORDER_STATUS_PREFIX + order.status,
    order_subtotal: money(q.subTotal),
    order_tax: money(q.tax),
    order_total: money(q.total),
    order_gift_message_fee: money(q.giftMessageFee),
    order_shipping_fee: money(q.shipping),
    order_handle_fee: money(q.handleFee),
    order_surcharge: money(0),
    order_rush_fee: money(0),
    addresses: addresses(draft),
    gift_messages: giftMessages(draft, order.id),
    legacy_external_id: String(draft.legacyNumber),
    reference_id: draft.referenceId ?? ""
  }
  if (listItem) {
    return asSent(seed, order.id, {
      ...common,
      // Only list items carry these two.
      shipped_at: at(order.shippedAt),
      payment_status: PAYMENT_STATUS_PREFIX + order.paymentStatus,
      tracking_number: primary?.trackingNo ?? "",
      tracking_link: primary?.url ?? "",
      tracking_company: primary?.carrier ?? "",
      tracking_product_type: primary?.service ?? "",
      tracking_date_created: primary === undefined ? undefined : iso(primary.updatedAt),
      // A plain string on list items (the enum is only on `order_trackings[]`).
      tracking_type: primary === undefined ? "" : "primary",
      line_items: draft.lineItems.map((line, index) => ({
        ...orderLineCommon(catalog, order, line),
        product_sku: productOf(catalog, line.variant).skuPrefix,
        ...lineMoney(q.lines[index], money),
        fulfillment_option: { barcode_url: line.barcodeUrl ?? "" },
        variant: variantSummary(catalog, line.variant, money, "order")
      }))
    })
  }
  return asSent(seed, order.id, {
    ...common,
    fulfillment_vendor: "VENDOR_FULFILLMENT_VENDOR_GEARMENT",
    priority: "VENDOR_FULFILLMENT_PRIORITY_NORMAL",
    vendor_ref: draft.referenceId ?? "",
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
    primary_package_id: `pkg-${draft.legacyNumber}`,
    primary_shipment_id: primary === undefined ? "" : `shp-${primary.trackingNo}`,
    is_label_attached: draft.labelUrls.length > 0,
    order_fee: money(q.fee),
    order_discount: money(q.discount),
    order_redeem: money(0),
    paid_total: money(paid ? q.total : 0),
    paid_needed: money(paid ? 0 : q.total),
    order_thank_card_fee: money(0),
    refunded_total: money(0),
    tracking_no: primary?.trackingNo ?? "",
    line_items: draft.lineItems.map((line, index) => ({
      ...orderLineCommon(catalog, order, line),
      variant_id: line.variant.variantId,
      variant_sku: line.variant.sku,
      variant_name: line.variant.name,
      product_type_name: productOf(catalog, line.variant).typeName,
      option_1: line.variant.color,
      option_2: line.variant.size,
      ...lineMoney(q.lines[index], money)
    })),
    stages: order.stages.map((s) => ({
      stage_id: s.id,
      stage_name: s.name,
      stage_started_at: iso(s.startedAt),
      stage_completed_at: at(s.completedAt),
      is_completed: s.completedAt !== null
    })),
    order_trackings: order.trackings.map((t) => ({
      tracking_no: t.trackingNo,
      tracking_updated_at: iso(t.updatedAt),
      carrier: t.carrier,
      service: t.service,
      type: t.type === "TRACKING_TYPE_PRIMARY" ? "primary" : "secondary",
      tracking_type: t.type,
      tracking_url: t.url,
      label_file: trackingFile(t)
    })),
    refund_status: "VENDOR_ORDER_REFUND_STATUS_NOT_REQUESTED",
    cancel_status: order.status === "CANCELLED" ? "VENDOR_ORDER_CANCEL_STATUS_CANCELED" : "VENDOR_ORDER_CANCEL_STATUS_NOT_REQUESTED",
    order_priority: "Normal",
    cancel_reason: order.cancelReason === null
      ? undefined
      : { reason_id: "sim", display_name: "Cancelled", custom_reason: order.cancelReason }
  })
}
