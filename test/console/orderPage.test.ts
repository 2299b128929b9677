import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Logger, LogLevel } from "effect"
import { sql } from "kysely"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import { Db } from "../../src/db/Db.js"
import * as Money from "../../src/domain/Money.js"
import type { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import type { OrderState } from "../../src/domain/OrderState.js"
import { OrdersRepo, type TransitionChange } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { CHROMIUM, launchChromium } from "../../bench/report-screenshot.js"
import { waitForHttp } from "../support/cli.js"
import { scopedStack } from "../support/daemonInProcess.js"
import { testDatabases } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"
import { freePort, writeDaemonConfig } from "../support/pipeline.js"

const REPLICA = "vm:12197:c0ffee12"
const LONG_NAME = "Maximiliane Theodora von Hohenzollern-Sigmaringen-Wittelsbach"

const money = (currency: string, text: string) => Either.getOrThrow(Money.fromDecimalString(currency, text))

/** An order of the daemon's store walked through `steps`, each at a time of its own (as the pipeline and a person would). */
const arranged = (
  order: NormalizedOrder,
  steps: ReadonlyArray<{ readonly to: OrderState; readonly at: string; readonly change: TransitionChange }>
) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const db = yield* Db
    const reference = `demo-shopify:${order.storeOrderId}`
    const { id } = yield* repo.upsertPulled(order, reference)
    let from: OrderState = "pulled"
    for (const step of steps) {
      yield* repo.transition(id, from, step.to, { nextAttemptAt: null, ...step.change })
      from = step.to
    }
    // The times the story shows: each step at its own moment.
    const times = ["2026-11-29T05:40:00Z", ...steps.map((s) => s.at)]
    yield* db.use((k) => sql`update order_events set at = ${new Date(times[0]!)} where order_id = ${id} and from_state is null`.execute(k))
    for (const step of steps) {
      yield* db.use((k) =>
        sql`update order_events set at = ${new Date(
          step.at
        )} where order_id = ${id} and to_state = ${step.to} and reason = ${step.change.reason}`.execute(k)
      )
    }
    return { id, reference }
  })

const eurOrder = sampleOrder({
  storeKey: "demo-shopify",
  storeOrderId: "7770001",
  name: "#A1042",
  currency: "EUR",
  total: money("EUR", "89.90"),
  note: "Bitte klingeln: <script>alert('x')</script>",
  shipTo: { ...sampleOrder().shipTo!, name: LONG_NAME, company: "Atelier Nord GmbH" },
  lines: [
    sampleLine({
      lineId: "gid://shopify/LineItem/11",
      sku: "UTS01-FOREST-S",
      variantId: undefined,
      title: "Forest Tee — Limited Winter Edition",
      variantTitle: "Forest / S",
      attributes: [{ key: "design_front", value: "https://files.example.com/buyers/anna-front.png" }]
    }),
    sampleLine({
      lineId: "gid://shopify/LineItem/12",
      sku: "UTS01-DARKHE-M",
      variantId: undefined,
      title: "Dark Heather Tee",
      variantTitle: "Dark Heather / M",
      quantity: 1,
      currentQuantity: 1,
      fulfillableQuantity: 1,
      attributes: []
    })
  ]
})

const usdOrder = sampleOrder({
  storeKey: "demo-shopify",
  storeOrderId: "7770002",
  name: "#A1043",
  currency: "USD",
  total: money("USD", "1234.50"),
  lines: [sampleLine({ sku: "NOT-MAPPED-HOODIE", variantId: undefined, title: "Hoodie", attributes: [] })]
})

