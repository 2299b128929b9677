import { buyerEmail, buyerFirstNames, buyerLastNames, drawBuyer } from "../kit/names.js"
import { int, pick, type Random } from "../kit/random.js"
import type { Address, Attribute, FinancialStatus } from "./model.js"

/**
 * Seeded, realistic order content: US and EU buyers, POD line items with design URLs. An order's
 * currency is its shop's (Shopify keeps every order in the shop currency), not the buyer's.
 */

export { seededRandom, type Random } from "../kit/random.js"

const firstNames = buyerFirstNames
const lastNames = buyerLastNames

interface Place {
  city: string
  province: string | null
  provinceCode: string | null
  zip: string
  country: string
  countryCode: string
  street: string
  phone: string
}

const places: ReadonlyArray<Place> = [
  {
    city: "Los Angeles",
    province: "California",
    provinceCode: "CA",
    zip: "90012",
    country: "United States",
    countryCode: "US",
    street: "Sunset Blvd",
    phone: "+1 213-555-0"
  },
  {
    city: "Brooklyn",
    province: "New York",
    provinceCode: "NY",
    zip: "11201",
    country: "United States",
    countryCode: "US",
    street: "Atlantic Ave",
    phone: "+1 718-555-0"
  },
  {
    city: "Austin",
    province: "Texas",
    provinceCode: "TX",
    zip: "78701",
    country: "United States",
    countryCode: "US",
    street: "Congress Ave",
    phone: "+1 512-555-0"
  },
  {
    city: "Portland",
    province: "Oregon",
    provinceCode: "OR",
    zip: "97205",
    country: "United States",
    countryCode: "US",
    street: "SW Morrison St",
    phone: "+1 503-555-0"
  },
  {
    city: "Miami",
    province: "Florida",
    provinceCode: "FL",
    zip: "33130",
    country: "United States",
    countryCode: "US",
    street: "Brickell Ave",
    phone: "+1 305-555-0"
  },
  {
    city: "Berlin",
    province: null,
    provinceCode: null,
    zip: "10115",
    country: "Germany",
    countryCode: "DE",
    street: "Torstraße",
    phone: "+49 30 5550"
  },
  {
    city: "München",
    province: null,
    provinceCode: null,
    zip: "80331",
    country: "Germany",
    countryCode: "DE",
    street: "Sendlinger Straße",
    phone: "+49 89 5550"
  },
  {
    city: "Madrid",
    province: "Madrid",
    provinceCode: "M",
    zip: "28013",
    country: "Spain",
    countryCode: "ES",
    street: "Calle de Alcalá",
    phone: "+34 91 555 0"
  },
  {
    city: "Milano",
    province: "Milano",
    provinceCode: "MI",
    zip: "20121",
    country: "Italy",
    countryCode: "IT",
    street: "Via Dante",
    phone: "+39 02 5550"
  },
  {
    city: "Lyon",
    province: null,
    provinceCode: null,
    zip: "69002",
    country: "France",
    countryCode: "FR",
    street: "Rue de la République",
    phone: "+33 4 55 50"
  },
  {
    city: "Amsterdam",
    province: null,
    provinceCode: null,
    zip: "1012 AB",
    country: "Netherlands",
    countryCode: "NL",
    street: "Prinsengracht",
    phone: "+31 20 555 0"
  },
  {
    city: "Dublin",
    province: "Dublin",
    provinceCode: "D",
    zip: "D02 X285",
    country: "Ireland",
    countryCode: "IE",
    street: "Grafton Street",
    phone: "+353 1 555 0"
  }
]

interface ProductTemplate {
  code: string
  title: string
  price: string
  colors: ReadonlyArray<[string, string]>
  sizes: ReadonlyArray<string>
  productId: number
}
const products: ReadonlyArray<ProductTemplate> = [
  {
    code: "TEE",
    title: "Classic Tee",
    price: "24.00",
    colors: [["BLK", "Black"], ["WHT", "White"], ["NVY", "Navy"], ["HTR", "Heather Grey"]],
    sizes: ["S", "M", "L", "XL", "2XL"],
    productId: 7981230001
  },
  {
    code: "HOOD",
    title: "Pullover Hoodie",
    price: "48.00",
    colors: [["BLK", "Black"], ["NVY", "Navy"], ["FOR", "Forest"]],
    sizes: ["S", "M", "L", "XL"],
    productId: 7981230002
  },
  {
    code: "CREW",
    title: "Crewneck Sweatshirt",
    price: "39.00",
    colors: [["SND", "Sand"], ["BLK", "Black"]],
    sizes: ["S", "M", "L", "XL"],
    productId: 7981230003
  },
  {
    code: "MUG",
    title: "Ceramic Mug",
    price: "16.00",
    colors: [["WHT", "White"], ["BLK", "Black"]],
    sizes: ["11OZ", "15OZ"],
    productId: 7981230004
  },
  { code: "TOTE", title: "Canvas Tote", price: "22.00", colors: [["NAT", "Natural"]], sizes: ["OS"], productId: 7981230005 },
  { code: "POSTER", title: "Matte Poster", price: "19.00", colors: [["MAT", "Matte"]], sizes: ["12X18", "18X24"], productId: 7981230006 }
]
const designs = ["sunset-wave", "retro-cat", "mountain-line", "coffee-first", "botanical-02", "city-grid", "moon-phase"]

