/**
 * Every page this test renders fits a phone (390 px: no horizontal scroll) and a desktop (1280 px:
 * nothing spills out of its box), measured in Chromium over realistic data: several stores, money
 * in two currencies, long buyer and product names, every queue reason. Pages are the console's own
 * views and stylesheet and the report's HTML, served over HTTP as the daemon serves them.
 */
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser } from "playwright-core"
import { CHROMIUM, launchChromium } from "../../bench/report-screenshot.js"
import { auditContent } from "../../src/console/AuditView.js"
import { CONSOLE_CSS } from "../../src/console/ConsoleStyle.js"
import { page, type Section } from "../../src/console/Html.js"
import { mappingsContent } from "../../src/console/MappingsView.js"
import { overviewContent } from "../../src/console/OverviewView.js"
import { productMappingContent } from "../../src/console/ProductMappingView.js"
import { queueContent } from "../../src/console/QueueView.js"
import { reportsContent } from "../../src/console/ReportsView.js"
import { sellerWordsOf } from "../../src/console/SellerWords.js"
import type { OrderState } from "../../src/domain/OrderState.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import {
  podProductsOf,
  type PodVariantView,
  proposeVariant,
  storeProductsOf,
  type StoreVariantLine
} from "../../src/mapping/ProductMapping.js"
import * as Money from "../../src/domain/Money.js"
import type { StatusReport } from "../../src/observability/StatusReport.js"
import type { WaitingOrder } from "../../src/repos/AttentionRepo.js"
import { moneyByPeriod } from "../../src/reports/MoneyByPeriod.js"
import { buildReport } from "../../src/reports/ReportBuilder.js"
import { reportHtml } from "../../src/reports/ReportHtml.js"
import { summarize } from "../../src/reports/ReportSummary.js"
import { multiCurrencyInput, scenarioInput, scenarioOrders } from "../reports/scenario.js"

const NOW = Date.parse("2026-11-29T09:30:00Z")
const LONG_BUYER = "Marie-Christine Oberhausen-Delacroix (gift for her grandmother, please wrap)"
const chrome = (title: string, section: Section) => ({ title, section, user: "anna", csrfToken: "t", loggedIn: true })

const waiting = (
  id: number,
  state: OrderState,
  extra: Partial<WaitingOrder> = {}
): WaitingOrder => ({
  id,
  storeKey: id % 2 === 0 ? "acme-woocommerce-eu" : "acme-shopify-us",
  referenceId: `${id % 2 === 0 ? "acme-woocommerce-eu" : "acme-shopify-us"}:${5_550_000_000_000 + id}`,
  name: `#${1000 + id} ${LONG_BUYER}`,
  state,
  heldReason: null,
  message: null,
  podDraftId: null,
  podOrderId: null,
  updatedAt: new Date(NOW - id * 3_600_000),
  waitingSince: new Date(NOW - id * 7_200_000),
  ...extra
})

/** The Map a product page with a long store product, a POD product of many colours priced in two currencies, and its review. */
const productPageInput = () => {
  const lines: ReadonlyArray<StoreVariantLine> = ["Forest Green / Extra Large", "Heather Military Green / Double Extra Large", "Black / S"]
    .map((
      variantTitle,
      i
    ) => ({
      sku: `SUNSET-WAVE-ORGANIC-HEAVYWEIGHT-${i}-${variantTitle.replace(/\W+/g, "-").toUpperCase()}`,
      variantId: `4821337700991234${i}`,
      productId: "7981230099",
      title: "Sunset Wave — Organic Heavyweight T-Shirt, Limited Autumn Edition Printed in Portugal (Unisex, Relaxed Fit)",
      variantTitle,
      orders: 3 - i,
      attributeNames: ["design_front", "_personalization"]
    }))
  const colours = [["Forest Green", "#273B33"], ["Heather Military Green", "#5E7461"], ["Black", "#000000"], ["Cardinal Red", "#8A1538"]]
  const variants: ReadonlyArray<PodVariantView> = colours.flatMap(([color, hex], c) =>
    ["S", "M", "L", "XL", "2XL", "3XL", "4XL", "5XL"].map((size, i) => ({
      variantId: `GM00020${String(10011 + c * 8 + i)}`,
      productId: "f23948d9-80be-431e-a08e-8e3dc2b854b0",
      productName: "Bella+Canvas 3001 Unisex Jersey Tee — Airlume Combed and Ring-Spun Cotton, Retail Fit",
      color,
      hexColor: hex,
      size,
      price: Either.getOrThrow(Money.fromDecimalString(i % 2 === 0 ? "USD" : "EUR", (9.45 + i).toFixed(2))),
      stockLabel: `VENDOR_CATALOG_VARIANT_STOCK_LABEL_${i === 7 ? "OUT_OF_STOCK_5D" : "IN_STOCK"}`,
      imageUrl: undefined
    }))
  )
  const [pod] = podProductsOf(variants)
  const storeProducts = storeProductsOf(lines)
  return {
    storeKeys: ["acme-shopify-us", "acme-woocommerce-eu"],
    storeKey: "acme-shopify-us",
    file: "/etc/podsync/mappings/acme-shopify-us-with-a-long-file-name.csv",
    csrfToken: "t",
    storeProducts,
    chosen: storeProducts[0],
    search: "bella jersey",
    found: pod === undefined ? [] : [pod],
    foundTotal: 1,
    catalogCached: true,
    pod,
    review: pod === undefined ? [] : lines.map((line) => ({ line, proposal: proposeVariant(line, pod) })),
    front: "{{attr design_front}}",
    back: "https://cdn.example.com/designs/2026/sunset-wave-back-very-long-file-name-v12-final-FINAL.png",
    flash: {
      ok: true,
      text: "3 row(s) written to /etc/podsync/mappings/acme-shopify-us-with-a-long-file-name.csv; 5 held order(s) released"
    }
  }
}

