// The seeded catalog: a few dozen products and several hundred variants with
// colours, sizes, hex codes, SKUs, legacy ids, prices and stock labels.
// A pure function of the seed.
import type { CatalogStockLabel } from "./enums.js"
import { makeRandom, makeUuid, pickInt } from "./random.js"

export interface PrintLocationInfo {
  readonly code: string
  readonly name: string
  readonly location_id: number
}

export interface CatalogProduct {
  readonly productId: string
  readonly legacyProductId: number
  readonly name: string
  readonly typeName: string
  readonly description: string
  readonly avatarUrl: string
  readonly skuPrefix: string
  readonly printLocations: ReadonlyArray<PrintLocationInfo>
  readonly variants: ReadonlyArray<CatalogVariant>
}

export interface CatalogVariant {
  readonly variantId: string
  readonly legacyVariantId: number
  readonly productId: string
  readonly name: string
  readonly color: string
  readonly colorCode: string
  readonly hex: string
  readonly size: string
  readonly sizeCode: string
  readonly sku: string
  readonly priceCents: number
  readonly recommendedCents: number
  readonly extraCents: number
  /** Changed only through SimState.setStockLabel (the admin stock hook), which reset undoes. */
  stockLabel: CatalogStockLabel
  readonly imageUrl: string
}

export interface Catalog {
  readonly products: ReadonlyArray<CatalogProduct>
  readonly variants: ReadonlyArray<CatalogVariant>
  readonly productById: ReadonlyMap<string, CatalogProduct>
  readonly variantById: ReadonlyMap<string, CatalogVariant>
  readonly variantByLegacyId: ReadonlyMap<number, CatalogVariant>
}

const COLORS: ReadonlyArray<readonly [name: string, hex: string]> = [
  ["Black", "#000000"],
  ["White", "#FFFFFF"],
  ["Navy", "#1F2A44"],
  ["Sport Grey", "#97999B"],
  ["Red", "#C8102E"],
  ["Royal", "#224D8F"],
  ["Forest Green", "#273B33"],
  ["Maroon", "#5B2B42"],
  ["Dark Heather", "#425563"],
  ["Charcoal", "#66676C"],
  ["Light Pink", "#E4C6D4"],
  ["Light Blue", "#A4C8E1"],
  ["Irish Green", "#00A74A"],
  ["Purple", "#464E7E"],
  ["Orange", "#F4633A"],
  ["Gold", "#FFB81C"],
  ["Sand", "#DCD6C4"],
  ["Military Green", "#5E7461"],
  ["Ash", "#C8C9C7"],
  ["Cardinal Red", "#8A1538"]
]

const APPAREL_SIZES = ["S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL"]
const YOUTH_SIZES = ["XS", "S", "M", "L", "XL"]

const LOCATION = (code: string, name: string, id: number): PrintLocationInfo => ({ code, name, location_id: id })
const SHIRT_LOCATIONS = [
  LOCATION("front", "Front", 1),
  LOCATION("back", "Back", 2),
  LOCATION("left_sleeve", "Left sleeve", 3),
  LOCATION("right_sleeve", "Right sleeve", 4),
  LOCATION("pocket", "Pocket", 5)
]
const FLAT_LOCATIONS = [LOCATION("front", "Front", 1), LOCATION("back", "Back", 2)]
const WRAP_LOCATIONS = [LOCATION("front", "Front", 1), LOCATION("back", "Back", 2), LOCATION("whole", "Whole", 6)]

interface ProductType {
  readonly code: string
  readonly typeName: string
  readonly models: ReadonlyArray<string>
  readonly baseCents: number
  readonly sizes: ReadonlyArray<string>
  readonly locations: ReadonlyArray<PrintLocationInfo>
  readonly colors: readonly [min: number, max: number]
}

