import { GIFT_WRAP_SKU, type LineSpec, type PlannedOrder } from "./OrderPlan.js"

/**
 * The demo's planned orders (OrderPlan.ts, in Shopify's words) as each other
 * store platform's simulator takes them at `POST /__sim/orders` (pure): the
 * same products under that platform's own ids, with the buyer's design where
 * that platform keeps it. The ids are the ones the demo mapping tables name
 * (config/mappings/demo-woocommerce.csv, demo-etsy.csv, demo-jsonfeed.csv).
 */

const attribute = (line: LineSpec, key: string): string | undefined => line.customAttributes.find((a) => a.key === key)?.value

/** "Forest / S" → ["Forest", "S"]; "18x24 in" → [undefined, "18x24 in"]. */
const colourAndSize = (variantTitle: string): readonly [string | undefined, string] => {
  const parts = variantTitle.split(" / ")
  return parts.length >= 2 ? [parts[0], parts.slice(1).join(" / ")] : [undefined, variantTitle]
}

// WooCommerce: the tee is a variable product (311) whose variations are what a line buys and what the
// mapping names; the other products are simple ones, bought (and named) by their product id.
const wooIds: Readonly<Record<string, { readonly productId: number; readonly variationId: number }>> = {
  "UTS01-FOREST-S": { productId: 311, variationId: 4101 },
  "UTS01-DARKHE-M": { productId: 311, variationId: 4102 },
  "UTS01-MILITA-S": { productId: 311, variationId: 4103 },
  "UTS01-SPORTG-S": { productId: 311, variationId: 4104 },
  "UTS01-CHARCO-S": { productId: 311, variationId: 4105 },
  "UTS01-WHITE-S": { productId: 311, variationId: 4106 },
  "MUG-WHT-11OZ": { productId: 362, variationId: 0 },
  "TOTE-NAT-OS": { productId: 377, variationId: 0 },
  "POSTER-MAT-18X24": { productId: 390, variationId: 0 },
  [GIFT_WRAP_SKU]: { productId: 395, variationId: 0 }
}

/** A line as WooCommerce stores it: variation attributes and the add-ons plugin's design fields in its meta. */
const wooLine = (line: LineSpec) => {
  const ids = wooIds[line.sku] ?? { productId: 399, variationId: 0 }
  const [colour, size] = colourAndSize(line.variantTitle)
  const variation = ids.variationId > 0
  return {
    name: variation ? `${line.title} - ${[colour, size].filter((p) => p !== undefined).join(", ")}` : line.title,
    parentName: variation ? line.title : null,
    productId: ids.productId,
    variationId: ids.variationId,
    sku: line.sku,
    quantity: line.quantity,
    price: line.price,
    meta: [
      ...(variation && colour !== undefined ? [{ key: "pa_color", value: colour.toLowerCase().replaceAll(" ", "-") }] : []),
      ...(variation ? [{ key: "pa_size", value: size.toLowerCase() }] : []),
      ...line.customAttributes.map((a) => ({ key: a.key, value: a.value }))
    ]
  }
}

/** The body of the WooCommerce simulator's `POST /__sim/orders`: a paid order, waiting to be processed. */
export const wooCommerceOrder = (planned: PlannedOrder) => ({
  status: "processing",
  lineItems: planned.spec.lineItems.map(wooLine)
})

// Etsy: a listing per product; each colour and size is an inventory product (product_id), which is
// what the mapping names.
const etsyIds: Readonly<Record<string, { readonly listingId: number; readonly productId: number }>> = {
  "UTS01-FOREST-S": { listingId: 1623450012, productId: 18734520011 },
  "UTS01-DARKHE-M": { listingId: 1623450012, productId: 18734520012 },
  "UTS01-MILITA-S": { listingId: 1623450012, productId: 18734520013 },
  "UTS01-SPORTG-S": { listingId: 1623450012, productId: 18734520014 },
  "UTS01-CHARCO-S": { listingId: 1623450012, productId: 18734520015 },
  "UTS01-WHITE-S": { listingId: 1623450012, productId: 18734520016 },
  "MUG-WHT-11OZ": { listingId: 1623450027, productId: 18734520101 },
  "TOTE-NAT-OS": { listingId: 1623450031, productId: 18734520102 },
  "POSTER-MAT-18X24": { listingId: 1623450044, productId: 18734520103 }
}

/** A transaction: colour and size as variations, the buyer's front design as the Personalization answer. */
const etsyTransaction = (line: LineSpec) => {
  const ids = etsyIds[line.sku] ?? { listingId: 1623450099, productId: 18734520199 }
  const [colour, size] = colourAndSize(line.variantTitle)
  const design = attribute(line, "design_front")
  return {
    title: line.title,
    sku: line.sku,
    quantity: line.quantity,
    price_cents: Math.round(Number(line.price) * 100),
    listing_id: ids.listingId,
    product_id: ids.productId,
    variations: [
      ...(colour === undefined ? [] : [{ formatted_name: "Color", formatted_value: colour, property_id: 200 }]),
      { formatted_name: "Size", formatted_value: size, property_id: 100 }
    ],
    ...(design === undefined ? {} : { personalization: design })
  }
}

/**
 * The body of the Etsy simulator's `POST /__sim/receipts`: a paid receipt. Etsy has one Personalization
 * answer per item (the front design) and gift wrapping is an option of the receipt, not an item.
 */
export const etsyReceipt = (planned: PlannedOrder) => {
  const giftWrapped = planned.spec.lineItems.some((l) => l.sku === GIFT_WRAP_SKU)
  return {
    status: "paid",
    transactions: planned.spec.lineItems.filter((l) => l.sku !== GIFT_WRAP_SKU).map(etsyTransaction),
    ...(giftWrapped ? { is_gift: true, gift_message: "Happy birthday!" } : {})
  }
}

/** The body of the JSON feed storefront's `POST /__sim/orders`: the contract's shape, close to Shopify's. */
export const jsonFeedOrder = (planned: PlannedOrder) => ({
  financialStatus: "paid",
  lines: planned.spec.lineItems.map((line) => ({
    sku: line.sku,
    title: line.title,
    variantTitle: line.variantTitle,
    quantity: line.quantity,
    unitPrice: line.price,
    requiresShipping: line.requiresShipping,
    attributes: line.customAttributes.map((a) => ({ key: a.key, value: a.value }))
  }))
})
