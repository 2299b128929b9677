import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { buildTable, type MappingRow } from "../../src/domain/MappingTable.js"
import * as Money from "../../src/domain/Money.js"
import {
  designAttribute,
  normalizeColour,
  normalizeSize,
  optionsOf,
  podProductsOf,
  type PodVariantView,
  proposeVariant,
  sizeTokens,
  searchPodProducts,
  storeProductsOf,
  type StoreVariantLine,
  unblockedBy
} from "../../src/mapping/ProductMapping.js"

const STOCK = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_"
const usd = (amount: string) => Either.getOrThrow(Money.fromDecimalString("USD", amount))
const eur = (amount: string) => Either.getOrThrow(Money.fromDecimalString("EUR", amount))

const TEE = "Gildan 5000 Unisex Heavy Cotton Tee — Garment Dyed, Preshrunk, Double-Needle Stitched Hem (Adult Sizes)"
const pod = (
  id: string,
  color: string,
  size: string,
  price: Money.Money,
  stock = "IN_STOCK",
  product = "P-TEE",
  name = TEE
): PodVariantView => ({
  variantId: id,
  productId: product,
  productName: name,
  color,
  hexColor: color === "Forest Green" ? "#273B33" : color === "Black" ? "#000000" : "#97999B",
  size,
  price,
  stockLabel: `${STOCK}${stock}`,
  imageUrl: `https://cdn.pod-sim.test/products/${product.toLowerCase()}/avatar.png`
})

const CATALOG = [
  pod("GV-FOREST-S", "Forest Green", "S", usd("12.50")),
  pod("GV-FOREST-XL", "Forest Green", "XL", usd("12.50")),
  pod("GV-FOREST-2XL", "Forest Green", "2XL", usd("14.75")),
  pod("GV-BLACK-XL", "Black", "XL", eur("11.90")),
  pod("GV-BLACK-XL-OLD", "Black", "XL", eur("11.40"), "DISCONTINUED"),
  pod("GV-GREY-3XL", "Sport Gray", "3XL", eur("15.20"), "OUT_OF_STOCK"),
  pod("MUG-W-11", "White", "11oz", usd("6.80"), "IN_STOCK", "P-MUG", "Ceramic Mug 11oz, Dishwasher and Microwave Safe"),
  pod("MUG-W-15", "White", "15oz", usd("8.20"), "IN_STOCK", "P-MUG", "Ceramic Mug 11oz, Dishwasher and Microwave Safe")
]
const [TEE_PRODUCT, MUG_PRODUCT] = podProductsOf(CATALOG)

const storeLine = (variantTitle: string | null, extra: Partial<StoreVariantLine> = {}): StoreVariantLine => ({
  sku: "",
  variantId: "40000000001",
  productId: "7981230001",
  title: "Sunset Wave — Organic Heavyweight T-Shirt, Limited Autumn Edition Printed in Portugal",
  variantTitle,
  orders: 1,
  attributeNames: ["design_front", "_personalization"],
  ...extra
})