const queueOrders: ReadonlyArray<WaitingOrder> = [
  waiting(1, "held", {
    heldReason: "unmatched",
    message: "no mapping row for UTS01-FOREST-GREEN-XXL-ORGANIC-COTTON-PREMIUM (variant 48213377009912345)"
  }),
  waiting(2, "held", { heldReason: "address", message: "shipping address line 1 (address_1) is longer than the POD service takes" }),
  waiting(3, "failed", {
    message:
      "the POD service refused the draft: design file unreachable (HTTP 404 https://cdn.example.com/designs/2026/very-long-file-name-v12-final-FINAL.png)"
  }),
  waiting(4, "cancel_pending", { podDraftId: "D-77120045", podOrderId: "GM-ORDER-2026-11-000771204500" }),
  waiting(5, "pod_on_hold", { podOrderId: "GM-ORDER-2026-11-000771204511", message: "on hold at the POD service: check the order there" }),
  waiting(6, "drafted", { podDraftId: "D-77120046" })
]

const links = (o: { readonly podDraftId: string | null; readonly podOrderId: string | null }) => [
  { label: "open at acme-shopify-us", href: "https://acme.myshopify.com/admin/orders/5550000000001" },
  ...(o.podOrderId ?? o.podDraftId
    ? [{ label: "open at the POD service", href: `https://pod.example.com/orders/${o.podOrderId ?? o.podDraftId}` }]
    : [])
]

const status: StatusReport = {
  generatedAt: new Date(NOW).toISOString(),
  orders: [
    { storeKey: "acme-shopify-us", state: "held", count: 4 },
    { storeKey: "acme-shopify-us", state: "fulfilled", count: 1204 },
    { storeKey: "acme-woocommerce-eu", state: "cancel_pending", count: 1 },
    { storeKey: "acme-woocommerce-eu", state: "pod_on_hold", count: 2 },
    { storeKey: "acme-woocommerce-eu", state: "in_production", count: 37 },
    { storeKey: "acme-etsy-handmade-gifts", state: "shipped", count: 12 }
  ],
  held: [
    { storeKey: "acme-shopify-us", reason: "unmatched", count: 3, oldestAgeSeconds: 7200, oldestReferenceId: "acme-shopify-us:1" },
    { storeKey: "acme-shopify-us", reason: "unpaid", count: 1, oldestAgeSeconds: 3600, oldestReferenceId: "acme-shopify-us:2" }
  ],
  attention: [],
  queues: [],
  pulls: [
    { storeKey: "acme-shopify-us", lastPullAt: new Date(NOW - 60_000).toISOString(), ageSeconds: 60 },
    { storeKey: "acme-woocommerce-eu", lastPullAt: new Date(NOW - 120_000).toISOString(), ageSeconds: 120 },
    { storeKey: "acme-etsy-handmade-gifts", lastPullAt: null, ageSeconds: null }
  ],
  budget: {
    inUse: 3,
    limit: 60,
    windowSeconds: 60,
    inFlight: 1,
    pausedUntil: null,
    waiting: { urgent: 0, normal: 2, background: 14 },
    sent: 1203,
    rateLimited: 2
  },
  traffic: null
} as unknown as StatusReport

