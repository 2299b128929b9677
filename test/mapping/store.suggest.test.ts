import { describe, expect, it } from "@effect/vitest"
import { cellsOfCsv, draftCsv, mappingCsv } from "../../src/mapping/MappingCsv.js"
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
      // The same store product as variant 123 ("Logo Tee"): its design is known.
      ["789", "", "", "https://cdn.example.com/f.png", ""],
      ["", "HOD12-BLACK-M", "pod-hod12-black-m", "", ""]
    ])
    // Only rows that load are rows; the others are for a person (no POD variant, or no design known).
    expect(result.complete).toEqual([true, false, true, true, false, false, false])
    expect(result.matched).toBe(3)
    expect(result.unmatched).toEqual([
      "SKU MYSTERY-SKU: no catalog variant has its SKU, nor the colour and size its variant title names",
      expect.stringMatching(/^variant 789 \("Logo Tee \/ Black \/ M"\): 2 catalog products have that colour and size/)
    ])
    expect(result.notes).toEqual([expect.stringMatching(/^SKU HOD12-BLACK-M .* is discontinued$/)])
    // The draft says, row by row, what was suggested and what a person must choose (with the ids to write).
    expect(result.rowNotes).toEqual([
      expect.stringMatching(/^suggested by SKU: UTS01-FOREST-S \(/),
      "no match: no catalog variant has its SKU, nor the colour and size its variant title names; write the POD variant's id in pod_variant_id (or ignore=true if it is not a POD item); add print_front or print_back: an image URL (https://…) or {{attr NAME}}, the line item's attribute that holds it",
      "",
      "",
      expect.stringMatching(/^suggested by colour and size: check it: UTS01-FOREST-M.*; add print_front or print_back: /),
      expect.stringMatching(
        /^choose one and write its id in pod_variant_id: pod-[a-z0-9-]+ = .*; pod-[a-z0-9-]+ = .*; designs as for 123 \(the same store product, "Logo Tee"\)$/
      ),
      expect.stringMatching(/^suggested by SKU: HOD12-BLACK-M .*, which is discontinued; add print_front or print_back: an image URL/)
    ])
  })

  it("writes a draft that loads as it is: the rows it could not complete are comments saying what to add", () => {
    const file = [MAPPING_COLUMNS.join(","), ",UTS01-FOREST-S,,,https://cdn.example.com/forest.png,,,,,,,", ",uts01-forest-m,,,,,,,,,,"]
      .join(
        "\n"
      )
    const result = suggestMappings(cellsOfCsv(file), [
      { storeVariantId: "44001", storeSku: "UTS01-FOREST-S", title: "Forest Tee", variantTitle: "Forest Green / S" },
      { storeVariantId: "44002", storeSku: "SHOP-FOREST-2XL", title: "Forest Tee", variantTitle: "Forest Green / XXL" },
      { storeVariantId: "44003", storeSku: "SHOP-MUG", title: "Mug with a long name for the kitchen", variantTitle: "White / 11oz" }
    ], catalog)
    const draft = draftCsv(result.rows.map((cells, i) => ({ cells, note: result.rowNotes[i]!, complete: result.complete[i]! })))
    const parsed = parseMappingCsv(draft)
    expect(parsed.issues).toEqual([])
    expect(parsed.table.rows.map((r) => [r.line, r.storeSku])).toEqual([[3, "UTS01-FOREST-S"], [5, "SHOP-FOREST-2XL"]])
    const comments = draft.split("\n").filter((l) => l.startsWith("#"))
    expect(comments).toEqual([
      expect.stringMatching(/^# Lines starting with # are rows podsync could not complete/),
      expect.stringMatching(/^# ,uts01-forest-m,pod-uts01-forest-m,.*add print_front or print_back/),
      expect.stringMatching(/^# 44003,SHOP-MUG,pod-mug19-white-11oz,.*add print_front or print_back/)
    ])
    // Removing the # of a completed comment makes it a row.
    const completed = draft.replace(/^# (,uts01-forest-m,pod-uts01-forest-m,,)/m, "$1https://cdn.example.com/forest.png")
    expect(parseMappingCsv(completed).table.rows.map((r) => r.storeSku)).toContain("uts01-forest-m")
  })

  it("adds no row for a line the file answers by its SKU: a variant-id row would win over the reviewed SKU row", () => {
    const file = [MAPPING_COLUMNS.join(","), ",UTS01-BLACK-M,pod-uts01-black-m,,{{attr design}},,,,,,,"].join("\n")
    const result = suggestMappings(cellsOfCsv(file), [
      { storeVariantId: "gid://shopify/ProductVariant/501", storeSku: "UTS01-BLACK-M", title: "Logo Tee", variantTitle: "Black / M" },
      { storeVariantId: "502", storeSku: "UTS01-BLACK-M", title: "Logo Tee (old listing)", variantTitle: "Black / M" },
      { storeVariantId: "503", storeSku: "UTS01-FOREST-M", title: "Forest Tee", variantTitle: "Forest Green / M" }
    ], catalog)
    expect(result.rows.map((r) => [r.store_variant_id, r.store_sku])).toEqual([["", "UTS01-BLACK-M"], ["503", "UTS01-FOREST-M"]])
    // Every row of the file takes its design from the same attribute: the new row does too, and says so.
    expect(result.rows[1]?.print_front).toBe("{{attr design}}")
    expect(result.rowNotes[1]).toContain("designs from the line item's attributes")
    expect(result.complete).toEqual([true, true])
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

describe("sizes in a seller's words", () => {
  it("suggests Extra Large as XL, never as L", () => {
    const tees = [
      variant("UTS02-BLACK-L", "Bella+Canvas 3001 Unisex Jersey Tee", "Black", "L"),
      variant("UTS02-BLACK-XL", "Bella+Canvas 3001 Unisex Jersey Tee", "Black", "XL"),
      variant("UTS02-BLACK-2XL", "Bella+Canvas 3001 Unisex Jersey Tee", "Black", "2XL")
    ]
    expect(matchLine({ storeSku: "SW-BLK-XL", variantTitle: "Black / Extra Large" }, tees)).toMatchObject({
      variant: { sku: "UTS02-BLACK-XL" }
    })
    expect(matchLine({ storeSku: "SW-BLK-2XL", variantTitle: "Black / XXL" }, tees)).toMatchObject({ variant: { sku: "UTS02-BLACK-2XL" } })
    expect(matchLine({ storeSku: "SW-BLK-L", variantTitle: "Black / Large" }, tees)).toMatchObject({ variant: { sku: "UTS02-BLACK-L" } })
  })
})
