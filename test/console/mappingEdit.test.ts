import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { appendMappingRow } from "../../src/pipeline/MappingEdit.js"

const copyOfDemo = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-mapping-edit-"))
  const file = path.join(dir, "mappings.csv")
  fs.copyFileSync("config/mappings/demo-shopify.csv", file)
  return { dir, file }
}

it.effect("adds the row in the file's column order and keeps the previous version beside it", () =>
  Effect.gen(function*() {
    const { file } = copyOfDemo()
    const before = fs.readFileSync(file, "utf8")
    const { backup, line } = yield* appendMappingRow(file, {
      store_sku: "NEW-SKU",
      pod_variant_id: "GM0002010011",
      print_front: "https://cdn.example.com/d/a,b.png"
    })
    expect(line).toBe(',NEW-SKU,GM0002010011,,"https://cdn.example.com/d/a,b.png",,,,,,,\n')
    expect(fs.readFileSync(file, "utf8")).toBe(before + line)
    expect(fs.readFileSync(backup, "utf8")).toBe(before)
  }))

it.effect("refuses a row that adds an issue to the file, and writes nothing", () =>
  Effect.gen(function*() {
    const { file } = copyOfDemo()
    const before = fs.readFileSync(file, "utf8")
    const error = yield* Effect.flip(appendMappingRow(file, { store_sku: "UTS01-FOREST-S", pod_variant_id: "GM0002010011" }))
    expect(error._tag).toBe("MappingWriteError")
    expect(error.reason).not.toBe("")
    expect(fs.readFileSync(file, "utf8")).toBe(before)
  }))

it.effect("says why a file cannot be written and gives the row to paste by hand, leaving the file as it was", () =>
  Effect.gen(function*() {
    const { file } = copyOfDemo()
    const before = fs.readFileSync(file, "utf8")
    // The backup's place is taken by a folder: the write fails before the file is touched.
    fs.mkdirSync(`${file}.bak`)
    const error = yield* Effect.flip(
      appendMappingRow(file, { store_sku: "RO-SKU", pod_variant_id: "GM0002010011", print_front: "{{attr design_front}}" })
    )
    expect(error.reason).toContain("could not be written (EISDIR)")
    expect(error.line).toContain(",RO-SKU,GM0002010011,,{{attr design_front}}")
    expect(fs.readFileSync(file, "utf8")).toBe(before)
  }))