/** Daily reports of the last days, money in USD and EUR (and one store's third currency). */
const dailyReports = () => {
  const base = summarize(buildReport(multiCurrencyInput(null)), [])
  return ["2026-11-28", "2026-11-27", "2026-11-26", "2026-11-23", "2026-11-20"].map((label, i) => ({
    store: null,
    summary: { ...base, label, generatedAt: `${label}T06:0${i}:00.000Z` }
  }))
}

const mappingCsv = [
  "store_sku,store_variant_id,pod_variant_id,print_front,print_back",
  "UTS01-FOREST-GREEN-XXL-ORGANIC-COTTON-PREMIUM,48213377009912345,GM0002010011,https://cdn.example.com/designs/2026/forest-green-front-very-long-file-name-v12.png,",
  "MUG-11OZ-WHITE,48213377009912346,GM0009000001,https://cdn.example.com/designs/mug.png,https://cdn.example.com/designs/mug-back.png"
].join("\n")

const reportOrders = scenarioOrders.map((o) => ({ ...o, order: { ...o.order, name: `${o.order.name} ${LONG_BUYER}` } }))

const PAGES: Record<string, string> = {
  "/console": page(
    chrome("Overview", "overview"),
    overviewContent(status, { drift: { findings: 12, label: "20261129T0000Z_20261129T054645Z" }, money: moneyByPeriod(dailyReports()) })
  ),
  "/console/queue": page(
    chrome("Needs a person", "queue"),
    queueContent({
      orders: queueOrders,
      storeKeys: ["acme-etsy-handmade-gifts", "acme-shopify-us", "acme-woocommerce-eu"],
      reasonKeys: [
        "cancel_pending",
        "failed",
        "held:address",
        "held:unmatched",
        "held:unpaid",
        "not_checked_out",
        "pod_on_hold:at_the_service"
      ],
      filter: {},
      nowMs: NOW,
      csrfToken: "t",
      actionKey: "k",
      outcomes: [{
        id: 1,
        referenceId: "acme-shopify-us:5550000000001",
        outcome: "refused",
        message: "it is now ready (it was held when the page was shown): look at it again"
      }],
      limit: 200,
      links,
      awaitingPayment: [{ storeKey: "acme-shopify-us", count: 1 }]
    })
  ),
  "/console/mappings": page(
    chrome("Mappings", "mappings"),
    mappingsContent({
      storeKeys: ["acme-shopify-us", "acme-woocommerce-eu"],
      storeKey: "acme-shopify-us",
      file: "/etc/podsync/mappings/acme-shopify-us-with-a-long-file-name.csv",
      table: parseMappingCsv(mappingCsv).table,
      waiting: [{
        sku: "UTS01-FOREST-GREEN-XXL-ORGANIC-COTTON-PREMIUM-2",
        variantId: "48213377009912399",
        title: "Unisex Organic Tee — Forest Green",
        orders: 3
      }],
      catalogCached: false,
      lint: [
        "/etc/podsync/mappings/acme-shopify-us-with-a-long-file-name.csv:2: pod_variant_id: GM0002010011 is not in the cached catalog"
      ],
      problems: [],
      csrfToken: "t",
      prefill: {},
      flash: {
        ok: false,
        text: "cannot add the row",
        line:
          "UTS01-FOREST-GREEN-XXL-ORGANIC-COTTON-PREMIUM,48213377009912345,GM0002010011,https://cdn.example.com/designs/2026/forest-green-front-very-long-file-name-v12.png"
      }
    })
  ),
  "/console/mappings/products": page(chrome("Map a product", "mappings"), productMappingContent(productPageInput())),
  "/console/reports": page(
    chrome("Reports", "reports"),
    reportsContent({
      reports: dailyReports().map((r) => ({
        from: "2026-11-28T00:00:00.000Z",
        to: "2026-11-29T00:00:00.000Z",
        store: null,
        createdAt: r.summary.generatedAt,
        summary: {
          ...r.summary,
          files: [{ format: "html", name: `report-${r.summary.label}.html`, path: "" }, {
            format: "csv",
            name: `report-${r.summary.label}.csv`,
            path: ""
          }, { format: "json", name: `report-${r.summary.label}.json`, path: "" }]
        }
      })),
      csrfToken: "t",
      storeKeys: ["acme-etsy-handmade-gifts", "acme-shopify-us", "acme-woocommerce-eu"],
      flash: { ok: true, text: "written: 20261129T0000Z_20261129T054645Z, 12 drift findings" }
    })
  ),
  // A viewer's page (the note on top, the name and role in the header) listing a team's actions.
  "/console/audit": page(
    { ...chrome("Audit", "audit"), user: "vera.lindqvist-oberhausen@acme-print-shop.example", role: "viewer" },
    auditContent(
      {
        actions: [
          {
            id: 3,
            at: new Date("2026-11-29T06:49:12Z"),
            actor: "otto.delacroix@acme-print-shop.example",
            role: "operator",
            kind: "retry",
            outcome: "done",
            summary: "Retry now: retry asked by otto.delacroix@acme-print-shop.example in the console",
            referenceId: "acme-woocommerce-eu:4820013377",
            storeKey: null
          },
          {
            id: 2,
            at: new Date("2026-11-29T06:48:00Z"),
            actor: "vera.lindqvist-oberhausen@acme-print-shop.example",
            role: "viewer",
            kind: "refused",
            outcome: "refused",
            summary: "tried to add the suggested mapping rows for acme-etsy-handmade-gifts: refused, needs admin",
            referenceId: null,
            storeKey: null
          },
          {
            id: 1,
            at: new Date("2026-11-28T21:05:40Z"),
            actor: "anna",
            role: "admin",
            kind: "mapping_add",
            outcome: "done",
            summary:
              "Mapping row added: added to /etc/podsync/mappings/acme-shopify-us.csv (previous version in /etc/podsync/mappings/acme-shopify-us.csv.bak); held orders of acme-shopify-us are re-planned: ,UTS01-FOREST-GREEN-XXL-ORGANIC-COTTON-PREMIUM,GM0002010011,https://cdn.example.com/designs/2026/forest-green-front-very-long-file-name-v12.png,,",
            referenceId: null,
            storeKey: "acme-shopify-us"
          }
        ],
        next: 1
      },
      sellerWordsOf({ timezone: "Europe/Berlin", storeNames: { "acme-shopify-us": "Acme Shirts (US)" } }),
      true
    )
  ),
  "/report.html": reportHtml(buildReport(scenarioInput({ orders: reportOrders })))
}

