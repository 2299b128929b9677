import { describe, expect, it } from "@effect/vitest"
import { emptyCells } from "../../src/domain/MappingCells.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { diffMappingTables } from "../../src/mapping/MappingDiff.js"
import { mergeSuggestions } from "../../src/mapping/MappingMerge.js"

const FRONT = "https://cdn.example.com/designs/forest-tee-front.png"

describe("merging suggestions into a store's mapping file", () => {
  it("adds complete rows in the file's own columns, and rows to complete as comments; the file loads as before plus them", () => {
    const file = ["store_sku,pod_variant_id,print_front", `UTS01-FOREST-S,GM0002010011,${FRONT}`, ""].join("\r\n")
    const merged = mergeSuggestions(file, [
      {
        cells: { ...emptyCells, store_sku: "SHOP-FOREST-M", pod_variant_id: "GM0002010012", print_front: FRONT },
        note: "",
        complete: true
      },
      {
        cells: { ...emptyCells, store_variant_id: "44003", store_sku: "SHOP-MUG", pod_variant_id: "GM0009" },
        note: "add print_front or print_back",
        complete: false
      }
    ])
    expect(merged).toMatchObject({ added: 1, commented: 1, skipped: 0 })
    expect(merged.text.split("\r\n")).toEqual([
      // The columns the new rows use are added to the header; shorter rows read them as empty.
      "store_sku,pod_variant_id,print_front,store_variant_id,notes",
      `UTS01-FOREST-S,GM0002010011,${FRONT}`,
      `SHOP-FOREST-M,GM0002010012,${FRONT},,`,
      "# SHOP-MUG,GM0009,,44003,add print_front or print_back",
      ""
    ])
    const parsed = parseMappingCsv(merged.text)
    expect(parsed.issues).toEqual([])
    expect(parsed.table.rows.map((r) => [r.line, r.storeSku])).toEqual([[2, "UTS01-FOREST-S"], [3, "SHOP-FOREST-M"]])
  })

  it("never adds a row for a variant or SKU the file answers (it may have changed since the draft), nor a comment it has", () => {
    const file = `store_variant_id,store_sku,pod_variant_id,print_front\n,UTS01-BLACK-M,GM1,${FRONT}\n# 9,SHOP-X,,,add a design\n`
    const merged = mergeSuggestions(file, [
      {
        cells: { ...emptyCells, store_variant_id: "501", store_sku: "UTS01-BLACK-M", pod_variant_id: "GM1", print_front: FRONT },
        note: "",
        complete: true
      },
      { cells: { ...emptyCells, store_variant_id: "9", store_sku: "SHOP-X" }, note: "add a design", complete: false }
    ])
    expect(merged.text).toBe(file)
    expect(merged).toMatchObject({ added: 0, commented: 0, skipped: 2 })
  })

  it("starts a missing or empty file with the columns its rows use", () => {
    const merged = mergeSuggestions("", [
      { cells: { ...emptyCells, store_sku: "#HASH-SKU", pod_variant_id: "GM1", print_front: "{{attr design}}" }, note: "", complete: true }
    ])
    expect(merged.text).toBe(`store_sku,pod_variant_id,print_front\n"#HASH-SKU",GM1,{{attr design}}\n`)
    expect(parseMappingCsv(merged.text).table.bySku.get("#HASH-SKU")?.pod).toEqual({ variantId: "GM1" })
  })
})

describe("an uploaded mapping file against the file in force", () => {
  const inForce = parseMappingCsv(
    [
      "store_variant_id,store_sku,pod_variant_id,print_front,ignore",
      `,UTS01-FOREST-S,GM1,${FRONT},`,
      `gid://shopify/ProductVariant/44002,,GM2,${FRONT},`,
      ",GIFT-WRAP,,,true"
    ].join("\n")
  ).table

  it("says which rows are added, removed and changed, a row being the same when it names the same variant, else SKU", () => {
    const uploaded = parseMappingCsv(
      [
        "store_sku,store_variant_id,pod_variant_id,print_front,print_back",
        `,44002,GM2,${FRONT},https://cdn.example.com/back.png`,
        `UTS01-FOREST-S,,GM1,${FRONT},`,
        `UTS01-FOREST-L,,GM3,${FRONT},`
      ].join("\n")
    ).table
    const diff = diffMappingTables(inForce, uploaded)
    expect(diff.added.map((r) => r.storeSku)).toEqual(["UTS01-FOREST-L"])
    expect(diff.removed.map((r) => r.storeSku)).toEqual(["GIFT-WRAP"])
    expect(diff.changed.map((c) => [c.before.line, c.after.line, c.columns])).toEqual([[3, 2, ["print_back"]]])
    // Moved to another line with the same cells: unchanged.
    expect(diff.unchanged).toBe(1)
  })
})
