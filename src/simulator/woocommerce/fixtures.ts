import { buyerEmail, buyerFirstNames, buyerLastNames, drawBuyer } from "../kit/names.js"
import { int, pick, type Random } from "../kit/random.js"
import type { Address } from "./model.js"

/**
 * Seeded, realistic WooCommerce order content: US and EU buyers (non-ASCII names and streets, often no
 * address line 2), variable products whose variation attributes sit in line item meta (`pa_color`,
 * `pa_size`) next to the POD personalisation a product add-ons plugin stores there (design URLs, text).
 */

export { seededRandom, type Random } from "../kit/random.js"

// WooCommerce's buyers were always drawn from fewer names.
const firstNames = buyerFirstNames.filter((name) => !["Lucas", "Ethan", "Mateo"].includes(name))
const lastNames = buyerLastNames.filter((name) => !["Martínez", "Brown", "Jansen", "Nguyen"].includes(name))

interface Place {
  city: string
  state: string
  postcode: string
  country: string
  currency: string
  street: string
  phone: string
}
const places: ReadonlyArray<Place> = [
  { city: "Los Angeles", state: "CA", postcode: "90012", country: "US", currency: "USD", street: "Sunset Blvd", phone: "+1 213-555-0" },
  { city: "Brooklyn", state: "NY", postcode: "11201", country: "US", currency: "USD", street: "Atlantic Ave", phone: "+1 718-555-0" },
  { city: "Austin", state: "TX", postcode: "78701", country: "US", currency: "USD", street: "Congress Ave", phone: "+1 512-555-0" },
  { city: "Berlin", state: "", postcode: "10115", country: "DE", currency: "EUR", street: "Torstraße", phone: "+49 30 5550" },
  { city: "München", state: "BY", postcode: "80331", country: "DE", currency: "EUR", street: "Sendlinger Straße", phone: "+49 89 5550" },
  { city: "Milano", state: "MI", postcode: "20121", country: "IT", currency: "EUR", street: "Via Dante", phone: "+39 02 5550" },
  { city: "Lyon", state: "", postcode: "69002", country: "FR", currency: "EUR", street: "Rue de la République", phone: "+33 4 55 50" },
  { city: "Kraków", state: "", postcode: "31-042", country: "PL", currency: "PLN", street: "ulica Floriańska", phone: "+48 12 555 0" }
]

interface Product {
  id: number
  title: string
  price: number
  sku: string
  /** [slug, name] pairs; a product without variations has none. */
  colors: ReadonlyArray<readonly [string, string]>
  sizes: ReadonlyArray<string>
}
const products: ReadonlyArray<Product> = [
  {
    id: 311,
    title: "Classic Tee",
    price: 2400,
    sku: "TEE",
    colors: [["black", "Black"], ["white", "White"], ["navy", "Navy"]],
    sizes: ["s", "m", "l", "xl"]
  },
  {
    id: 340,
    title: "Pullover Hoodie",
    price: 4800,
    sku: "HOOD",
    colors: [["black", "Black"], ["forest", "Forest"]],
    sizes: ["m", "l", "xl"]
  },
  { id: 362, title: "Ceramic Mug", price: 1600, sku: "MUG-WHT-11OZ", colors: [], sizes: [] },
  { id: 377, title: "Canvas Tote", price: 2200, sku: "TOTE-NAT", colors: [], sizes: [] }
]
const designs = ["sunset-wave", "retro-cat", "mountain-line", "coffee-first", "moon-phase"]

export interface MetaSpec {
  key: string
  value: unknown
}

export interface LineItemSpec {
  name?: string
  productId?: number
  variationId?: number
  quantity?: number
  /** Unit price as a decimal string ("24.00"). */
  price?: string
  sku?: string
  parentName?: string | null
  meta?: MetaSpec[]
}

