import { int, pick, type Random } from "../kit/random.js"
import type { AddressFields, ReceiptStatus, StoredVariation } from "./model.js"

/**
 * Seeded, realistic receipt content: buyers in the US, EU, UK, Canada and Japan (non-ASCII names, a
 * missing second line, apostrophes that Etsy sends HTML-encoded), POD listings with Color/Size
 * variations and a Personalization answer holding the design URL.
 */

export { pick, seededRandom, type Random } from "../kit/random.js"

interface Buyer extends AddressFields {
  readonly currency: string
}

const buyers: ReadonlyArray<Buyer> = [
  {
    name: "Jordan Avery",
    first_line: "742 Evergreen Terrace",
    second_line: null,
    city: "Springfield",
    state: "OR",
    zip: "97403",
    country_iso: "US",
    currency: "USD"
  },
  {
    name: "Maya Chen",
    first_line: "88 Atlantic Ave",
    second_line: "Apt 4B",
    city: "Brooklyn",
    state: "NY",
    zip: "11201",
    country_iso: "US",
    currency: "USD"
  },
  {
    name: "Zoë Müller",
    first_line: "Königstraße 12",
    second_line: "3. OG",
    city: "Stuttgart",
    state: "Baden-Württemberg",
    zip: "70173",
    country_iso: "DE",
    currency: "EUR"
  },
  {
    name: "Élodie Lefèvre",
    first_line: "18 rue de l'Église",
    second_line: null,
    city: "Lyon",
    state: null,
    zip: "69002",
    country_iso: "FR",
    currency: "EUR"
  },
  {
    name: "Siobhán O'Connell",
    first_line: "13 O'Connell Street",
    second_line: "Flat 2",
    city: "London",
    state: null,
    zip: "SW1A 1AA",
    country_iso: "GB",
    currency: "GBP"
  },
  {
    name: "Marie-Ève Tremblay",
    first_line: "1200 Rue Sainte-Catherine O",
    second_line: null,
    city: "Montréal",
    state: "QC",
    zip: "H3B 1K9",
    country_iso: "CA",
    currency: "CAD"
  },
  {
    name: "渡辺 さくら",
    first_line: "神南1-2-3",
    second_line: "渋谷ハイツ 401",
    city: "渋谷区",
    state: "東京都",
    zip: "150-0041",
    country_iso: "JP",
    currency: "JPY"
  },
  {
    name: "Łukasz Nowak",
    first_line: "ul. Marszałkowska 84/92",
    second_line: null,
    city: "Warszawa",
    state: null,
    zip: "00-514",
    country_iso: "PL",
    currency: "EUR"
  }
]

interface Listing {
  readonly listingId: number
  readonly title: string
  readonly code: string
  readonly priceCents: number
  readonly colors: ReadonlyArray<string>
  readonly sizes: ReadonlyArray<string>
}

const listings: ReadonlyArray<Listing> = [
  {
    listingId: 1587342201,
    title: "Men's Classic Tee – Custom Print",
    code: "TEE",
    priceCents: 2400,
    colors: ["Black", "White", "Navy"],
    sizes: ["S", "M", "L", "XL"]
  },
  {
    listingId: 1587342202,
    title: 'Cozy Pullover Hoodie "Moon Phase"',
    code: "HOOD",
    priceCents: 4800,
    colors: ["Black", "Forest"],
    sizes: ["S", "M", "L"]
  },
  { listingId: 1587342203, title: "Ceramic Mug 11oz & 15oz", code: "MUG", priceCents: 1600, colors: ["White"], sizes: ["11oz", "15oz"] },
  { listingId: 1587342204, title: "Canvas Tote Bag", code: "TOTE", priceCents: 2200, colors: ["Natural"], sizes: ["One Size"] }
]

const designs = ["sunset-wave", "retro-cat", "mountain-line", "coffee-first", "botanical-02", "city-grid"]
const shippingMethods = ["Standard Shipping", "Express Shipping"]

export interface TransactionSpec {
  title?: string
  sku?: string | null
  quantity?: number
  price_cents?: number
  shipping_cents?: number
  listing_id?: number
  product_id?: number
  is_digital?: boolean
  shipping_method?: string | null
  variations?: Array<Partial<StoredVariation> & { formatted_name: string; formatted_value: string }>
  /** Shorthand: a Personalization answer (question_id set), appended to the variations. */
  personalization?: string
}

export interface ReceiptSpec extends Partial<AddressFields> {
  /** When it was placed (ISO-8601, in the past): a store's history. Default now. */
  placedAt?: string
  status?: ReceiptStatus
  currency?: string
  /** Every address field but the name null, as Etsy sends for buyers in regions without a partnership. */
  address_withheld?: boolean
  buyer_email?: string
  message_from_buyer?: string
  is_gift?: boolean
  gift_message?: string
  discount_cents?: number
  tax_cents?: number
  transactions?: TransactionSpec[]
}

export interface GeneratedTransaction {
  title: string
  sku: string | null
  quantity: number
  priceCents: number
  shippingCents: number
  listingId: number
  productId: number
  isDigital: boolean
  shippingMethod: string | null
  variations: StoredVariation[]
}

const personalizationOf = (text: string): StoredVariation => ({
  property_id: 54,
  value_id: null,
  formatted_name: "Personalization",
  formatted_value: text,
  question_id: 8731
})

export const generateTransaction = (random: Random, spec: TransactionSpec = {}): GeneratedTransaction => {
  const listing = pick(random, listings)
  const color = pick(random, listing.colors)
  const size = pick(random, listing.sizes)
  const design = pick(random, designs)
  const variations: StoredVariation[] = spec.variations?.map((v) => ({
    property_id: v.property_id ?? 513,
    value_id: v.value_id ?? null,
    formatted_name: v.formatted_name,
    formatted_value: v.formatted_value,
    ...(v.question_id === undefined ? {} : { question_id: v.question_id })
  })) ?? [
    { property_id: 200, value_id: 1213, formatted_name: "Color", formatted_value: color },
    { property_id: 100, value_id: 1840, formatted_name: "Size", formatted_value: size },
    personalizationOf(`https://designs.example.com/${design}.png?dpi=300&bleed=3`)
  ]
  if (spec.personalization !== undefined) variations.push(personalizationOf(spec.personalization))
  return {
    title: spec.title ?? listing.title,
    sku: spec.sku === undefined ? `${listing.code}-${color.slice(0, 3).toUpperCase()}-${size.replace(/\s+/g, "").toUpperCase()}` : spec.sku,
    quantity: spec.quantity ?? int(random, 1, 2),
    priceCents: spec.price_cents ?? listing.priceCents,
    shippingCents: spec.shipping_cents ?? 450,
    listingId: spec.listing_id ?? listing.listingId,
    productId: spec.product_id ?? 12000000000 + listing.listingId % 1000 * 100 + int(random, 1, 99),
    isDigital: spec.is_digital ?? false,
    shippingMethod: spec.shipping_method === undefined ? pick(random, shippingMethods) : spec.shipping_method,
    variations
  }
}

export const generateBuyer = (random: Random): Buyer => pick(random, buyers)

const notes = ["", "", "Please ship before Friday, it's a birthday gift!", "Can you double-check the spelling?", ""]
export const generateNote = (random: Random): string => pick(random, notes)