const TYPES: ReadonlyArray<ProductType> = [
  {
    code: "UTS",
    typeName: "T-Shirt",
    models: [
      "Gildan 5000 Unisex Heavy Cotton Tee",
      "Bella+Canvas 3001 Unisex Jersey Tee",
      "Comfort Colors 1717 Garment-Dyed Tee",
      "Next Level 3600 Cotton Tee",
      "Gildan 64000 Softstyle Tee"
    ],
    baseCents: 795,
    sizes: APPAREL_SIZES,
    locations: SHIRT_LOCATIONS,
    colors: [6, 12]
  },
  {
    code: "VTS",
    typeName: "V-Neck T-Shirt",
    models: ["Bella+Canvas 3005 V-Neck Tee", "Gildan 64V00 Softstyle V-Neck"],
    baseCents: 995,
    sizes: APPAREL_SIZES.slice(0, 6),
    locations: SHIRT_LOCATIONS,
    colors: [4, 8]
  },
  {
    code: "YTS",
    typeName: "Youth T-Shirt",
    models: ["Gildan 5000B Youth Tee", "Bella+Canvas 3001Y Youth Tee"],
    baseCents: 695,
    sizes: YOUTH_SIZES,
    locations: FLAT_LOCATIONS,
    colors: [4, 8]
  },
  {
    code: "LSL",
    typeName: "Long Sleeve",
    models: ["Gildan 5400 Long Sleeve Tee", "Bella+Canvas 3501 Long Sleeve"],
    baseCents: 1195,
    sizes: APPAREL_SIZES.slice(0, 7),
    locations: SHIRT_LOCATIONS,
    colors: [4, 9]
  },
  {
    code: "HOD",
    typeName: "Hoodie",
    models: ["Gildan 18500 Heavy Blend Hoodie", "Independent SS4500 Hoodie", "Bella+Canvas 3719 Fleece Hoodie"],
    baseCents: 1895,
    sizes: APPAREL_SIZES,
    locations: SHIRT_LOCATIONS,
    colors: [5, 10]
  },
  {
    code: "SWT",
    typeName: "Sweatshirt",
    models: ["Gildan 18000 Crewneck Sweatshirt", "Champion S600 Crewneck"],
    baseCents: 1495,
    sizes: APPAREL_SIZES,
    locations: SHIRT_LOCATIONS,
    colors: [5, 10]
  },
  {
    code: "TNK",
    typeName: "Tank Top",
    models: ["Bella+Canvas 3480 Jersey Tank", "Next Level 6733 Racerback Tank"],
    baseCents: 895,
    sizes: APPAREL_SIZES.slice(0, 5),
    locations: FLAT_LOCATIONS,
    colors: [3, 7]
  },
  {
    code: "MUG",
    typeName: "Mug",
    models: ["Ceramic Mug 11oz", "Ceramic Mug 15oz", "Color Changing Mug 11oz", "Accent Mug 11oz"],
    baseCents: 595,
    sizes: ["11oz", "15oz"],
    locations: WRAP_LOCATIONS,
    colors: [1, 3]
  },
  {
    code: "TOT",
    typeName: "Tote Bag",
    models: ["Canvas Tote Bag", "Heavy Canvas Tote"],
    baseCents: 995,
    sizes: ["One Size"],
    locations: FLAT_LOCATIONS,
    colors: [2, 4]
  },
  {
    code: "PST",
    typeName: "Poster",
    models: ["Matte Poster", "Glossy Poster"],
    baseCents: 695,
    sizes: ["12x18", "18x24", "24x36"],
    locations: [LOCATION("front", "Front", 1)],
    colors: [1, 1]
  },
  {
    code: "CAP",
    typeName: "Hat",
    models: ["Yupoong 6245CM Dad Hat", "Richardson 112 Trucker Cap"],
    baseCents: 1195,
    sizes: ["One Size"],
    locations: [LOCATION("front", "Front", 1), LOCATION("back", "Back", 2)],
    colors: [3, 6]
  },
  {
    code: "PHC",
    typeName: "Phone Case",
    models: ["Tough Phone Case", "Slim Phone Case"],
    baseCents: 1095,
    sizes: ["iPhone 14", "iPhone 15", "iPhone 15 Pro", "Galaxy S23"],
    locations: [LOCATION("back", "Back", 2)],
    colors: [1, 1]
  }
]