export interface OrderSpec {
  /** When it was placed (ISO-8601, in the past): a store's history. Default now. */
  placedAt?: string
  status?: string
  number?: string
  currency?: string
  customerNote?: string
  billing?: Partial<Address>
  shipping?: Partial<Address>
  lineItems?: LineItemSpec[]
  shippingLine?: { methodTitle?: string; methodId?: string; total?: string } | null
  paymentMethod?: string
  paymentMethodTitle?: string
  meta?: MetaSpec[]
}

export interface GeneratedLine {
  name: string
  productId: number
  variationId: number
  quantity: number
  priceCents: number
  sku: string
  parentName: string | null
  meta: MetaSpec[]
}

export interface GeneratedOrder {
  currency: string
  billing: Address
  shipping: Address
  lineItems: GeneratedLine[]
  shippingLine: { methodTitle: string; methodId: string; totalCents: number }
  customerNote: string
}

const generateLine = (random: Random, firstName: string): GeneratedLine => {
  const product = pick(random, products)
  const design = pick(random, designs)
  const personalisation: MetaSpec[] = [{ key: "design_front", value: `https://cdn.podsync.test/designs/${design}/front.png` }]
  if (random() < 0.3) personalisation.push({ key: "design_back", value: `https://cdn.podsync.test/designs/${design}/back.png` })
  if (random() < 0.25) personalisation.push({ key: "Personalisation", value: `For ${firstName}, with love` })
  const quantity = random() < 0.8 ? 1 : int(random, 2, 3)
  const stock: MetaSpec = { key: "_reduced_stock", value: String(quantity) }
  if (product.colors.length === 0) {
    return {
      name: product.title,
      productId: product.id,
      variationId: 0,
      quantity,
      priceCents: product.price,
      sku: product.sku,
      parentName: null,
      meta: [...personalisation, stock]
    }
  }
  const colorIndex = Math.floor(random() * product.colors.length)
  const [colorSlug, colorName] = product.colors[colorIndex]!
  const size = pick(random, product.sizes)
  return {
    name: `${product.title} - ${colorName}, ${size.toUpperCase()}`,
    productId: product.id,
    variationId: product.id + 1 + colorIndex * product.sizes.length + product.sizes.indexOf(size),
    quantity,
    priceCents: product.price,
    sku: `${product.sku}-${colorSlug.slice(0, 3).toUpperCase()}-${size.toUpperCase()}`,
    parentName: product.title,
    meta: [{ key: "pa_color", value: colorSlug }, { key: "pa_size", value: size }, ...personalisation, stock]
  }
}

export const generateOrder = (random: Random): GeneratedOrder => {
  const buyer = drawBuyer(random, places, { first: firstNames, last: lastNames }, (p) => p.country === "US")
  const { place, firstName, lastName, phone } = buyer
  const address: Address = {
    first_name: firstName,
    last_name: lastName,
    company: buyer.company ?? "",
    address_1: buyer.street,
    address_2: buyer.apartment ?? "",
    city: place.city,
    state: place.state,
    postcode: place.postcode,
    country: place.country,
    phone
  }
  const express = random() < 0.25
  return {
    currency: place.currency,
    billing: { ...address, email: buyerEmail(random, firstName, lastName) },
    shipping: address,
    lineItems: Array.from({ length: int(random, 1, 3) }, () => generateLine(random, firstName)),
    shippingLine: express
      ? { methodTitle: "Express", methodId: "flat_rate", totalCents: 1490 }
      : { methodTitle: "Standard Shipping", methodId: "flat_rate", totalCents: 490 },
    customerNote: random() < 0.2 ? "Please gift wrap 🎁" : ""
  }
}

export const paymentMethods: ReadonlyArray<readonly [string, string]> = [
  ["stripe", "Credit Card (Stripe)"],
  ["ppcp-gateway", "PayPal"],
  ["bacs", "Direct bank transfer"]
]

export const randomHex = (random: Random, length: number): string =>
  Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join("")
