// The legacy v2 operations (credentials in the body, flat fields) against the simulator.
import { Effect, Either } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Money from "../../src/domain/Money.js"
import { isAmbiguous } from "../../src/pod/PodErrors.js"
import { LegacyV2Client } from "../../src/pod/LegacyV2Client.js"
import { legacyAmount, type DraftV2Input } from "../../src/pod/schemas/LegacyV2.js"
import { startPodSimulator, type RunningPodSimulator } from "../../src/simulator/pod/index.js"
import { addFault, admin, firstInStockVariant, legacyClientLayer, adaLovelaceV2 } from "./podSim.js"

let sim: RunningPodSimulator
let legacyVariantId = 0

const v2 = <A, E>(f: (c: LegacyV2Client) => Effect.Effect<A, E>, apiKey?: string) =>
  Effect.runPromise(Effect.provide(Effect.flatMap(LegacyV2Client, f), legacyClientLayer(sim.url, apiKey === undefined ? {} : { apiKey })))

const draftBody = (externalId: string): DraftV2Input => ({
  external_id: externalId,
  ...adaLovelaceV2,
  shipping_phone: "+1 (213) 555-0100",
  shipping_method: 1,
  line_items: [{ variant_id: legacyVariantId, quantity: 2, designs: { front: "https://designs.example.com/f.png" } }]
})

beforeAll(async () => {
  sim = await startPodSimulator({ rateLimit: false })
  legacyVariantId = (await firstInStockVariant(sim.url)).legacy_variant_id!
})
afterAll(() => sim.close())
beforeEach(async () => {
  await admin(sim.url, "POST", "/reset")
})

describe("legacy v2", () => {
  it("quotes a price in v2 numbers, convertible to exact Money", async () => {
    const price = await v2((c) =>
      c.quotePrice({
        shipping_country_code: "US",
        shipping_province_code: "CA",
        shipping_method: 1,
        line_items: [{ variant_id: legacyVariantId, quantity: 1, design_link: "https://designs.example.com/f.png" }]
      })
    )
    expect(price.currency).toBe("USD")
    const total = Either.getOrThrow(legacyAmount("USD", price.total ?? NaN))
    const parts = [price.sub_total, price.tax, price.shipping_fee, price.handle_fee, price.gift_message_fee].map((n) =>
      Either.getOrThrow(legacyAmount("USD", n ?? 0))
    )
    const expected = Either.getOrThrow(
      Either.flatMap(Money.sum("USD", parts), (s) => Money.subtract(s, Either.getOrThrow(legacyAmount("USD", price.total_discount ?? 0))))
    )
    expect(Money.toDecimalString(total)).toBe(Money.toDecimalString(expected))
  })

  it("creates a draft, changes its line items, and reads it as a v2 order", async () => {
    const created = await v2((c) => c.createDraft(draftBody("v2-ext-1")))
    expect(created.id).toBeGreaterThan(0)
    const order = await v2((c) => c.getOrder(created.id))
    expect(order.ord_id).toBe(created.id)
    expect(order.external_id).toBe("v2-ext-1")
    const items = order.items as ReadonlyArray<{ order_item_id: number; quantity: number }>
    const updated = await v2((c) =>
      c.updateDraftLineItems({
        order_id: created.id,
        line_items: [{ order_item_id: items[0]!.order_item_id, quantity: 4, design_link: "https://designs.example.com/g.png" }]
      })
    )
    expect(updated.id).toBe(created.id)
    const after = await v2((c) => c.getOrder(created.id))
    expect((after.items as ReadonlyArray<{ quantity: number }>)[0]?.quantity).toBe(4)
  })

  it("creates a labeled draft", async () => {
    const created = await v2((c) =>
      c.createLabeledDraft({
        order_id: "v2-label-1",
        store_id: "store-1",
        shipping_label_link: "https://labels.example.com/l.pdf",
        line_items: [{ variant_id: legacyVariantId, quantity: 1, designs: { back: "https://designs.example.com/b.png" } }]
      })
    )
    expect(created.id).toBeGreaterThan(0)
  })

  it("a wrong api_key is a 401; a bad body a 400 with details; a reset on a create is ambiguous", async () => {
    const unauthorized = await v2((c) => Effect.flip(c.getOrder(1)), "wrong-key")
    expect(unauthorized._tag).toBe("PodUnauthorizedError")
    const invalid = await v2((c) => Effect.flip(c.createDraft({ ...draftBody("v2-bad"), shipping_method: 99 })))
    expect(invalid._tag).toBe("PodBadRequestError")
    if (invalid._tag === "PodBadRequestError") expect(invalid.details.map((d) => d.field)).toContain("shipping_method")
    await addFault(sim.url, { route: "POST /api/v2/orders/draft", kind: "reset", count: 1 })
    const reset = await v2((c) => Effect.flip(c.createDraft(draftBody("v2-reset"))))
    expect(reset._tag).toBe("PodTransportError")
    expect(isAmbiguous(reset)).toBe(true)
  })
})