describe("mapping by product", () => {
  it("reads sizes in a seller's words as one spelling", () => {
    for (const xl of ["XL", "xl", "Extra Large", "X-Large", "extra-large", "1XL", " XL "]) expect(normalizeSize(xl)).toBe("xl")
    for (const xxl of ["2XL", "XXL", "2X-Large", "Double Extra Large", "Extra Extra Large", "XX-Large"]) {
      expect(normalizeSize(xxl)).toBe("2xl")
    }
    expect(normalizeSize("XXXL")).toBe("3xl")
    expect(normalizeSize("3X-Large")).toBe("3xl")
    expect(normalizeSize("Small")).toBe("s")
    expect(normalizeSize("Extra Small")).toBe("xs")
    expect(normalizeSize("Medium")).toBe("m")
    expect(normalizeSize("Large")).toBe("l")
    expect(normalizeSize("One Size")).toBe(normalizeSize("OS"))
    expect(normalizeSize("11 oz")).toBe("11oz")
    expect(normalizeSize("18X24")).toBe("18x24")
  })

  it("reads colours case-insensitively, Gray as Grey", () => {
    expect(normalizeColour("FOREST  green")).toBe("forest green")
    expect(normalizeColour("Sport Gray")).toBe(normalizeColour("sport grey"))
    expect(normalizeColour("Heather-Grey")).toBe("heather grey")
  })

  it("splits a store's variant title into its options", () => {
    expect(optionsOf("Forest Green / Extra Large")).toEqual(["Forest Green", "Extra Large"])
    expect(optionsOf("Forest Green - XL")).toEqual(["Forest Green", "XL"])
    expect(optionsOf("XL, Forest Green")).toEqual(["XL", "Forest Green"])
    expect(optionsOf("X-Large / Black")).toEqual(["X-Large", "Black"])
    expect(optionsOf(null)).toEqual([])
  })

  it("groups the catalog by product: image, swatches, sizes, the lowest price in each currency, what can be ordered", () => {
    expect(TEE_PRODUCT).toMatchObject({
      productId: "P-TEE",
      name: TEE,
      imageUrl: "https://cdn.pod-sim.test/products/p-tee/avatar.png",
      colours: [
        { name: "Forest Green", hex: "#273B33" },
        { name: "Black", hex: "#000000" },
        { name: "Sport Gray", hex: "#97999B" }
      ],
      sizes: ["S", "XL", "2XL", "3XL"],
      inStock: 4
    })
    expect(TEE_PRODUCT?.lowestPrices.map((m) => Money.format(m))).toEqual(["$12.50", "€11.40"])
    expect(MUG_PRODUCT?.lowestPrices.map((m) => Money.format(m))).toEqual(["$6.80"])
  })

  it("finds products by every word of a search, in names, colours and sizes", () => {
    const products = podProductsOf(CATALOG)
    expect(searchPodProducts(products, "cotton tee forest").map((p) => p.productId)).toEqual(["P-TEE"])
    expect(searchPodProducts(products, "MUG 15oz").map((p) => p.productId)).toEqual(["P-MUG"])
    expect(searchPodProducts(products, "hoodie")).toEqual([])
    expect(searchPodProducts(products, "").length).toBe(2)
  })

  it("proposes the POD variant of the store variant's colour and size, whatever words name them", () => {
    const proposed = (title: string) => {
      const p = proposeVariant(storeLine(title), TEE_PRODUCT!)
      return p._tag === "Proposed" ? p.variant.variantId : p.note
    }
    expect(proposed("Forest Green / Extra Large")).toBe("GV-FOREST-XL")
    expect(proposed("forest green / XXL")).toBe("GV-FOREST-2XL")
    expect(proposed("Small - Forest Green")).toBe("GV-FOREST-S")
    expect(proposed("Forest Green X-Large")).toBe("GV-FOREST-XL")
    expect(proposed("sport grey / XXXL")).toBe("GV-GREY-3XL")
    // Two POD variants fit: the one that can be ordered now wins over the discontinued one.
    expect(proposed("Black / XL")).toBe("GV-BLACK-XL")
  })

  it("says why when nothing fits, and warns of a proposal that cannot be ordered now", () => {
    const none = proposeVariant(storeLine("Maroon / M"), TEE_PRODUCT!)
    expect(none).toMatchObject({ _tag: "None" })
    expect(none.note).toContain('has no variant in "Maroon / M"')
    expect(proposeVariant(storeLine(null), TEE_PRODUCT!).note).toContain("names no colour or size")
    const grey = proposeVariant(storeLine("Sport Grey / 3XL"), TEE_PRODUCT!)
    expect(grey).toMatchObject({ _tag: "Proposed", variant: { variantId: "GV-GREY-3XL" } })
    expect(grey.note).toContain("out of stock")
  })

  it("needs only the size on a product of one colour", () => {
    expect(proposeVariant(storeLine("15 oz"), MUG_PRODUCT!)).toMatchObject({ _tag: "Proposed", variant: { variantId: "MUG-W-15" } })
    expect(proposeVariant(storeLine("Black / 11OZ"), MUG_PRODUCT!)).toMatchObject({ _tag: "Proposed", variant: { variantId: "MUG-W-11" } })
  })

  it("groups held lines by store product, most waiting orders first, with the attributes designs can come from", () => {
    const products = storeProductsOf([
      storeLine("Forest Green / XL", { variantId: "1", orders: 2 }),
      storeLine("Black / XL", { variantId: "2", orders: 3, attributeNames: ["design_front", "design_back"] }),
      { ...storeLine("White / 11oz", { variantId: "3", orders: 9 }), productId: null, title: "Coffee First Mug" }
    ])
    expect(products.map((p) => [p.title, p.variants.length, p.orders])).toEqual([
      ["Coffee First Mug", 1, 9],
      ["Sunset Wave — Organic Heavyweight T-Shirt, Limited Autumn Edition Printed in Portugal", 2, 5]
    ])
    expect(designAttribute(products[1]!.attributeNames, "front")).toBe("design_front")
    expect(designAttribute(products[1]!.attributeNames, "back")).toBe("design_back")
    expect(designAttribute(["_personalization"], "front")).toBeUndefined()
  })

  it("counts the held orders a table answers every line of", () => {
    const row = (sku: string): MappingRow => ({
      line: 2,
      storeVariantId: undefined,
      storeSku: sku,
      pod: { variantId: `GV-${sku}` },
      prints: [],
      barcodeUrl: undefined,
      ignore: false
    })
    const table = buildTable([row("TEE-FOREST-XL"), row("MUG-W-11")])
    expect(unblockedBy(table, [
      { id: 1, lines: [{ sku: "TEE-FOREST-XL" }] },
      { id: 2, lines: [{ sku: "TEE-FOREST-XL" }, { sku: "MUG-W-11" }] },
      { id: 3, lines: [{ sku: "TEE-FOREST-XL" }, { sku: "HOODIE-NAVY-M" }] },
      { id: 4, lines: [] }
    ])).toEqual([1, 2])
  })
})

describe("sizes among words", () => {
  it("reads a size of several words as one, so that Extra Large is never Large", () => {
    expect(sizeTokens(["black", "extra", "large"])).toEqual(["black", "xl"])
    expect(sizeTokens(["forest", "green", "double", "extra", "large"])).toEqual(["forest", "green", "2xl"])
    expect(sizeTokens(["sport", "grey", "x", "large"])).toEqual(["sport", "grey", "xl"])
    expect(sizeTokens(["navy", "xxl"])).toEqual(["navy", "2xl"])
    expect(sizeTokens(["s", "m"])).toEqual(["s", "m"])
    expect(sizeTokens(["ceramic", "mug", "11oz"])).toEqual(["ceramic", "mug", "11oz"])
  })
})
