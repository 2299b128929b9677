import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parse } from "csv-parse/sync"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { emptyCells } from "../../src/domain/MappingCells.js"
import { escapeFormula } from "../../src/domain/SpreadsheetCell.js"
import { cellsOfCsv, mappingCsv, parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { mappingLine } from "../../src/pipeline/MappingEdit.js"
import { writeReportFiles } from "../../src/reporting/ReportFiles.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { scenarioInput, scenarioOrders } from "./scenario.js"

const HYPERLINK = `=HYPERLINK("http://x","y")`

describe("every CSV podsync writes is safe to open in a spreadsheet", () => {
  it("writes a held order named by its buyer =HYPERLINK(…) to the report's CSV file as text, not a formula", async () => {
    // A JSON feed or marketplace order's name is what the buyer's side gave; the held message quotes a personalisation.
    const orders = scenarioOrders.map((o) =>
      o.referenceId === "acme:1004"
        ? { ...o, order: { ...o.order, name: HYPERLINK }, heldDetails: { message: `@SUM(1+1) is not a design URL` } }
        : o
    )
    const report = buildReport(scenarioInput({ orders }))
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "podsync-csv-formulas-"))
    const [written] = await Effect.runPromise(writeReportFiles(dir, "report-2026-11-20", report, ["csv"]))
    const text = fs.readFileSync(written!.path, "utf8")
    expect(text).not.toMatch(/(^|,)"?=HYPERLINK/m)
    expect(text).not.toMatch(/(^|,)"?@SUM/m)
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>
    const held = rows.find((r) => r.reference_id === "acme:1004" && r.kind === "held")
    expect(held).toMatchObject({ order: `'${HYPERLINK}`, summary: `'@SUM(1+1) is not a design URL` })
    // Amounts keep their sign and stay numbers: a negative margin is a number, not a formula.
    expect(rows.filter((r) => (r.margin ?? "") !== "").every((r) => /^-?\d/.test(r.margin!))).toBe(true)
    expect(escapeFormula("-4.50")).toBe("-4.50")
    expect(escapeFormula("-4.50 refunded")).toBe("'-4.50 refunded")
  })

  it("writes mapping suggestions and rows with formulas escaped, and reads them back as they were meant", () => {
    const cells = { ...emptyCells, store_sku: "-TEE-BLK-M", pod_variant_id: "GM0002010011", print_front: "https://cdn.example.com/a.png" }
    const csv = mappingCsv([cells], [`+candidates: ${HYPERLINK}`])
    expect(csv).toContain(`'-TEE-BLK-M`)
    expect(csv).not.toMatch(/(^|,)"?\+candidates/m)
    expect(cellsOfCsv(csv)[0]).toMatchObject({ store_sku: "-TEE-BLK-M", pod_variant_id: "GM0002010011" })
    expect(parseMappingCsv(csv).table.rows[0]?.storeSku).toBe("-TEE-BLK-M")
    // A row the console adds to a file: escaped the same way, read back the same way.
    const header = ["store_sku", "pod_variant_id", "print_front"]
    const line = mappingLine(header, { store_sku: "@TEE", pod_variant_id: "GM0002010011", print_front: "https://cdn.example.com/a.png" })
    expect(line.startsWith(`'@TEE,`)).toBe(true)
    expect(parseMappingCsv(`${header.join(",")}\n${line}`).table.rows[0]?.storeSku).toBe("@TEE")
  })
})
