/**
 * Seeded, realistic order content for the simulated storefront: buyers in the
 * US and Europe (non-ASCII names and streets, some without a second address
 * line), print-on-demand lines whose attributes carry design URLs, a few
 * unpaid orders.
 */
import { asciiLetters } from "../kit/names.js"
import { int, pick, type Random } from "../kit/random.js"
import type { WireAddress, WireAttribute } from "./wire.js"

export { seededRandom, type Random } from "../kit/random.js"

const firstNames = ["Grace", "Oliver", "Zoë", "Mateo", "Łucja", "Søren", "Amélie", "Jonah", "Inès", "Kenji", "Freya", "Ángel"]
const lastNames = ["Hopper", "Müller", "Ødegaard", "Nowak", "Fernández", "Lefèvre", "Tanaka", "O'Neill", "de Vries", "Brooks"]

interface Place {
  readonly city: string
  readonly region: string | null
  readonly regionCode: string | null
  readonly postalCode: string
  readonly country: string
  readonly countryCode: string
  readonly currency: string
  readonly street: string
  readonly phone: string
}

const places: ReadonlyArray<Place> = [
  {
    city: "Seattle",
    region: "Washington",
    regionCode: "WA",
    postalCode: "98101",
    country: "United States",
    countryCode: "US",
    currency: "USD",
    street: "Pike St",
    phone: "+1 206-555-01"
  },
  {
    city: "Chicago",
    region: "Illinois",
    regionCode: "IL",
    postalCode: "60605",
    country: "United States",
    countryCode: "US",
    currency: "USD",
    street: "S Michigan Ave",
    phone: "+1 312-555-01"
  },
  {
    city: "Denver",
    region: "Colorado",
    regionCode: "CO",
    postalCode: "80202",
    country: "United States",
    countryCode: "US",
    currency: "USD",
    street: "Larimer St",
    phone: "+1 303-555-01"
  },
  {
    city: "Köln",
    region: "Nordrhein-Westfalen",
    regionCode: "NW",
    postalCode: "50667",
    country: "Germany",
    countryCode: "DE",
    currency: "EUR",
    street: "Hohe Straße",
    phone: "+49 221 5550"
  },
  {
    city: "København",
    region: null,
    regionCode: null,
    postalCode: "1050",
    country: "Denmark",
    countryCode: "DK",
    currency: "EUR",
    street: "Strøget",
    phone: "+45 33 55 50"
  },
  {
    city: "Sevilla",
    region: "Sevilla",
    regionCode: "SE",
    postalCode: "41001",
    country: "Spain",
    countryCode: "ES",
    currency: "EUR",
    street: "Calle Sierpes",
    phone: "+34 954 555 0"
  },
  {
    city: "Kraków",
    region: null,
    regionCode: null,
    postalCode: "31-042",
    country: "Poland",
    countryCode: "PL",
    currency: "EUR",
    street: "ul. Floriańska",
    phone: "+48 12 555 0"
  },
  {
    city: "Bordeaux",
    region: null,
    regionCode: null,
    postalCode: "33000",
    country: "France",
    countryCode: "FR",
    currency: "EUR",
    street: "Rue Sainte-Catherine",
    phone: "+33 5 55 50"
  }
]

interface Product {
  readonly code: string
  readonly title: string
  readonly price: string
  readonly colors: ReadonlyArray<readonly [string, string]>
  readonly sizes: ReadonlyArray<string>
  readonly productId: number
}

const products: ReadonlyArray<Product> = [
  {
    code: "TEE",
    title: "Organic Tee",
    price: "26.00",
    colors: [["BLK", "Black"], ["WHT", "White"], ["OLV", "Olive"]],
    sizes: ["S", "M", "L", "XL"],
    productId: 4100
  },
  {
    code: "HOOD",
    title: "Zip Hoodie",
    price: "54.00",
    colors: [["BLK", "Black"], ["GRY", "Grey"]],
    sizes: ["S", "M", "L", "XL"],
    productId: 4200
  },
  { code: "MUG", title: "Enamel Mug", price: "18.00", colors: [["WHT", "White"]], sizes: ["12OZ"], productId: 4300 },
  { code: "PRINT", title: "Art Print", price: "32.00", colors: [["MAT", "Matte"]], sizes: ["A3", "A2"], productId: 4400 }
]
const designs = ["fern-study", "night-tram", "tidepool", "paper-crane", "dune-lines"]