/** What does not fit: the document's width past the viewport, and elements whose content spills out of their box. */
const measure = () => {
  const spilled: Array<string> = []
  for (const element of Array.from(document.querySelectorAll("body *"))) {
    const style = getComputedStyle(element)
    // Clipped content stays in its box (Chromium clips an input's text: a long URL scrolls inside it).
    if (["auto", "scroll", "hidden", "clip"].includes(style.overflowX) || style.display === "inline") continue
    if (element.scrollWidth > element.clientWidth + 1) {
      spilled.push(
        `${element.tagName.toLowerCase()}.${element.className}: ${element.scrollWidth} > ${element.clientWidth} "${
          (element.textContent ?? "").trim().slice(0, 40)
        }"`
      )
    }
  }
  // A header or order number broken letter by letter: a cell narrower than a few characters.
  const squeezed = Array.from(document.querySelectorAll("th, td")).filter((c) => {
    const text = (c.textContent ?? "").trim()
    const width = (c as HTMLElement).getBoundingClientRect().width
    // A header row hidden for screen readers only (the report's phone cards) is not seen.
    const thead = c.closest("thead")
    if (thead !== null && getComputedStyle(thead).position === "absolute") return false
    return text.length > 3 && width > 0 && width < 40
  }).map((c) =>
    `${c.tagName.toLowerCase()} "${(c.textContent ?? "").trim().slice(0, 30)}" ${
      Math.round((c as HTMLElement).getBoundingClientRect().width)
    } px`
  )
  return { scrollWidth: document.documentElement.scrollWidth, spilled, squeezed }
}

describe.runIf(fs.existsSync(CHROMIUM))("every console page and the report fit a phone and a desktop", () => {
  let browser: Browser
  let base = ""
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/"
    if (path === "/console/assets/console.css") {
      response.writeHead(200, { "content-type": "text/css; charset=utf-8" }).end(CONSOLE_CSS)
      return
    }
    const body = PAGES[path]
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" }).end(body ?? "")
  })

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    server.close()
  })

  for (const path of Object.keys(PAGES)) {
    for (const width of [390, 1280]) {
      it(`${path} at ${width} px`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 } })
        const tab = await context.newPage()
        const answer = await tab.goto(`${base}${path}`)
        expect(answer?.status()).toBe(200)
        const fit = await tab.evaluate(measure)
        await tab.screenshot({ path: `/tmp/fits-${path.replace(/\W+/g, "_")}-${width}.png`, fullPage: true })
        await context.close()
        expect({ path, width, scrollWidth: fit.scrollWidth }).toEqual({ path, width, scrollWidth: width })
        expect(fit.squeezed).toEqual([])
        if (width === 1280) expect(fit.spilled).toEqual([])
      }, 60_000)
    }
  }
})