export interface LineItemSpec {
  sku?: string | null
  title?: string
  variantTitle?: string | null
  quantity?: number
  price?: string
  variantId?: string | null
  productId?: string | null
  requiresShipping?: boolean
  customAttributes?: Attribute[]
  /** The location that ships it; Shopify gives each assigned location its own fulfillment order. Default: one location. */
  location?: string | null
}

export interface OrderSpec {
  /** When it was placed (ISO-8601, in the past): a store's history. Default now. */
  placedAt?: string
  email?: string | null
  phone?: string | null
  currencyCode?: string
  financialStatus?: FinancialStatus
  shippingAddress?: Partial<Address> | null
  lineItems?: LineItemSpec[]
  shippingLine?: { title?: string; code?: string | null; price?: string } | null
  note?: string | null
  tags?: string[] | string
  customAttributes?: Attribute[]
  /** ISO time: the order's fulfillment orders are SCHEDULED until then (a pre-order), then open by themselves. */
  fulfillAt?: string
}

export interface GeneratedOrder {
  email: string
  phone: string
  financialStatus: FinancialStatus
  shippingAddress: Address
  lineItems: Array<Required<LineItemSpec>>
  shippingLine: { title: string; code: string; price: string }
  note: string | null
}

export const generateOrder = (random: Random): GeneratedOrder => {
  const buyer = drawBuyer(random, places, { first: firstNames, last: lastNames }, (p) => p.countryCode === "US")
  const { place, firstName, lastName, phone } = buyer
  const shippingAddress: Address = {
    firstName,
    lastName,
    company: buyer.company,
    address1: buyer.street,
    address2: buyer.apartment,
    city: place.city,
    province: place.province,
    provinceCode: place.provinceCode,
    zip: place.countryCode === "US" ? String(Number(place.zip) + int(random, 0, 30)).padStart(5, "0") : place.zip,
    country: place.country,
    countryCodeV2: place.countryCode,
    phone
  }
  const lineCount = int(random, 1, 4)
  const lineItems = Array.from({ length: lineCount }, (): Required<LineItemSpec> => {
    const product = pick(random, products)
    const [colorCode, colorName] = pick(random, product.colors)
    const size = pick(random, product.sizes)
    const design = pick(random, designs)
    const variantIndex = product.colors.findIndex(([c]) => c === colorCode) * 10 + product.sizes.indexOf(size)
    const attributes: Attribute[] = [{ key: "design_front", value: `https://cdn.podsync.test/designs/${design}/front.png` }]
    if (random() < 0.3) attributes.push({ key: "design_back", value: `https://cdn.podsync.test/designs/${design}/back.png` })
    if (random() < 0.2) attributes.push({ key: "_personalization", value: `For ${firstName}, with love` })
    return {
      sku: `${product.code}-${colorCode}-${size}`,
      title: `${product.title} – ${design.replace(/-/g, " ")}`,
      variantTitle: `${colorName} / ${size}`,
      quantity: random() < 0.8 ? 1 : int(random, 2, 3),
      price: product.price,
      variantId: String(product.productId * 100 + 40000000000000 + variantIndex),
      productId: String(product.productId),
      requiresShipping: true,
      customAttributes: attributes,
      location: null
    }
  })
  const express = random() < 0.25
  return {
    email: buyerEmail(random, firstName, lastName),
    phone,
    financialStatus: random() < 0.9 ? "PAID" : "PENDING",
    shippingAddress,
    lineItems,
    shippingLine: express
      ? { title: "Express", code: "EXPRESS", price: "14.90" }
      : { title: "Standard Shipping", code: "STANDARD", price: "4.90" },
    note: random() < 0.2 ? "Please gift wrap 🎁" : null
  }
}
