// Conformance: every simulator answer of every operation decoded with the
// client's own schemas in strict mode (`onExcessProperty: "error"`), so a field
// name the spec does not use, on either side, fails here. Responses are made
// as full as the simulator allows (gift messages, billing, labels, trackings).
import { Effect, Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LegacyV2Client } from "../../src/pod/LegacyV2Client.js"
import { PodClient } from "../../src/pod/PodClient.js"
import type { PodError } from "../../src/pod/PodErrors.js"
import { EnvelopeStatus, ErrorBody, RateLimitBody } from "../../src/pod/schemas/Common.js"
import { startPodSimulator, type RunningPodSimulator } from "../../src/simulator/pod/index.js"
import * as Money from "../../src/domain/Money.js"
import {
  addFault,
  admin,
  draftInput,
  legacyClientLayer,
  podClientLayer,
  SIM_KEY,
  SIM_SECRET,
  adaLovelaceV2,
  activeV3Webhook
} from "./podSim.js"

let sim: RunningPodSimulator
let strict: ReturnType<typeof podClientLayer>
let variantId = ""
let legacyVariantId = 0
let draftId = ""
let lineItemId = ""
let orderId = ""
let legacyDraftId = 0

/** A decode failure is reported by its issue (which names each unexpected field), not its raw body. */
const readable = <A, R>(effect: Effect.Effect<A, PodError, R>) =>
  Effect.mapError(effect, (e) => (e._tag === "PodDecodeError" ? new Error(`${e.operation}: ${e.issue}`) : e))

const v3 = <A>(f: (c: PodClient) => Effect.Effect<A, PodError>) =>
  Effect.runPromise(Effect.provide(readable(Effect.flatMap(PodClient, f)), strict))

const lenientV3 = <A>(f: (c: PodClient) => Effect.Effect<A, PodError>) =>
  Effect.runPromise(Effect.provide(Effect.flatMap(PodClient, f), podClientLayer(sim.url)))

const v2 = <A>(f: (c: LegacyV2Client) => Effect.Effect<A, PodError>) =>
  Effect.runPromise(Effect.provide(readable(Effect.flatMap(LegacyV2Client, f)), legacyClientLayer(sim.url, { strictDecoding: true })))

const lenientV2 = <A>(f: (c: LegacyV2Client) => Effect.Effect<A, PodError>) =>
  Effect.runPromise(Effect.provide(Effect.flatMap(LegacyV2Client, f), legacyClientLayer(sim.url)))

const strictOptions = { onExcessProperty: "error", errors: "all" } as const

/** Fetches raw JSON (for error bodies, which the client turns into errors rather than values). */
const raw = async (method: string, path: string, body?: unknown, auth = true) => {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(auth ? { "X-Gearment-Client-Key": SIM_KEY, "X-Gearment-Client-Secret": SIM_SECRET } : {})
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, json: (await response.json()) as unknown }
}

