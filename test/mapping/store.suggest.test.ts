import { describe, expect, it } from "@effect/vitest"
import { cellsOfCsv, mappingCsv } from "../../src/mapping/MappingCsv.js"
import { emptyCells } from "../../src/domain/MappingCells.js"
import { matchLine, type SuggestVariant, suggestMappings } from "../../src/mapping/MappingSuggest.js"
import { MAPPING_COLUMNS } from "../../src/domain/MappingTable.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"

const IN_STOCK = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"
const DISCONTINUED = "VENDOR_CATALOG_VARIANT_STOCK_LABEL_DISCONTINUED"

const variant = (sku: string, productName: string, color: string, size: string, stockLabel = IN_STOCK): SuggestVariant => ({
  variantId: `pod-${sku.toLowerCase()}`,
  sku,
  color,
  size,
  productId: sku.slice(0, 5),
  productName,
  stockLabel
})

const catalog: ReadonlyArray<SuggestVariant> = [
  variant("UTS01-FOREST-S", "Gildan 5000 Unisex Heavy Cotton Tee", "Forest Green", "S"),
  variant("UTS01-FOREST-M", "Gildan 5000 Unisex Heavy Cotton Tee", "Forest Green", "M"),
  variant("UTS01-FOREST-2XL", "Gildan 5000 Unisex Heavy Cotton Tee", "Forest Green", "2XL"),
  variant("UTS01-BLACK-M", "Gildan 5000 Unisex Heavy Cotton Tee", "Black", "M"),
  variant("UTS02-BLACK-M", "Bella+Canvas 3001 Unisex Jersey Tee", "Black", "M"),
  variant("UTS02-SPORTG-L", "Bella+Canvas 3001 Unisex Jersey Tee", "Sport Grey", "L"),
  variant("HOD12-BLACK-M", "Gildan 18500 Heavy Blend Hoodie", "Black", "M", DISCONTINUED),
  variant("MUG19-WHITE-11OZ", "Ceramic Mug 11oz", "White", "11oz")
]

