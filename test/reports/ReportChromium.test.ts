import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { CHROMIUM, inspectInChromium, renderInChromium } from "../../bench/report-screenshot.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { reportHtml } from "../../src/reports/ReportHtml.js"
import type { ReportInput } from "../../src/reports/ReportInput.js"
import { multiCurrencyInput, quietDayInput, scenarioInput } from "./scenario.js"

// Test artifacts (gitignored): the rendered page and its screenshot.
const ARTIFACTS = path.join(".podsync-test", "reports")

const PHONE = { width: 390, height: 844 }

const writePage = (name: string, input: ReportInput) => {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  const file = path.join(ARTIFACTS, name)
  fs.writeFileSync(file, reportHtml(buildReport(input)))
  return file
}

// Without Chromium on the machine this suite is left out (bench/report-screenshot.ts renders the same page).
describe.runIf(fs.existsSync(CHROMIUM))("the HTML report in headless Chromium", () => {
  it("renders offline with its charts drawn and nothing on the console", async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    const html = path.join(ARTIFACTS, "report.html")
    fs.writeFileSync(html, reportHtml(buildReport(scenarioInput())))
    const check = await renderInChromium(html, path.join(ARTIFACTS, "report.png"))

    expect(check.consoleMessages).toEqual([])
    // Flow, margins per store (one chart per currency), margins per SKU for each of the two stores.
    expect(check.charts).toBe(5)
    // 9 flow steps; revenue, cost and margin for 2 stores, 3 acme SKUs and 2 beta SKUs.
    expect(check.bars).toBe(9 + 3 * (2 + 3 + 2))
    // Each chart colour is painted, in quantity: the bars were laid out and drawn, not only parsed.
    expect(check.chartPixels.flow).toBeGreaterThan(2_000)
    expect(check.chartPixels.revenue).toBeGreaterThan(2_000)
    expect(check.chartPixels.cost).toBeGreaterThan(1_000)
    expect(check.chartPixels.margin).toBeGreaterThan(1_000)
    expect(fs.statSync(check.screenshot).size).toBeGreaterThan(10_000)
  }, 40_000)

  it("notices a page that writes to the console (the check can fail)", async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    const broken = path.join(ARTIFACTS, "broken.html")
    fs.writeFileSync(broken, "<!doctype html><html><body><script>missingFunction()</script></body></html>")
    const check = await renderInChromium(broken, path.join(ARTIFACTS, "broken.png"), { width: 400, height: 200 })
    expect(check.consoleMessages.join("\n")).toContain("missingFunction is not defined")
    expect(check.charts).toBe(0)
    expect(Object.values(check.chartPixels).every((n) => n === 0)).toBe(true)
  }, 40_000)

  it(
    "reads on a phone (390 px): no sideways scrolling, the title in words, what shipped with tracking links, the margin card over three currencies",
    async () => {
      const page = writePage("report-phone.html", multiCurrencyInput({ base: "USD", rates: { EUR: "1.10" } }))
      const seen = await inspectInChromium(page, PHONE, path.join(ARTIFACTS, "report-phone.png"))

      expect(seen.consoleMessages).toEqual([])
      expect(seen.viewportWidth).toBe(390)
      expect({ scrollWidth: seen.scrollWidth, overflowing: seen.overflowing }).toEqual({ scrollWidth: expect.any(Number), overflowing: [] })
      expect(seen.scrollWidth).toBeLessThanOrEqual(390)
      expect(seen.heading).toBe("Acme Shirts, Beta Mugs and Gamma Prints — Friday 20 November 2026")
      expect(seen.documentTitle).toBe(seen.heading)
      // The margin in one currency, and how many orders it covers.
      expect(seen.text).toMatch(
        /Margin \(all in USD\)\s+\$71\.03\s+50\.7% of \$140\.20\s+margin covers 5 of 7 orders; 2 in JPY have no rate/
      )
      // What shipped: each table row a card of "column value" lines, the tracking numbers links to the carriers' pages.
      expect(seen.text).toMatch(/Shipped \(4\)/)
      expect(seen.text).toMatch(/Order\s+#1001\s+POD order\s+O-1\s+Carrier\s+UPS\s+Tracking\s+1Z001/)
      expect(seen.links.filter((l) => l.section === "shipped")).toEqual([
        { section: "shipped", href: "https://www.ups.com/track?tracknum=1Z001", text: "1Z001" },
        { section: "shipped", href: "https://www.dhl.com/track?id=DHL21", text: "DHL21" }
      ])
      // The flow table as cards: the all-stores row's drafted count (7 seeded orders and the 2 in yen).
      expect(seen.text).toMatch(/Store\s+all stores\s+Created in the store\s+16\s+Pulled\s+15\s+Held\s+3\s+Drafted\s+9/)
    },
    60_000
  )

  it("says so on a day without orders, on a phone too", async () => {
    const seen = await inspectInChromium(writePage("report-quiet.html", quietDayInput()), PHONE)
    expect(seen.consoleMessages).toEqual([])
    expect(seen.scrollWidth).toBeLessThanOrEqual(390)
    expect(seen.heading).toBe("Acme Shirts and Beta Mugs — Sunday 22 November 2026")
    expect(seen.text).toContain("No orders in this period.")
    expect(seen.text).toContain("Nothing shipped in this period.")
  }, 60_000)

  it("shows the seeded day at desktop width with the title in words and no sideways scrolling", async () => {
    const seen = await inspectInChromium(writePage("report-desktop.html", scenarioInput()), { width: 1280, height: 900 })
    expect(seen.scrollWidth).toBeLessThanOrEqual(1280)
    expect(seen.heading).toBe("Acme Shirts and Beta Mugs — Friday 20 November 2026")
    expect(seen.text).not.toContain("No orders in this period")
  }, 60_000)
})