beforeAll(async () => {
  sim = await startPodSimulator({ rateLimit: false })
  strict = podClientLayer(sim.url, { strictDecoding: true })
  const lenient = podClientLayer(sim.url)
  const variants = await Effect.runPromise(
    Effect.provide(
      Effect.flatMap(
        PodClient,
        (c) => c.listCatalogVariants({ filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"] }, paging: { limit: 1 } })
      ),
      lenient
    )
  )
  variantId = variants.data[0]!.variant_id
  legacyVariantId = variants.data[0]!.legacy_variant_id!
  // State for the operations below, made with the lenient client so each test checks one operation.
  const full = await lenientV3((c) => c.createDraft(fullDraft("conf:0")))
  draftId = full.order_id
  lineItemId = full.line_items?.[0]?.line_item_id ?? ""
  const toShip = await lenientV3((c) => c.createDraft(fullDraft("conf:ship")))
  orderId = (await admin<{ order_id: string }>(sim.url, "POST", `/drafts/${toShip.order_id}/checkout`, { paid: true })).order_id
  await admin(sim.url, "POST", `/orders/${orderId}/ship`, {})
  legacyDraftId = (await lenientV2((c) => c.createDraft({ ...draftV2, external_id: "conf-v2:0", line_items: legacyLines() }))).id
})

const fullDraft = (referenceId: string) =>
  draftInput(variantId, referenceId, {
    gift_message_body: "Happy birthday",
    billing_option: {
      ioss_number: "IM0000000001",
      ioss_value: Either.getOrThrow(Money.make("EUR", 20, 0)),
      tax_number: "DE123",
      tax_value: Either.getOrThrow(Money.make("EUR", 3, 800_000_000))
    },
    auto_approve: false
  })

const draftV2 = {
  ...adaLovelaceV2,
  shipping_method: 1,
  gift_message_body: "Hello",
  ioss_number: "IM2"
}
const legacyLines = () => [{ variant_id: legacyVariantId, quantity: 1, designs: { front: "https://d.example.com/f.png" } }]
afterAll(() => sim.close())

describe("v3 answers name only the spec's fields", () => {
  it("catalog list", async () => {
    const page = await v3((c) => c.listCatalog({ paging: { limit: 5 } }))
    expect(page.data.length).toBeGreaterThan(0)
  })

  it("catalog variants and stock", async () => {
    expect((await v3((c) => c.listCatalogVariants({ paging: { limit: 20 } }))).data.length).toBeGreaterThan(0)
    expect((await v3((c) => c.listVariantStock({ paging: { limit: 20 } }))).data.length).toBeGreaterThan(0)
  })

  it("draft create (with billing, gift message, auto_approve false)", async () => {
    const draft = await v3((c) => c.createDraft(fullDraft("conf:1")))
    expect(draft.reference_id).toBe("conf:1")
  })

  it("draft create answering a summary: only what the pipeline keeps is decoded, the rest ignored even in strict mode", async () => {
    const summary = await v3((c) => c.createDraftSummary(fullDraft("conf:summary")))
    expect(summary.reference_id).toBe("conf:summary")
    expect(summary.order_id).not.toBe("")
    expect(
      Object.keys(summary).every((k) =>
        ["order_id", "reference_id", "status", "order_date", "origin_order_id", "shipping_substitution", "warnings"].includes(k)
      )
    ).toBe(true)
    expect(summary.warnings).toEqual([])
  })

  it("draft get", async () => {
    expect((await v3((c) => c.getDraft(draftId))).order_id).toBe(draftId)
  })

  it("draft list", async () => {
    expect((await v3((c) => c.listDrafts({ filter: { reference_ids: ["conf:0"] } }))).data).toHaveLength(1)
  })

  it("labeled draft create", async () => {
    const { address: _a, shipping_method: _m, ...rest } = draftInput(variantId, "conf:2")
    const draft = await v3((c) => c.createLabeledDraft({ ...rest, shipping_label_urls: ["https://labels.example.com/1.pdf"] }))
    expect(draft.is_label_attached).toBe(true)
  })

  it("draft line-item patch", async () => {
    const patched = await v3((c) =>
      c.patchDraftLineItems({
        order_id: draftId,
        line_items: [
          {
            line_item_id: lineItemId,
            variant_id: variantId,
            quantity: 3,
            printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://designs.example.com/2.png" }]
          }
        ]
      })
    )
    expect(patched.order_id).toBe(draftId)
  })

  it("draft approve", async () => {
    const approved = await v3((c) => c.approveDraft(draftId))
    expect(approved === undefined || approved.order_id === draftId).toBe(true)
  })

  it("order get (shipped, with trackings)", async () => {
    const order = await v3((c) => c.getOrder(orderId))
    expect(order.order_trackings?.length).toBeGreaterThan(0)
  })

  it("order list", async () => {
    expect((await v3((c) => c.listOrders({ filter: { order_ids: [orderId] } }))).data).toHaveLength(1)
  })

  it("order progress list: status and trackings decoded, the rest ignored even in strict mode", async () => {
    const [progress] = (await v3((c) => c.listOrderProgress({ filter: { order_ids: [orderId] } }))).data
    const [full] = (await v3((c) => c.listOrders({ filter: { order_ids: [orderId] } }))).data
    expect(progress).toEqual({
      order_id: full!.order_id,
      reference_id: full!.reference_id,
      order_date: full!.order_date,
      order_status: full!.order_status,
      ...(full!.tracking_number === undefined ? {} : { tracking_number: full!.tracking_number }),
      ...(full!.tracking_link === undefined ? {} : { tracking_link: full!.tracking_link }),
      ...(full!.tracking_company === undefined ? {} : { tracking_company: full!.tracking_company })
    })
    // A list item carries the primary tracking as `tracking_number`, as the published contract has it.
    expect(progress!.tracking_number).toMatch(/\S/)
  })

  it("price quote with gift messages and a label", async () => {
    const quote = await v3((c) =>
      c.quotePrice({
        order_platform: "",
        billing: { ioss_number: "IM1", tax_number: "T1" },
        shipping: { address: { method: "ground", state_code: "CA", country_code: "US" }, label: { url: "https://l.example.com/x.pdf" } },
        line_items: [{ variant_id: variantId, quantity: 2, print_locations: ["front", "back"] }],
        gift_messages: [{ gift_message_id: "g1", content: "Hi" }]
      })
    )
    expect(quote.fees?.length).toBeGreaterThan(0)
  })

  it("webhook create (with store), list, delete", async () => {
    const hook = await v3((c) => c.createWebhook(activeV3Webhook("TOPIC_ORDER_ON_HOLD", "conf", "https://conf.example.com/h")))
    expect((await v3((c) => c.listWebhooks())).data.length).toBeGreaterThan(0)
    expect((await v3((c) => c.deleteWebhook(hook.webhook_id))).webhook_id).toBe(hook.webhook_id)
  })
})

describe("legacy v2 answers name only the spec's fields", () => {
  it("price", async () => {
    const price = await v2((c) =>
      c.quotePrice({
        shipping_country_code: "US",
        shipping_method: 1,
        line_items: [{ variant_id: legacyVariantId, quantity: 1, design_link: "https://d.example.com/f.png" }]
      })
    )
    expect(price.currency).toBe("USD")
  })

  it("draft", async () => {
    expect((await v2((c) => c.createDraft({ ...draftV2, external_id: "conf-v2:1", line_items: legacyLines() }))).id).toBeGreaterThan(0)
  })

  it("labeled draft", async () => {
    const created = await v2((c) =>
      c.createLabeledDraft({ store_id: "store-1", shipping_label_link: "https://l.example.com/1.pdf", line_items: legacyLines() })
    )
    expect(created.id).toBeGreaterThan(0)
  })

  it("line items", async () => {
    const order = await lenientV2((c) => c.getOrder(legacyDraftId))
    const items = order.items as ReadonlyArray<{ readonly order_item_id: number }>
    const updated = await v2((c) =>
      c.updateDraftLineItems({
        order_id: legacyDraftId,
        line_items: [{ order_item_id: items[0]!.order_item_id, quantity: 2, design_link: "https://d.example.com/g.png" }]
      })
    )
    expect(updated.id).toBe(legacyDraftId)
  })

  it("get order", async () => {
    expect((await v2((c) => c.getOrder(legacyDraftId))).ord_id).toBe(legacyDraftId)
  })
})

describe("error bodies name only the spec's fields", () => {
  it("400 with details, 401, 404", async () => {
    const decode = Schema.decodeUnknownSync(ErrorBody, strictOptions)
    const bad = await raw("POST", "/api/v3/orders/draft", { data: { platform: "nope" } })
    expect(bad.status).toBe(400)
    expect(decode(bad.json).details?.length).toBeGreaterThan(0)
    const unauthorized = await raw("GET", "/api/v3/orders", undefined, false)
    expect(unauthorized.status).toBe(401)
    decode(unauthorized.json)
    const missing = await raw("GET", "/api/v3/orders/draft/none")
    expect(missing.status).toBe(404)
    decode(missing.json)
  })

  it("429 and an envelope error", async () => {
    await addFault(sim.url, { route: "GET /api/v3/webhooks", kind: "rateLimit429", count: 1 })
    const limited = await raw("GET", "/api/v3/webhooks")
    expect(limited.status).toBe(429)
    Schema.decodeUnknownSync(RateLimitBody, strictOptions)(limited.json)
    await addFault(sim.url, { route: "GET /api/v3/webhooks", kind: "envelopeError", count: 1 })
    const envelope = await raw("GET", "/api/v3/webhooks")
    const EnvelopeErrorBody = Schema.Struct({
      status: EnvelopeStatus,
      message: Schema.String,
      data: Schema.optionalWith(Schema.Unknown, { nullable: true })
    })
    expect(Schema.decodeUnknownSync(EnvelopeErrorBody, strictOptions)(envelope.json).status).toBe("error")
  })
})
