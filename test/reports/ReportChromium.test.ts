import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { CHROMIUM, renderInChromium } from "../../bench/report-screenshot.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { reportHtml } from "../../src/reports/ReportHtml.js"
import { scenarioInput } from "./scenario.js"

// Test artifacts (gitignored): the rendered page and its screenshot.
const ARTIFACTS = path.join(".podsync-test", "reports")

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
})
