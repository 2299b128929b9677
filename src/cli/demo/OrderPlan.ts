import { seededRandom } from "../../simulator/shopify/fixtures.js"

/**
 * The demo's stream of shop orders, planned up front (pure, seeded): mostly
 * tees the demo mapping tables carry (config/mappings/demo-shopify.csv and
 * its siblings for the other platforms), a few with an item nobody mapped
 * (held: unmatched), and one the customer cancels right after ordering.
 * The plan is written in Shopify's words; PlatformOrders.ts says the same
 * orders in the other platforms'. Buyer, address and shipping line come from
 * each store simulator's own realistic fixtures.
 */

export type OrderKind = "mapped" | "unmapped" | "cancelled"

export interface LineSpec {
  readonly sku: string
  readonly title: string
  readonly variantTitle: string
  readonly quantity: number
  readonly price: string
  readonly requiresShipping: boolean
  readonly customAttributes: ReadonlyArray<{ readonly key: string; readonly value: string }>
}

export interface PlannedOrder {
  /** 0-based position in the stream. */
  readonly index: number
  readonly kind: OrderKind
  /** The body of the store simulator's `POST /__sim/orders`. */
  readonly spec: {
    readonly financialStatus: "PAID"
    readonly lineItems: ReadonlyArray<LineSpec>
  }
}

/** Products of the demo store that the demo mapping table maps to the seeded POD catalog. */
const mappedTees: ReadonlyArray<{ readonly sku: string; readonly colour: string; readonly size: string }> = [
  { sku: "UTS01-FOREST-S", colour: "Forest", size: "S" },
  { sku: "UTS01-DARKHE-M", colour: "Dark Heather", size: "M" },
  { sku: "UTS01-MILITA-S", colour: "Military Green", size: "S" },
  { sku: "UTS01-SPORTG-S", colour: "Sport Grey", size: "S" },
  { sku: "UTS01-CHARCO-S", colour: "Charcoal", size: "S" },
  { sku: "UTS01-WHITE-S", colour: "White", size: "S" }
]

/** Products the seller added to the store but not to the mapping table. */
const unmappedProducts: ReadonlyArray<Omit<LineSpec, "customAttributes" | "quantity" | "requiresShipping">> = [
  { sku: "MUG-WHT-11OZ", title: "Ceramic Mug", variantTitle: "White / 11oz", price: "16.00" },
  { sku: "TOTE-NAT-OS", title: "Canvas Tote", variantTitle: "Natural / One size", price: "22.00" },
  { sku: "POSTER-MAT-18X24", title: "Matte Poster", variantTitle: "18x24 in", price: "19.00" }
]

const designs = ["sunset-wave", "retro-cat", "mountain-line", "coffee-first", "botanical-02", "city-grid", "moon-phase"]

/** The fewest orders a demo can have: one of each kind, with two unmapped ones. */
export const MIN_ORDERS = 4

/** 2 orders with an unmapped item up to 19 orders, 3 from 20 on. */
export const unmappedCount = (count: number): number => (count >= 20 ? 3 : 2)

type Random = () => number
const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)] as A

/** `items[index]` where the plan's arithmetic keeps `index` in range; a slip is a bug, named here. */
const at = <A>(items: ReadonlyArray<A>, index: number): A => {
  const item = items[index]
  if (item === undefined) throw new RangeError(`demo order plan: index ${index} outside 0..${items.length - 1}`)
  return item
}

const designAttributes = (random: Random): LineSpec["customAttributes"] => {
  const design = pick(random, designs)
  return [
    { key: "design_front", value: `https://cdn.example.com/designs/${design}-front.png` },
    ...(random() < 0.3 ? [{ key: "design_back", value: `https://cdn.example.com/designs/${design}-back.png` }] : [])
  ]
}

const teeLine = (random: Random): LineSpec => {
  const tee = pick(random, mappedTees)
  return {
    sku: tee.sku,
    title: "Unisex Softstyle Tee",
    variantTitle: `${tee.colour} / ${tee.size}`,
    quantity: random() < 0.8 ? 1 : 2,
    price: "24.00",
    requiresShipping: true,
    customAttributes: designAttributes(random)
  }
}

/** The gift wrapping the shop does itself: the mapping tables mark it `ignore`. */
export const GIFT_WRAP_SKU = "GIFT-WRAP"

const giftWrapLine: LineSpec = {
  sku: GIFT_WRAP_SKU,
  title: "Gift wrapping",
  variantTitle: "Kraft paper",
  quantity: 1,
  price: "4.00",
  requiresShipping: false,
  customAttributes: []
}

/** Positions 1..count-1, shuffled: the first order is always a plain one, so the stream starts with a success. */
const shuffledPositions = (count: number, random: Random): Array<number> => {
  const positions = Array.from({ length: count - 1 }, (_, i) => i + 1)
  for (let i = positions.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const swap = at(positions, i)
    positions[i] = at(positions, j)
    positions[j] = swap
  }
  return positions
}

export const planOrders = (count: number, seed = 7): ReadonlyArray<PlannedOrder> => {
  if (!Number.isInteger(count) || count < MIN_ORDERS) throw new RangeError(`a demo needs at least ${MIN_ORDERS} orders, got ${count}`)
  const random = seededRandom(seed)
  const positions = shuffledPositions(count, random)
  const unmapped = positions.slice(0, unmappedCount(count))
  // count >= MIN_ORDERS leaves at least one position after the unmapped ones.
  const cancelled = at(positions, unmapped.length)
  return Array.from({ length: count }, (_, index): PlannedOrder => {
    const kind: OrderKind = unmapped.includes(index) ? "unmapped" : index === cancelled ? "cancelled" : "mapped"
    const lines: Array<LineSpec> = [teeLine(random)]
    if (random() < 0.25) lines.push(teeLine(random))
    if (kind === "unmapped") {
      const product = at(unmappedProducts, unmapped.indexOf(index) % unmappedProducts.length)
      lines.push({ ...product, quantity: 1, requiresShipping: true, customAttributes: designAttributes(random) })
    }
    if (random() < 0.2) lines.push(giftWrapLine)
    return { index, kind, spec: { financialStatus: "PAID", lineItems: lines } }
  })
}
