import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, LogLevel } from "effect"
import { CHROMIUM, launchChromium } from "../../bench/report-screenshot.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { pgliteDatabase } from "../support/database.js"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"
import { post } from "../support/pipeline.js"

const SHOTS = "bench/results/console"
const PRODUCT = "7981230099"
const TITLE = "Sunset Wave — Organic Heavyweight T-Shirt, Limited Autumn Edition (Unisex, Relaxed Fit)"
const sunsetWave = (sku: string, variantTitle: string, variantId: string) => ({
  sku,
  title: TITLE,
  variantTitle,
  variantId,
  productId: PRODUCT,
  quantity: 1,
  price: "29.00",
  customAttributes: [{ key: "design_front", value: "https://cdn.podsync.test/designs/sunset-wave/front.png" }]
})
const podsyncTee = (sku: string, variantTitle: string) => ({
  sku,
  title: "Podsync Tee",
  variantTitle,
  quantity: 1,
  price: "24.00",
  customAttributes: [{ key: "design_front", value: "https://cdn.podsync.test/designs/podsync/front.png" }]
})

// Without Debian's Chromium on the machine this test is left out, as the other browser tests are.
describe.runIf(fs.existsSync(CHROMIUM))("mappings in the console", () => {
  it.live(
    "suggest → review → load, then a store product's variants mapped in one step; each releases its held orders",
    () =>
      Effect.scoped(Effect.gen(function*() {
        fs.mkdirSync(SHOTS, { recursive: true })
        const stack = yield* scopedStack()
        const daemon = yield* daemonInProcess(stack, pgliteDatabase().layer, { logLevel: LogLevel.Info })
        const base = `http://127.0.0.1:${daemon.port}`
        const references = yield* Effect.promise(async () => {
          const made: Array<string> = []
          for (
            const [lineItems, currencyCode] of [
              // A line the file maps and one it does not, of the same store product: the suggestion takes its design from the mapped one.
              [[podsyncTee("UTS01-FOREST-S", "Forest Green / S"), podsyncTee("UTS01-FOREST-M", "Forest Green / M")], "USD"],
              [[sunsetWave("SW-BLK-XL", "Black / Extra Large", "4798123009901")], "EUR"],
              [[sunsetWave("SW-CHA-XXL", "charcoal / XXL", "4798123009902")], "USD"],
              [[
                sunsetWave("SW-BLK-XL", "Black / Extra Large", "4798123009901"),
                sunsetWave("SW-CHA-XXL", "charcoal / XXL", "4798123009902")
              ], "EUR"]
            ] as const
          ) {
            const order = await post(`${stack.shopify.url}/__sim/orders`, { financialStatus: "PAID", currencyCode, lineItems })
            made.push(`demo-shopify:${String(order.legacyResourceId)}`)
          }
          return made
        })
        const stateOf = (reference: string) =>
          Effect.runPromise(
            Effect.flatMap(OrdersRepo, (repo) => repo.byReference(reference)).pipe(
              Effect.provide(OrdersRepo.Default),
              Effect.provide(daemon.db)
            )
          ).then((o) => o?.state)
        const past = (states: ReadonlyArray<string | undefined>) =>
          states.every((s) => s !== undefined && !["pulled", "held", "ready"].includes(s))
        yield* until("the four orders held", async () => (await Promise.all(references.map(stateOf))).every((s) => s === "held"), 60_000)
        yield* until("the catalog cached", async () => daemon.lines.some((l) => l.includes("POD catalog refreshed")), 60_000)

        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => launchChromium()),
          (b) => Effect.promise(() => b.close())
        )
        const page = yield* Effect.promise(() => browser.newPage({ viewport: { width: 1280, height: 900 } }))
        const violations: Array<string> = []
        page.on("console", (m) => {
          if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text())
        })

        // Suggest → review → load: the page shows what `podsync mappings suggest` would add; one click writes it.
        yield* Effect.promise(async () => {
          await page.goto(`${base}/console/mappings?store=demo-shopify`)
          const suggested = await page.textContent("[data-testid=suggested]")
          expect(suggested).toContain("UTS01-FOREST-M")
          expect(suggested).toContain("suggested by SKU")
          expect(suggested).toContain("designs as for UTS01-FOREST-S")
          await page.click("[data-testid=merge] button[type=submit]")
          expect(await page.textContent("[role=status]")).toMatch(/added 1 row\(s\) to .*held orders of demo-shopify are re-planned/)
          expect(fs.readFileSync(stack.mappingFile, "utf8")).toMatch(/^\d*,UTS01-FOREST-M,GM0002010012,,\{\{attr design_front\}\},/m)
        })
        yield* until("the suggested row's order drafted", async () => past([await stateOf(references[0]!)]), 60_000)

        // Mapping by product: the store product, the POD product picked from the catalog, the rows proposed by size and colour.
        yield* Effect.promise(async () => {
          await page.goto(`${base}/console/mappings?store=demo-shopify`)
          await page.click("[data-testid=by-product]")
          await page.click(`[data-testid=store-products] tr:has-text("Sunset Wave") a`)
          expect(await page.textContent("[data-testid=store-variants]")).toContain("Black / Extra Large")
          await page.fill("[data-testid=pod-search] input[name=q]", "bella 3001 jersey")
          await page.click("[data-testid=pod-search] button")
          const card = page.locator("[data-testid=pod-product]", { hasText: "Bella+Canvas 3001 Unisex Jersey Tee" })
          expect(await card.locator("img.swatch").count()).toBeGreaterThan(3)
          expect(await card.textContent()).toMatch(/Sizes: S, M, L, XL, 2XL.*from \$\d+\.\d\d.*variants can be ordered now/)
          await card.locator("a:has-text('use this product')").click()
          expect(await page.locator("select[name=pod_0] option:checked").textContent()).toMatch(/^Black \/ XL — \$\d+\.\d\d — in stock$/)
          expect(await page.locator("select[name=pod_1] option:checked").textContent()).toMatch(/^Charcoal \/ 2XL — /)
          expect(await page.textContent("[data-testid=design-front]")).toContain("taken from each order line's design_front attribute")
          // A back design by its address: shown as a thumbnail before anything is written, the choices made kept.
          const proposed = await page.inputValue("select[name=pod_0]")
          const changed = await page.locator("select[name=pod_0] option", { hasText: /^Black \/ 2XL/ }).getAttribute("value")
          await page.selectOption("select[name=pod_0]", changed!)
          await page.fill("input[name=back]", "https://cdn.podsync.test/designs/sunset-wave/back.png")
          await page.click("button[name=preview]")
          expect(await page.inputValue("select[name=pod_0]")).toBe(changed)
          await page.selectOption("select[name=pod_0]", proposed)
          expect(await page.getAttribute("[data-testid=design-back] img", "src")).toBe(
            "https://cdn.podsync.test/designs/sunset-wave/back.png"
          )
          expect(await page.inputValue("input[name=front]")).toBe("{{attr design_front}}")
          await page.screenshot({ path: `${SHOTS}/map-a-product.png`, fullPage: false })
          await page.click("[data-testid=apply]")
          expect(await page.textContent("[role=status]")).toContain("3 held order(s) released")
          expect(await page.locator("[data-testid=store-products]").count()).toBe(0)
          const written = fs.readFileSync(stack.mappingFile, "utf8")
          expect(written).toMatch(
            /^4798123009901,SW-BLK-XL,GM\d{10},,\{\{attr design_front\}\},https:\/\/cdn\.podsync\.test\/designs\/sunset-wave\/back\.png,/m
          )
          await page.reload()
          expect(await page.locator("[role=status]").count()).toBe(0)
        })
        yield* until("the product's three orders drafted", async () => past(await Promise.all(references.slice(1).map(stateOf))), 60_000)
        expect(violations).toEqual([])
      })),
    150_000
  )
})