describe("mapping suggestions", () => {
  it("matches a line by its SKU first, whatever the case", () => {
    expect(matchLine({ storeSku: "uts01-forest-m", variantTitle: "Black / S" }, catalog)).toMatchObject({
      by: "sku",
      variant: { sku: "UTS01-FOREST-M" }
    })
  })

  it("matches by the colour and size of the variant title, narrowed to one product by the title's words", () => {
    expect(matchLine({ title: "Heavy Cotton Tee", variantTitle: "Black / M" }, catalog))
      .toMatchObject({ by: "colour and size", variant: { sku: "UTS01-BLACK-M" } })
    expect(matchLine({ title: "Forest tee", variantTitle: "Forest Green / XXL" }, catalog))
      .toMatchObject({ variant: { sku: "UTS01-FOREST-2XL" } })
    expect(matchLine({ title: "Jersey tee", variantTitle: "Sport Gray / Large" }, catalog))
      .toMatchObject({ variant: { sku: "UTS02-SPORTG-L" } })
    expect(matchLine({ title: "Coffee mug", variantTitle: "White / 11oz" }, catalog)).toMatchObject({
      variant: { sku: "MUG19-WHITE-11OZ" }
    })
  })

  it("leaves a line unmatched when several products fit, naming them, or when the one that fits is discontinued", () => {
    const ambiguous = matchLine({ title: "Logo Tee", variantTitle: "Black / M" }, catalog)
    expect(ambiguous).toEqual({
      reason: expect.stringMatching(
        /^2 catalog products have that colour and size \(UTS01-BLACK-M .*UTS02-BLACK-M .*\): choose one by hand$/
      ),
      candidates: [expect.objectContaining({ sku: "UTS01-BLACK-M" }), expect.objectContaining({ sku: "UTS02-BLACK-M" })]
    })
    expect(matchLine({ title: "Heavy Blend Hoodie", variantTitle: "Black / M" }, catalog))
      .toEqual({
        reason: expect.stringMatching(
          /^its colour and size match HOD12-BLACK-M \(Gildan 18500 Heavy Blend Hoodie, Black \/ M\), which is discontinued/
        )
      })
    expect(matchLine({ title: "Tee", variantTitle: "Purple / M" }, catalog)).toEqual({
      reason: expect.stringContaining("no catalog variant")
    })
  })

  it("completes the file's rows in place, keeps mapped and ignored rows, and appends order lines the file lacks", () => {
    const file = [
      MAPPING_COLUMNS.join(","),
      ",UTS01-FOREST-S,,,https://cdn.example.com/f.png,,,,,,,",
      ",MYSTERY-SKU,,,,,,,,,,",
      "123,,pod-chosen-by-hand,,https://cdn.example.com/f.png,,,,,,,",
      ",GIFT-CARD,,,,,,,,,,true"
    ].join("\n")
    const result = suggestMappings(cellsOfCsv(file), [
      { storeVariantId: "123", storeSku: "UTS01-BLACK-M", title: "Logo Tee", variantTitle: "Black / M" },
      { storeVariantId: "456", storeSku: "SHOP-TEE-FG-M", title: "Heavy Cotton Tee", variantTitle: "Forest Green / M" },
      { storeVariantId: "789", title: "Logo Tee", variantTitle: "Black / M" },
      { storeSku: "HOD12-BLACK-M", title: "Hoodie", variantTitle: "Black / M" }
    ], catalog)
    expect(result.rows.map((r) => [r.store_variant_id, r.store_sku, r.pod_variant_id, r.print_front, r.ignore])).toEqual([
      ["", "UTS01-FOREST-S", "pod-uts01-forest-s", "https://cdn.example.com/f.png", ""],
      ["", "MYSTERY-SKU", "", "", ""],
      ["123", "", "pod-chosen-by-hand", "https://cdn.example.com/f.png", ""],
      ["", "GIFT-CARD", "", "", "true"],
      ["456", "SHOP-TEE-FG-M", "pod-uts01-forest-m", "", ""],
      ["789", "", "", "", ""],
      ["", "HOD12-BLACK-M", "pod-hod12-black-m", "", ""]
    ])
    expect(result.matched).toBe(3)
    expect(result.unmatched).toEqual([
      "SKU MYSTERY-SKU: no catalog variant has its SKU, nor the colour and size its variant title names",
      expect.stringMatching(/^variant 789 \("Logo Tee \/ Black \/ M"\): 2 catalog products have that colour and size/)
    ])
    expect(result.notes).toEqual([expect.stringMatching(/^SKU HOD12-BLACK-M .* is discontinued$/)])
    // The draft says, row by row, what was suggested and what a person must choose (with the ids to write).
    expect(result.rowNotes).toEqual([
      expect.stringMatching(/^suggested by SKU: UTS01-FOREST-S \(/),
      "no match: no catalog variant has its SKU, nor the colour and size its variant title names",
      "",
      "",
      expect.stringMatching(/^suggested by colour and size: check it: UTS01-FOREST-M/),
      expect.stringMatching(/^choose one and write its id in pod_variant_id: pod-[a-z0-9-]+ = .*; pod-[a-z0-9-]+ = /),
      expect.stringMatching(/^suggested by SKU: HOD12-BLACK-M .*, which is discontinued$/)
    ])
    const draft = parseMappingCsv(mappingCsv(result.rows, result.rowNotes))
    expect(draft.issues.map((i) => i.message)).not.toContain(expect.stringMatching(/unknown columns/))
  })

  it("writes a comment-free CSV with the contract header that the parser reads back", () => {
    const csv = mappingCsv([{ ...emptyCells, store_sku: "A,B", pod_variant_id: "pod-1", print_front: "{{attr design}}" }])
    expect(csv.split("\n")[0]).toBe(MAPPING_COLUMNS.join(","))
    expect(csv).not.toMatch(/^#/m)
    const parsed = parseMappingCsv(csv)
    expect(parsed.issues).toEqual([])
    expect(parsed.table.bySku.get("A,B")?.prints).toEqual([{
      location: "PRINT_LOCATION_CODE_FRONT",
      source: { _tag: "Attribute", name: "design" }
    }])
  })
})