export interface LineSpec {
  readonly sku?: string | null
  readonly variantId?: string | null
  readonly productId?: string | null
  readonly title?: string
  readonly variantTitle?: string | null
  readonly quantity?: number
  readonly unitPrice?: string
  readonly requiresShipping?: boolean
  readonly attributes?: ReadonlyArray<WireAttribute>
}

/** What `POST /__sim/orders` accepts; everything else comes from the seed. */
export interface OrderSpec {
  /** When it was placed (ISO-8601, in the past): a store's history. Default now. */
  readonly placedAt?: string
  readonly currency?: string
  readonly financialStatus?: string
  readonly email?: string | null
  readonly shipTo?: Partial<WireAddress> | null
  readonly shippingMethod?: { readonly title: string; readonly code?: string | null; readonly price?: string } | null
  readonly lines?: ReadonlyArray<LineSpec>
  readonly note?: string | null
  readonly tags?: ReadonlyArray<string>
  readonly attributes?: ReadonlyArray<WireAttribute>
}

export interface GeneratedOrder {
  readonly currency: string
  readonly financialStatus: "paid" | "pending"
  readonly email: string
  readonly shipTo: WireAddress
  readonly shippingMethod: { title: string; code: string; price: string }
  readonly lines: ReadonlyArray<Required<LineSpec>>
  readonly note: string | null
}

export const generateOrder = (random: Random): GeneratedOrder => {
  const place = pick(random, places)
  const firstName = pick(random, firstNames)
  const lastName = pick(random, lastNames)
  const house = int(random, 1, 220)
  const shipTo: WireAddress = {
    name: `${firstName} ${lastName}`,
    first_name: firstName,
    last_name: lastName,
    company: random() < 0.1 ? "Atelier Nord ApS" : null,
    line1: place.countryCode === "US" ? `${house} ${place.street}` : `${place.street} ${house}`,
    line2: random() < 0.4 ? `Apt ${int(random, 1, 30)}` : null,
    city: place.city,
    region: place.region,
    region_code: place.regionCode,
    postal_code: place.postalCode,
    country_code: place.countryCode,
    country: place.country,
    phone: `${place.phone}${int(random, 10, 99)}`
  }
  const lines = Array.from({ length: int(random, 1, 3) }, (): Required<LineSpec> => {
    const product = pick(random, products)
    const [colorCode, colorName] = pick(random, product.colors)
    const size = pick(random, product.sizes)
    const design = pick(random, designs)
    const attributes: Array<WireAttribute> = [{ key: "design_front", value: `https://cdn.storefront.test/designs/${design}/front.png` }]
    if (random() < 0.3) attributes.push({ key: "design_back", value: `https://cdn.storefront.test/designs/${design}/back.png` })
    if (random() < 0.2) attributes.push({ key: "gift_message", value: `Für ${firstName} ♥` })
    return {
      sku: `${product.code}-${colorCode}-${size}`,
      variantId: String(product.productId * 1000 + product.colors.findIndex(([c]) => c === colorCode) * 10 + product.sizes.indexOf(size)),
      productId: String(product.productId),
      title: `${product.title} – ${design.replace(/-/g, " ")}`,
      variantTitle: `${colorName} / ${size}`,
      quantity: random() < 0.8 ? 1 : int(random, 2, 3),
      unitPrice: product.price,
      requiresShipping: true,
      attributes
    }
  })
  const express = random() < 0.25
  return {
    currency: place.currency,
    financialStatus: random() < 0.9 ? "paid" : "pending",
    email: `${asciiLetters(firstName)}.${asciiLetters(lastName)}${int(random, 1, 99)}@example.org`.toLowerCase(),
    shipTo,
    shippingMethod: express
      ? { title: "Express", code: "EXPRESS", price: "15.00" }
      : { title: "Standard", code: "STANDARD", price: "5.00" },
    lines,
    note: random() < 0.2 ? "Bitte ohne Rechnung verschicken" : null
  }
}
