// Every v3 operation of the client against the POD simulator over real HTTP.
import { Chunk, Effect, Either, Logger, Stream } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Money from "../../src/domain/Money.js"
import { PodClient } from "../../src/pod/PodClient.js"
import { startPodSimulator, type RunningPodSimulator } from "../../src/simulator/pod/index.js"
import { addFault, admin, draftInput, podClientLayer, run, stats, activeV3Webhook } from "./podSim.js"

let sim: RunningPodSimulator
let layer: ReturnType<typeof podClientLayer>
let inStock: ReadonlyArray<string> = []

const client = <A, E>(f: (c: PodClient) => Effect.Effect<A, E>) => run(layer, Effect.flatMap(PodClient, f))

beforeAll(async () => {
  sim = await startPodSimulator({ rateLimit: false })
  layer = podClientLayer(sim.url)
  const page = await client((c) =>
    c.listCatalogVariants({
      filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] },
      paging: { limit: 10 }
    })
  )
  inStock = page.data.map((v) => v.variant_id)
})
afterAll(() => sim.close())
beforeEach(async () => {
  await admin(sim.url, "POST", "/reset")
})

describe("catalog", () => {
  it("lists products with paging and exact prices", async () => {
    const page = await client((c) => c.listCatalog({ paging: { limit: 3, page: 2 } }))
    expect(page.data).toHaveLength(3)
    expect(page.paging).toMatchObject({ page: 2, limit: 3 })
    expect(page.paging?.total_page).toBeGreaterThan(2)
    const variant = page.data[0]?.variants?.[0]
    expect(variant?.price).toBeInstanceOf(Money.Money)
    expect(variant?.price?.currency).toBe("USD")
    expect(Money.isPositive(variant?.price ?? Money.zero("USD"))).toBe(true)
  })

  it("streams every product over several pages, one request per page", async () => {
    const first = await client((c) => c.listCatalog({ paging: { limit: 100 } }))
    const before = (await stats(sim.url)).requests["GET /api/v3/catalog"] ?? 0
    const all = await client((c) => Stream.runCollect(c.streamCatalog({ paging: { limit: 7 } })))
    const pages = ((await stats(sim.url)).requests["GET /api/v3/catalog"] ?? 0) - before
    expect(Chunk.size(all)).toBe(first.data.length)
    expect(new Set(Chunk.toArray(all).map((p) => p.product_id)).size).toBe(first.data.length)
    expect(pages).toBe(Math.ceil(first.data.length / 7))
    expect(pages).toBeGreaterThanOrEqual(3)
  })

  it("filters variants with repeated query keys", async () => {
    const wanted = inStock.slice(0, 3)
    const page = await client((c) => c.listCatalogVariants({ filter: { variant_ids: wanted } }))
    expect(page.data.map((v) => v.variant_id).sort()).toEqual([...wanted].sort())
  })

  it("reads stock labels and filters by them", async () => {
    const out = await client((c) =>
      c.listVariantStock({ filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK"] }, paging: { limit: 50 } })
    )
    expect(out.data.length).toBeGreaterThan(0)
    for (const v of out.data) expect(v.stock_label).toBe("VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK")
    const streamed = await client((c) =>
      Stream.runCount(c.streamVariantStock({ filter: { variant_ids: inStock.slice(0, 5) }, paging: { limit: 2 } }))
    )
    expect(streamed).toBe(5)
  })
})

describe("the published wire forms", () => {
  it("reads enums the service sends as numbers as their names", async () => {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) => client((c) => c.createDraft(draftInput(inStock[i % 5]!, `num:${i}`))))
    )
    const raw = await fetch(`${sim.url}/api/v3/orders/draft?paging.limit=50`, {
      headers: { "X-Gearment-Client-Key": "sim-client-key", "X-Gearment-Client-Secret": "sim-client-secret" }
    }).then((r) => r.json()) as { data: Array<{ status: unknown }> }
    // Some records really come with numbers (which ones is the simulator's seeded choice).
    expect(raw.data.some((d) => typeof d.status === "number")).toBe(true)
    const listed = await client((c) => c.listDrafts({ paging: { limit: 50 } }))
    expect(listed.data).toHaveLength(made.length)
    for (const draft of listed.data) {
      expect(draft.status).toBe("VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT")
      expect(draft.order_platform).toBe("MARKETPLACE_PLATFORM_SHOPIFY")
    }
  })

  it("keeps the warnings of a draft create answer, and reads catalog SKUs under variant_sku", async () => {
    const risky = await client((c) =>
      c.listCatalogVariants({ filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_OUT_OF_STOCK_5D"] }, paging: { limit: 1 } })
    )
    const variant = risky.data[0]!
    expect(variant.variant_sku).toMatch(/^[A-Z]{3}\d{2}-/)
    expect(variant.variant_id).toMatch(/^GM\d{10}$/)
    const created = await client((c) => c.createDraft(draftInput(variant.variant_id, "warn:1")))
    expect(created.warnings).toEqual([expect.stringContaining(`variant ${variant.variant_id} (${variant.variant_sku}) is at risk`)])
    const summary = await client((c) => c.createDraftSummary(draftInput(variant.variant_id, "warn:2")))
    expect(summary.warnings).toHaveLength(1)
  })
})

describe("drafts", () => {
  it("creates a draft, reads it back by id and by reference id", async () => {
    const created = await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-a:1001"), { storeKey: "shop-a" }))
    expect(created.reference_id).toBe("shop-a:1001")
    expect(created.status).toBe("VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT")
    expect(created.line_items?.[0]?.quantity).toBe(2)
    const read = await client((c) => c.getDraft(created.order_id))
    expect(read.order_id).toBe(created.order_id)
    expect(read.addresses?.[0]?.city).toBe("Los Angeles")
    await client((c) => c.createDraft(draftInput(inStock[1]!, "shop-a:1002")))
    const found = await client((c) => c.findDraftsByReferenceId("shop-a:1001"))
    expect(found.map((d) => d.order_id)).toEqual([created.order_id])
    const listed = await client((c) => c.listDrafts({ filter: { reference_ids: ["shop-a:1001", "shop-a:1002"] } }))
    expect(listed.data.map((d) => d.reference_id).sort()).toEqual(["shop-a:1001", "shop-a:1002"])
  })

  it("the draft's totals add up exactly: subtotal + shipping + tax + fee - discount", async () => {
    const d = await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-a:2000")))
    const parts = [d.order_subtotal, d.order_shipping_fee, d.order_tax, d.order_fee].map((m) => m ?? Money.zero("USD"))
    const expected = Either.getOrThrow(
      Either.flatMap(Money.sum("USD", parts), (s) => Money.subtract(s, d.order_discount ?? Money.zero("USD")))
    )
    expect(Money.toDecimalString(d.order_total ?? Money.zero("USD"))).toBe(Money.toDecimalString(expected))
  })

  it("creates a draft with a pre-purchased label", async () => {
    const { address: _address, shipping_method: _method, ...rest } = draftInput(inStock[0]!, "shop-a:3000")
    const d = await client((c) => c.createLabeledDraft({ ...rest, shipping_label_urls: ["https://labels.example.com/l1.pdf"] }))
    expect(d.is_label_attached).toBe(true)
    expect(d.shipping_labels).toEqual(["https://labels.example.com/l1.pdf"])
  })

  it("changes line items of a draft", async () => {
    const d = await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-a:4000")))
    const line = d.line_items?.[0]
    const result = await client((c) =>
      c.patchDraftLineItems({
        order_id: d.order_id,
        line_items: [
          {
            line_item_id: line?.line_item_id ?? "",
            variant_id: inStock[2]!,
            quantity: 5,
            printing_options: [{ location_code: "PRINT_LOCATION_CODE_BACK", url: "https://designs.example.com/back.png" }]
          }
        ]
      })
    )
    expect(result.order_id).toBe(d.order_id)
    const after = await client((c) => c.getDraft(d.order_id))
    expect(after.line_items?.[0]?.quantity).toBe(5)
    expect(after.line_items?.[0]?.variant?.variant_id).toBe(inStock[2])
    expect(after.line_items?.[0]?.printing_options?.[0]?.print_location_code).toBe("PRINT_LOCATION_CODE_BACK")
  })

  it("holds a draft with auto_approve false until it is approved", async () => {
    const d = await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-a:5000", { auto_approve: false })))
    expect(d.is_approved).toBe(false)
    expect(d.status).toBe("VENDOR_ORDER_DRAFT_STATUS_DRAFT")
    await client((c) => c.approveDraft(d.order_id))
    const after = await client((c) => c.getDraft(d.order_id))
    expect(after.is_approved).toBe(true)
    expect(after.status).toBe("VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT")
  })

  it("streams drafts over several pages, filtered by status", async () => {
    for (let i = 0; i < 7; i++) await client((c) => c.createDraft(draftInput(inStock[i % 3]!, `shop-b:${i}`)))
    await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-b:held", { auto_approve: false })))
    const approved = await client((c) =>
      Stream.runCollect(
        c.streamDrafts({ filter: { statuses: ["VENDOR_ORDER_DRAFT_STATUS_AWAITING_CHECKOUT"] }, paging: { limit: 3 } })
      )
    )
    expect(Chunk.toArray(approved).map((d) => d.reference_id).sort()).toEqual(
      Array.from({ length: 7 }, (_, i) => `shop-b:${i}`).sort()
    )
  })
})

describe("orders", () => {
  it("lists and reads an order after checkout, and follows it to shipment", async () => {
    const d = await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-c:1")))
    const { order_id } = await admin<{ order_id: string }>(sim.url, "POST", `/drafts/${d.order_id}/checkout`, { paid: true })
    await admin(sim.url, "POST", `/orders/${order_id}/ship`, {
      trackings: [{ tracking_no: "1Z999", carrier: "UPS", tracking_url: "https://ups.example/1Z999" }]
    })
    const order = await client((c) => c.getOrder(order_id, { lane: "urgent" }))
    expect(order.order_status).toBe("VENDOR_ORDER_STATUS_SHIPPED")
    expect(order.order_trackings?.map((t) => t.tracking_no)).toContain("1Z999")
    expect(order.reference_id).toBe("shop-c:1")
    const byRef = await client((c) => c.findOrdersByReferenceId("shop-c:1"))
    expect(byRef.map((o) => o.order_id)).toEqual([order_id])
    const listed = await client((c) => c.listOrders({ filter: { statuses: ["VENDOR_ORDER_STATUS_SHIPPED"] } }))
    expect(listed.data.map((o) => o.order_id)).toEqual([order_id])
    const draftAfter = await client((c) => c.getDraft(d.order_id))
    expect(draftAfter.origin_order_id).toBe(order_id)
  })

  it("streams orders over several pages", async () => {
    for (let i = 0; i < 5; i++) await client((c) => c.createDraft(draftInput(inStock[0]!, `shop-d:${i}`)))
    await admin(sim.url, "POST", "/checkout-all", {})
    const all = await client((c) => Stream.runCollect(c.streamOrders({ paging: { limit: 2 } })))
    expect(Chunk.size(all)).toBe(5)
  })

  it("quotes a price whose total adds up exactly", async () => {
    const q = await client((c) =>
      c.quotePrice({
        order_platform: "shopify",
        shipping: { address: { method: "METHOD_STANDARD", state_code: "CA", country_code: "US" } },
        line_items: [{ variant_id: inStock[0]!, quantity: 3, print_locations: ["front", "PRINT_LOCATION_CODE_BACK"] }]
      })
    )
    const zero = Money.zero("USD")
    const fees = Either.getOrThrow(Money.sum("USD", (q.fees ?? []).map((f) => f.amount ?? zero)))
    expect(Money.equals(fees, q.order_fee ?? zero)).toBe(true)
    const total = Either.getOrThrow(
      Either.flatMap(
        Money.sum("USD", [q.order_sub_total ?? zero, q.order_shipping_fee ?? zero, q.order_tax ?? zero, fees]),
        (s) => Money.subtract(s, q.order_discount ?? zero)
      )
    )
    expect(q.line_items?.[0]?.item_quantity).toBe(3)
    expect(Money.toDecimalString(q.order_total ?? zero)).toBe(Money.toDecimalString(total))
  })
})

describe("webhooks", () => {
  it("creates, lists, filters and deletes subscriptions", async () => {
    const hook = await client((c) =>
      c.createWebhook(activeV3Webhook("TOPIC_TRACKING_ORDER_UPDATED", "podsync", "https://podsync.example.com/webhooks/pod"))
    )
    await client((c) =>
      c.createWebhook({
        status: "STATUS_INACTIVE",
        topic: "TOPIC_ORDER_COMPLETED",
        version: "VERSION_V1",
        delivery_url: "https://x.example.com/h"
      })
    )
    const active = await client((c) => c.listWebhooks({ filter: { statuses: ["STATUS_ACTIVE"] } }))
    expect(active.data.map((w) => w.webhook_id)).toEqual([hook.webhook_id])
    const all = await client((c) => Stream.runCollect(c.streamWebhooks({ paging: { limit: 1 } })))
    expect(Chunk.size(all)).toBe(2)
    const deleted = await client((c) => c.deleteWebhook(hook.webhook_id))
    expect(deleted.webhook_id).toBe(hook.webhook_id)
    const left = await client((c) => c.listWebhooks())
    expect(left.data).toHaveLength(1)
  })
})

describe("forward compatibility", () => {
  it("keeps an unknown enum value and logs it once", async () => {
    const d = await client((c) => c.createDraft(draftInput(inStock[0]!, "shop-e:1")))
    await addFault(sim.url, { route: "GET /api/v3/orders/draft/:order_id", kind: "unknownEnum", count: 2 })
    const messages: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
    const collector = Logger.make(({ annotations, message }) => {
      messages.push({ message, annotations: Object.fromEntries(annotations) })
    })
    const [first, second] = await run(
      layer,
      Effect.flatMap(PodClient, (c) => Effect.all([c.getDraft(d.order_id), c.getDraft(d.order_id)])).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, collector))
      )
    )
    // The unknown value comes as a name, or as a number for a record whose enums travel as numbers.
    const unknown = ["VENDOR_ORDER_DRAFT_STATUS_SIM_FUTURE_VALUE", "99"]
    expect(unknown).toContain(first.status)
    expect(second.status).toBe(first.status)
    expect(first.order_id).toBe(d.order_id)
    const draftStatusLogs = messages.filter((m) => m.annotations["enum"] === "draft_status")
    expect(draftStatusLogs).toHaveLength(1)
    expect(draftStatusLogs[0]?.annotations["value"]).toBe(first.status)
  })
})