/** Variant ids as the service publishes them: "GM" and 10 digits (e.g. GM0002003147), 12 characters. */
const publishedVariantId = (legacyVariantId: number): string => `GM${String(2_000_000 + legacyVariantId).padStart(10, "0")}`

const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "")
const SIZE_UPCHARGE: Readonly<Record<string, number>> = {
  "2XL": 200,
  "3XL": 300,
  "4XL": 400,
  "5XL": 500,
  "15oz": 200,
  "24x36": 600,
  "18x24": 300
}

const shuffled = <A>(random: () => number, items: ReadonlyArray<A>): Array<A> => {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const a = copy[i] as A
    copy[i] = copy[j] as A
    copy[j] = a
  }
  return copy
}

const stockLabelFor = (random: () => number, productDiscontinued: boolean): CatalogStockLabel => {
  if (productDiscontinued) return "DISCONTINUED"
  const roll = random()
  if (roll < 0.06) return "OUT_OF_STOCK"
  if (roll < 0.1) return "OUT_OF_STOCK_5D"
  if (roll < 0.12) return "DISCONTINUED"
  return "IN_STOCK"
}

export const generateCatalog = (seed = 1): Catalog => {
  const random = makeRandom(seed * 7919 + 17)
  const products: Array<CatalogProduct> = []
  let legacyVariant = 10_001 + (seed % 1000) * 10
  let productIndex = 0
  for (const type of TYPES) {
    for (const model of type.models) {
      productIndex += 1
      const productId = makeUuid(random)
      const skuPrefix = `${type.code}${String(productIndex).padStart(2, "0")}`
      const discontinued = productIndex % 13 === 0
      const colorCount = pickInt(random, type.colors[0], type.colors[1])
      const colors = type.colors[1] === 1 ? [COLORS[1] as readonly [string, string]] : shuffled(random, COLORS).slice(0, colorCount)
      const baseCents = type.baseCents + pickInt(random, 0, 4) * 50
      const extraCents = type.code === "MUG" && model.includes("Color Changing") ? 250 : 0
      const avatarUrl = `https://cdn.pod-sim.test/products/${skuPrefix.toLowerCase()}/avatar.png`
      const variants: Array<CatalogVariant> = []
      for (const [color, hex] of colors) {
        for (const size of type.sizes) {
          // The draw keeps the seeded sequence (stock labels, product ids) as it was before ids took the published form.
          makeUuid(random)
          const priceCents = baseCents + (SIZE_UPCHARGE[size] ?? 0) + extraCents
          const sizeCode = slug(size)
          const colorCode = slug(color)
          variants.push({
            variantId: publishedVariantId(legacyVariant),
            legacyVariantId: legacyVariant++,
            productId,
            name: `${color} / ${size}`,
            color,
            colorCode,
            hex,
            size,
            sizeCode,
            sku: `${skuPrefix}-${colorCode.replace(/_/g, "").slice(0, 6).toUpperCase()}-${size.replace(/\s+/g, "").toUpperCase()}`,
            priceCents,
            recommendedCents: Math.ceil((priceCents * 2.2) / 100) * 100 - 1,
            extraCents,
            stockLabel: stockLabelFor(random, discontinued),
            imageUrl: `https://cdn.pod-sim.test/products/${skuPrefix.toLowerCase()}/${colorCode}.png`
          })
        }
      }
      products.push({
        productId,
        legacyProductId: 100 + productIndex,
        name: model,
        typeName: type.typeName,
        description: `${model}. Printed on demand.`,
        avatarUrl,
        skuPrefix,
        printLocations: type.locations,
        variants
      })
    }
  }
  const variants = products.flatMap((p) => p.variants)
  return {
    products,
    variants,
    productById: new Map(products.map((p) => [p.productId, p])),
    variantById: new Map(variants.map((v) => [v.variantId, v])),
    variantByLegacyId: new Map(variants.map((v) => [v.legacyVariantId, v]))
  }
}

export const productOf = (catalog: Catalog, variant: CatalogVariant): CatalogProduct => {
  const product = catalog.productById.get(variant.productId)
  if (product === undefined) throw new Error(`catalog inconsistency: no product ${variant.productId}`)
  return product
}