describe.each(testDatabases().map((database) => ({ database })))("an order's page in the console, on $database.name", ({ database }) => {
  it.live(
    "shows a shipped order with money, POD warnings and two packages in the seller's words; a page that fails says what failed",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const stack = yield* scopedStack()
        const db = yield* Layer.build(database.layer)
        const repos = Layer.provideMerge(Layer.merge(OrdersRepo.Default, ShipmentsRepo.Default), Layer.succeedContext(db))
        const shipped = yield* arranged(eurOrder, [
          { to: "ready", at: "2026-11-29T05:41:00Z", change: { reason: "matched every line", actor: REPLICA } },
          {
            to: "drafted",
            at: "2026-11-29T05:42:00Z",
            change: {
              reason: "draft created",
              actor: REPLICA,
              podDraftId: "DRAFT-eu-1042",
              plannedLines: [{ lineId: "gid://shopify/LineItem/11", quantity: 2 }, { lineId: "gid://shopify/LineItem/12", quantity: 1 }],
              data: {
                draftId: "DRAFT-eu-1042",
                warnings: ["address line 2 is longer than 35 characters and will be cut", "Forest / S is low in stock"]
              }
            }
          },
          {
            to: "checked_out",
            at: "2026-11-29T05:45:00Z",
            change: { reason: "checked out by anna", actor: "console:anna", podOrderId: "ORDER-eu-1042", podStatus: "PAID" }
          },
          { to: "in_production", at: "2026-11-29T05:47:00Z", change: { reason: "in production", actor: REPLICA } },
          { to: "shipped", at: "2026-11-29T05:49:43.786Z", change: { reason: "two packages shipped", actor: REPLICA } }
        ]).pipe(Effect.provide(repos))
        yield* Effect.gen(function*() {
          const shipments = yield* ShipmentsRepo
          yield* shipments.record(shipped.id, "ORDER-eu-1042", { number: "9400111899223197428490", carrier: "USPS" })
          yield* shipments.record(shipped.id, "ORDER-eu-1042", {
            number: "1Z999AA10123456784",
            carrier: "UPS",
            url: "https://www.ups.com/track?tracknum=1Z999AA10123456784"
          })
        }).pipe(Effect.provide(repos))
        const held = yield* arranged(usdOrder, [
          { to: "ready", at: "2026-11-29T05:43:00Z", change: { reason: "matched every line", actor: REPLICA } },
          {
            to: "failed",
            at: "2026-11-29T05:44:00Z",
            change: {
              reason: "the POD service refused the draft",
              actor: REPLICA,
              lastError: { message: "design file unreachable (HTTP 404)", apiKey: "sk_live_never_shown" }
            }
          }
        ]).pipe(Effect.provide(repos))
        // A row this version of podsync cannot read (written by a newer one): its page fails unexpectedly.
        const broken = yield* arranged(sampleOrder({ storeKey: "demo-shopify", storeOrderId: "7770003", name: "#A1044" }), []).pipe(
          Effect.provide(repos)
        )
        yield* Context.get(db, Db).use((k) =>
          sql`update store_orders set normalized = ${JSON.stringify({ schema: 99 })}::jsonb, state = 'not_pod' where id = ${broken.id}`
            .execute(k)
        )

        const port = yield* Effect.promise(() => freePort())
        const file = writeDaemonConfig(stack, port, { pull: "0 0 * * * *", reconcile: "0 0 * * * *" })
        fs.appendFileSync(
          file,
          [
            "",
            "  timezone: Europe/Berlin",
            "  storeNames:",
            '    demo-shopify: "Acme Shirts & Co"',
            "console:",
            '  podOrderUrl: "https://pod.example.com/orders/{id}"',
            ""
          ].join("\n")
        )
        const config = yield* loadConfig(file, {})
        const lines: Array<string> = []
        yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
          Effect.provide(Layer.merge(
            Logger.replace(Logger.defaultLogger, Logger.map(Logger.jsonLogger, (line) => void lines.push(line))),
            Logger.minimumLogLevel(LogLevel.Warning)
          ))
        )
        const base = `http://127.0.0.1:${port}`
        yield* Effect.promise(async () => {
          await waitForHttp(`${base}/healthz`)
          const open = async (reference: string, cookie?: string) => {
            const response = await fetch(`${base}/console/order?ref=${encodeURIComponent(reference)}`, {
              headers: cookie === undefined ? {} : { cookie }
            })
            const body = await response.text()
            const text = body.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ")
            return { status: response.status, csp: response.headers.get("content-security-policy") ?? "", body, text }
          }

          const page = await open(shipped.reference)
          expect(page.status).toBe(200)
          const text = page.text
          // The lines: product, variant, quantity, what went to the POD, and the design files as thumbnails.
          expect(page.body).toContain("Forest Tee — Limited Winter Edition")
          expect(text).toContain("Dark Heather / M SKU UTS01-DARKHE-M")
          expect(page.body).toContain('src="https://files.example.com/buyers/anna-front.png"')
          expect(page.body).toContain('src="https://cdn.example.com/designs/podsync-back.png"')
          expect(page.csp).toContain("img-src 'self' data: https:")
          expect(page.csp).toContain("script-src 'self'")
          // Where it ships, the long name whole; buyer text escaped.
          expect(text).toContain(`${LONG_NAME} Atelier Nord GmbH Hauptstraße 5 80331 München Bayern, Germany`)
          expect(page.body).toContain("Bitte klingeln: &lt;script")
          expect(page.body).not.toContain("<script>alert")
          // The POD draft and order, the service's warnings, and cost against price.
          expect(text).toContain("DRAFT-eu-1042")
          expect(text).toContain("ORDER-eu-1042")
          expect(text).toContain("address line 2 is longer than 35 characters and will be cut")
          expect(text).toContain("Forest / S is low in stock")
          expect(text).toContain("Buyer paid €89.90")
          // Both packages, each with its carrier and a tracking link (the carrier's page when the service gave none).
          expect(page.body).toContain('href="https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223197428490"')
          expect(page.body).toContain('href="https://www.ups.com/track?tracknum=1Z999AA10123456784"')
          expect(page.body.match(/<tr><td>\d<\/td>/g)).toHaveLength(2)
          // At the store and at the POD service.
          expect(page.body).toContain('href="https://acme.myshopify.com/admin/orders/7770001"')
          expect(text).toContain("open at Acme Shirts &amp; Co")
          expect(page.body).toContain('href="https://pod.example.com/orders/ORDER-eu-1042"')
          // The story in the seller's words: Berlin time, the person, the replica by its host.
          expect(text).toContain("29 Nov 2026, 06:49 · podsync on vm")
          expect(text).toContain("29 Nov 2026, 06:45 · anna")
          expect(text).toContain("Acme Shirts &amp; Co · demo-shopify:7770001")
          expect(page.body).not.toContain(REPLICA)
          expect(page.body).not.toContain("2026-11-29T05:49:43.786Z ·")

          // The other currency, and a secret in its last error never shown.
          const other = await open(held.reference)
          expect(other.status).toBe(200)
          expect(other.text).toContain("Buyer paid $1,234.50")
          expect(other.body).toContain("design file unreachable (HTTP 404)")
          expect(other.body).not.toContain("sk_live_never_shown")
          expect(other.body).toContain("Retry now")

          // An unexpected failure: a page that says what failed, and an error in the log with the request, no cookie.
          const cookie = (await fetch(`${base}/console`)).headers.get("set-cookie")!.split(";")[0]!
          const failed = await open(broken.reference, cookie)
          expect(failed.status).toBe(500)
          expect(failed.body).toContain("This page could not be shown")
          expect(failed.body).toContain("GET /console/order failed:")
          const logged = lines.map((l) => JSON.parse(l) as { logLevel: string; message: unknown; annotations: Record<string, unknown> })
            .filter((l) => l.logLevel === "ERROR" && String(l.message).includes("/console/"))
          expect(logged).toHaveLength(1)
          expect(logged[0]!.annotations).toMatchObject({ method: "GET", path: "/console/order" })
          expect(JSON.stringify(logged)).not.toContain(cookie.split("=")[1]!)

          // In Chromium (where installed): the page fits a 1280 px and a 390 px screen without horizontal scroll.
          if (database.name !== "pglite" || !fs.existsSync(CHROMIUM)) return
          const browser = await launchChromium()
          try {
            for (const width of [1280, 390]) {
              const tab = await browser.newPage({ viewport: { width, height: 900 } })
              // The design files live on the web; the test machine is offline, so they are refused at once.
              await tab.route("**/*", (route) => route.request().url().startsWith(base) ? route.continue() : route.abort())
              const response = await tab.goto(`${base}/console/order?ref=${encodeURIComponent(shipped.reference)}`)
              expect(response?.status()).toBe(200)
              expect(await tab.locator("[data-testid=packages] tbody tr").count()).toBe(2)
              const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
              expect(overflow, `horizontal overflow at ${width} px`).toBeLessThanOrEqual(0)
              fs.mkdirSync("bench/results/console", { recursive: true })
              await tab.screenshot({ path: `bench/results/console/order-page-${width}.png`, fullPage: true })
              await tab.close()
            }
          } finally {
            await browser.close()
          }
        })
      })),
    90_000
  )
})
