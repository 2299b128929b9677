// The POD service's address and stock events make an order need a person, with the reason in the
// seller's words, until the service's answer shows the condition cleared: real HTTP against the POD
// simulator, real PGlite (and PostgreSQL when TEST_DATABASE_URL is set).
import { describe, expect, it as plainIt, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readStatusReport } from "../../src/observability/StatusReport.js"
import { explainOrder, renderStory } from "../../src/pipeline/Explain.js"
import { conditionsNow, decideConditions, NO_CONDITIONS } from "../../src/pipeline/PodConditions.js"
import { followUpMany, reconcileAll } from "../../src/pipeline/ReconcileStage.js"
import { PodClient } from "../../src/pod/PodClient.js"
import type { PodWebhookHint } from "../../src/pod/PodWebhookEvents.js"
import { needsAPerson } from "../../src/reports/NeedsAPerson.js"
import { DEFAULT_REPORT_SETTINGS, type ReportOrder } from "../../src/reports/ReportInput.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import { StatusRepo } from "../../src/repos/StatusRepo.js"
import { testDatabases } from "../support/database.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { sampleOrder, storedSampleOrder } from "../support/orders.js"
import { admin, draftInput, recordingPodClientLayer, sharedPodSimulator } from "../pod/podSim.js"

const sim = sharedPodSimulator()

/** The client under test, with a gate that records each operation it lets through. */
const operations: Array<string> = []
const podLayer = recordingPodClientLayer(() => sim.url, operations)

/** A stored order drafted at the simulator (an address it cannot verify when `unverifiable`), and optionally checked out. */
const draftedOrder = (id: string, options: { readonly unverifiable?: boolean; readonly checkout?: boolean } = {}) =>
  Effect.gen(function*() {
    const { repo, reference, rowId } = yield* storedSampleOrder(id)
    const client = yield* PodClient
    const variant = (yield* client.listCatalogVariants({
      filter: { stock_labels: ["VENDOR_CATALOG_VARIANT_STOCK_LABEL_IN_STOCK"], sizes: ["L"] },
      paging: { limit: 1 }
    })).data[0]!
    const input = draftInput(variant.variant_id, reference)
    const draft = yield* client.createDraft(
      options.unverifiable === true ? { ...input, address: { ...input.address, zip_code: "00000" } } : input
    )
    yield* repo.transition(rowId, "pulled", "ready", { actor: "t", reason: "matched" })
    yield* repo.transition(rowId, "ready", "drafted", { actor: "t", reason: "drafted", podDraftId: draft.order_id })
    let podOrderId: string | undefined
    if (options.checkout === true) {
      podOrderId = (yield* Effect.promise(() =>
        admin<{ order_id: string }>(sim.url, "POST", `/drafts/${draft.order_id}/checkout`, { paid: true })
      )).order_id
      yield* repo.transition(rowId, "drafted", "checked_out", {
        actor: "t",
        reason: "checked out",
        podOrderId,
        podStatus: "VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT"
      })
    }
    return { rowId, reference, draftId: draft.order_id, podOrderId, variantId: variant.variant_id, sku: variant.variant_sku }
  })

const stateOf = (rowId: number) => Effect.flatMap(OrdersRepo, (repo) => repo.byId(rowId))

for (const database of testDatabases()) {
  layer(
    Layer.mergeAll(OrdersRepo.Default, ShipmentsRepo.Default, StatusRepo.Default, podLayer).pipe(Layer.provideMerge(database.layer)),
    { excludeTestServices: true }
  )(`POD address and stock conditions on ${database.name}`, (it) => {
    const suffix = database.name.slice(0, 2)

    it.effect(
      "an address the service cannot verify makes a drafted order need a person until the service verifies it",
      () =>
        Effect.gen(function*() {
          const order = yield* draftedOrder(`${suffix}101`, { unverifiable: true })
          const unverified: PodWebhookHint = {
            topic: "shipping_address_unverified",
            event: "shipping_address_unverified",
            podOrderId: order.draftId,
            referenceId: order.reference,
            addressVerified: false
          }
          operations.length = 0
          yield* followUpMany([unverified, unverified], "webhook")
          // The hint is checked against the draft: one read, whatever the number of deliveries.
          expect(operations).toEqual(["drafts.get"])
          const held = yield* stateOf(order.rowId)
          expect(held).toMatchObject({ state: "pod_on_hold", heldReason: "address_unverified" })
          const message = (held.heldDetails as { message: string }).message
          expect(message).toContain("could not verify the shipping address")
          expect(message).toContain(order.draftId)
          expect(message).toContain("correct it")

          // explain: the state, the reason and the story.
          const story = (yield* explainOrder(order.reference))!
          expect(story).toMatchObject({ state: "pod_on_hold", heldReason: "address_unverified", heldMessage: message })
          expect(story.events.at(-1)).toMatchObject({ actor: "webhook", from: "drafted", to: "pod_on_hold", reason: message })
          const rendered = renderStory(story)
          expect(rendered).toContain(`pod_on_hold (address_unverified), POD draft ${order.draftId}\n  ${message}`)
          // status: what needs a person, and what to do.
          const status = yield* readStatusReport({ storeKeys: ["acme-shopify"], budget: null, traffic: null })
          expect(status.attention).toContainEqual(expect.objectContaining({
            storeKey: "acme-shopify",
            what: "pod_on_hold: address_unverified",
            action: expect.stringContaining("correct or confirm it at the POD service")
          }))

          // Reconciliation does not undo it: the draft is still unverified.
          yield* reconcileAll("reconcile")
          expect((yield* stateOf(order.rowId)).state).toBe("pod_on_hold")
          expect((yield* explainOrder(order.reference))!.events).toHaveLength(story.events.length)

          // Verified at the service: the verified event lets it go, back to drafted.
          yield* Effect.promise(() => admin(sim.url, "POST", `/drafts/${order.draftId}/address-verification`, { verified: true }))
          yield* followUpMany([{
            topic: "shipping_address_verified",
            event: "shipping_address_verified",
            podOrderId: order.draftId,
            referenceId: order.reference,
            addressVerified: true
          }], "webhook")
          expect(yield* stateOf(order.rowId)).toMatchObject({ state: "drafted", heldReason: null })
          expect((yield* explainOrder(order.reference))!.events.at(-1)).toMatchObject({
            from: "pod_on_hold",
            to: "drafted",
            reason: expect.stringContaining("has verified the shipping address")
          })
          // And the order goes on as usual.
          yield* Effect.promise(() => admin(sim.url, "POST", `/drafts/${order.draftId}/checkout`, { paid: true }))
          yield* reconcileAll("reconcile")
          expect((yield* stateOf(order.rowId)).state).toBe("checked_out")
        }),
      30_000
    )

    it.effect(
      "with no event at all, reconciliation reads the waiting drafts and holds the order, then lets it go once verified",
      () =>
        Effect.gen(function*() {
          // The service's event came before podsync's subscription, or was lost.
          const order = yield* draftedOrder(`${suffix}102`, { unverifiable: true })
          operations.length = 0
          yield* reconcileAll("reconcile")
          // The drafts waiting for checkout are listed by reference id: one request for up to 100 orders.
          expect(operations.filter((o) => o.startsWith("drafts."))).toEqual(["drafts.list"])
          expect(yield* stateOf(order.rowId)).toMatchObject({ state: "pod_on_hold", heldReason: "address_unverified" })
          expect((yield* explainOrder(order.reference))!.events.at(-1)).toMatchObject({
            actor: "reconcile",
            from: "drafted",
            to: "pod_on_hold"
          })
          yield* Effect.promise(() => admin(sim.url, "POST", `/drafts/${order.draftId}/address-verification`, { verified: true }))
          yield* reconcileAll("reconcile")
          expect(yield* stateOf(order.rowId)).toMatchObject({ state: "drafted", heldReason: null })
        }),
      30_000
    )

    it.effect(
      "a variant out of stock holds a checked-out order; reconciliation keeps it until the service has it again",
      () =>
        Effect.gen(function*() {
          const order = yield* draftedOrder(`${suffix}103`, { checkout: true })
          yield* Effect.promise(() => admin(sim.url, "POST", `/variants/${order.variantId}/stock`, { label: "OUT_OF_STOCK" }))
          try {
            yield* followUpMany([{
              topic: "product_out_of_stock",
              event: "product_out_of_stock",
              podOrderId: order.podOrderId!,
              referenceId: order.reference,
              variantIds: [order.variantId]
            }], "webhook")
            const held = yield* stateOf(order.rowId)
            expect(held).toMatchObject({ state: "pod_on_hold", heldReason: "variant_out_of_stock" })
            const message = (held.heldDetails as { message: string }).message
            expect(message).toContain(order.sku)
            expect(message).toContain("Wait for the restock, or change the variant")
            const status = yield* readStatusReport({ storeKeys: ["acme-shopify"], budget: null, traffic: null })
            expect(status.attention).toContainEqual(
              expect.objectContaining({
                what: "pod_on_hold: variant_out_of_stock",
                action: expect.stringContaining("wait for the restock")
              })
            )

            // The order's status at the service (awaiting fulfilment) does not show the stock back: it stays held.
            yield* reconcileAll("reconcile")
            expect(yield* stateOf(order.rowId)).toMatchObject({ state: "pod_on_hold", heldReason: "variant_out_of_stock" })

            yield* Effect.promise(() => admin(sim.url, "POST", `/variants/${order.variantId}/stock`, { label: "IN_STOCK" }))
            yield* reconcileAll("reconcile")
            expect(yield* stateOf(order.rowId)).toMatchObject({ state: "checked_out", heldReason: null })
            expect((yield* explainOrder(order.reference))!.events.at(-1)).toMatchObject({
              actor: "reconcile",
              from: "pod_on_hold",
              to: "checked_out",
              reason: expect.stringContaining("in stock again")
            })
          } finally {
            yield* Effect.promise(() => admin(sim.url, "POST", `/variants/${order.variantId}/stock`, { label: "IN_STOCK" }))
          }
        }),
      30_000
    )

    it.effect("production at the service clears a condition podsync held the order for", () =>
      Effect.gen(function*() {
        const order = yield* draftedOrder(`${suffix}104`, { checkout: true })
        yield* Effect.promise(() => admin(sim.url, "POST", `/variants/${order.variantId}/stock`, { label: "OUT_OF_STOCK" }))
        try {
          yield* followUpMany([{
            topic: "product_out_of_stock",
            event: "product_out_of_stock",
            podOrderId: order.podOrderId!,
            referenceId: order.reference
          }], "webhook")
          expect((yield* stateOf(order.rowId)).state).toBe("pod_on_hold")
          yield* Effect.promise(() => admin(sim.url, "POST", `/orders/${order.podOrderId}/advance`, { to: "IN_PRODUCTION" }))
          yield* reconcileAll("reconcile")
          expect(yield* stateOf(order.rowId)).toMatchObject({ state: "in_production", heldReason: null })
        } finally {
          yield* Effect.promise(() => admin(sim.url, "POST", `/variants/${order.variantId}/stock`, { label: "IN_STOCK" }))
        }
      }), 30_000)

    it.effect("an event the draft contradicts is noted in the story, and nothing is held", () =>
      Effect.gen(function*() {
        const order = yield* draftedOrder(`${suffix}105`)
        // Deliveries are not ordered: an unverified event may arrive after the address was verified.
        yield* followUpMany([{
          topic: "shipping_address_unverified",
          event: "shipping_address_unverified",
          podOrderId: order.draftId,
          referenceId: order.reference
        }], "webhook")
        expect(yield* stateOf(order.rowId)).toMatchObject({ state: "drafted", heldReason: null })
        expect((yield* explainOrder(order.reference))!.events.at(-1)).toMatchObject({
          from: "drafted",
          to: "drafted",
          reason: expect.stringContaining("shows nothing wrong")
        })
      }), 30_000)

    it.effect("an event about an order whose draft is still being made is handed back, to be looked at again", () =>
      Effect.gen(function*() {
        const repo = yield* OrdersRepo
        const reference = ReferenceId.keyOf("acme-shopify", `${suffix}106`)
        const { id } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: `${suffix}106` }), reference)
        yield* repo.transition(id, "pulled", "ready", { actor: "t", reason: "matched" })
        operations.length = 0
        const hint = {
          topic: "shipping_address_unverified",
          event: "shipping_address_unverified" as const,
          podOrderId: "draft-not-recorded-yet",
          referenceId: reference
        }
        const result = yield* followUpMany([hint], "webhook")
        expect(result.deferred).toEqual([hint])
        expect(operations).toEqual([])
        expect((yield* stateOf(id)).state).toBe("ready")
      }))

    it.effect("an event about an order podsync does not know reads nothing and changes nothing", () =>
      Effect.gen(function*() {
        operations.length = 0
        yield* followUpMany([
          { topic: "order_cancelled", event: "order_cancelled", podOrderId: "ord-elsewhere", referenceId: "someone-else:1" },
          {
            topic: "shipping_address_unverified",
            event: "shipping_address_unverified",
            podOrderId: "draft-elsewhere",
            referenceId: "someone-else:2"
          },
          { topic: "product_out_of_stock", event: "product_out_of_stock", referenceId: "someone-else:3" }
        ], "webhook")
        expect(operations).toEqual([])
      }))

    it.effect("an event naming one of ours by its POD id, with the seller's own id as its reference, is still followed", () =>
      Effect.gen(function*() {
        const order = yield* draftedOrder(`${suffix}107`, { checkout: true })
        yield* Effect.promise(() =>
          admin(sim.url, "POST", `/orders/${order.podOrderId}/ship`, { trackings: [{ tracking_no: `1Z${suffix}107`, carrier: "UPS" }] })
        )
        yield* followUpMany([{
          topic: "tracking_updated",
          event: "tracking_updated",
          podOrderId: order.podOrderId!,
          referenceId: "EXT-1234567"
        }], "webhook")
        expect((yield* stateOf(order.rowId)).state).toBe("shipped")
      }))
  })
}

describe("the decision (pure)", () => {
  const drafted = { state: "drafted" as const, heldReason: null, heldDetails: null, podDraftId: "d-1", podOrderId: null, podStatus: null }
  const unverified: PodWebhookHint = { event: "shipping_address_unverified", topic: "shipping_address_unverified" }
  const verified: PodWebhookHint = { event: "shipping_address_verified", topic: "shipping_address_verified", addressVerified: true }

  plainIt("trusts the draft first, then the events; two events that disagree with no draft to settle it change nothing", () => {
    const unknown = { address: undefined, outOfStock: undefined }
    expect(conditionsNow(NO_CONDITIONS, [unverified], { address: "verified", outOfStock: undefined }).addressUnverified).toBe(false)
    expect(conditionsNow(NO_CONDITIONS, [verified], { address: "unverified", outOfStock: undefined }).addressUnverified).toBe(true)
    expect(conditionsNow(NO_CONDITIONS, [unverified], unknown).addressUnverified).toBe(true)
    expect(conditionsNow({ ...NO_CONDITIONS, addressUnverified: true }, [verified, unverified], unknown).addressUnverified).toBe(true)
    expect(conditionsNow(NO_CONDITIONS, [verified, unverified], unknown).addressUnverified).toBe(false)
    const stock = conditionsNow(NO_CONDITIONS, [{ event: "product_out_of_stock", variantIds: ["v-1"] }], unknown)
    expect(stock).toEqual({ addressUnverified: false, outOfStock: true, variants: [{ variantId: "v-1" }] })
    // A recheck with a draft that shows every line in stock lets it go.
    expect(conditionsNow(stock, [], { address: undefined, outOfStock: [] })).toEqual(NO_CONDITIONS)
  })

  plainIt("holds drafted and checked-out orders, notes the others, and lets go where the order stands at the service", () => {
    const now = { addressUnverified: true, outOfStock: false, variants: [] }
    expect(decideConditions(drafted, [unverified], now)).toMatchObject({
      kind: "move",
      to: "pod_on_hold",
      held: { code: "address_unverified" }
    })
    expect(decideConditions({ ...drafted, state: "in_production" }, [unverified], now)).toMatchObject({ kind: "note" })
    expect(decideConditions({ ...drafted, state: "shipped" }, [verified], NO_CONDITIONS)).toEqual({ kind: "none" })
    const held = {
      ...drafted,
      state: "pod_on_hold" as const,
      heldReason: "address_unverified",
      heldDetails: { message: "m", conditions: now }
    }
    expect(decideConditions(held, [unverified], now)).toEqual({ kind: "none" })
    expect(decideConditions(held, [verified], NO_CONDITIONS)).toMatchObject({ kind: "move", to: "drafted", held: null })
    expect(decideConditions({ ...held, podOrderId: "o-1", podStatus: "VENDOR_ORDER_STATUS_AWAITING_FULFILLMENT" }, [], NO_CONDITIONS))
      .toMatchObject({ to: "checked_out" })
    // The service holds the order itself as well: it stays on hold, without podsync's reason.
    expect(decideConditions({ ...held, podOrderId: "o-1", podStatus: "VENDOR_ORDER_STATUS_ON_HOLD" }, [], NO_CONDITIONS)).toMatchObject({
      to: "pod_on_hold",
      held: null
    })
    // Both at once: one hold naming both.
    const both = decideConditions(drafted, [unverified], {
      addressUnverified: true,
      outOfStock: true,
      variants: [{ variantId: "v-1", sku: "UTS01-BLACK-L" }]
    })
    expect(both).toMatchObject({ kind: "move", held: { code: "address_unverified" } })
    expect(both.kind === "move" ? both.reason : "").toMatch(/shipping address.*out of UTS01-BLACK-L/s)
  })

  plainIt("the report lists an order podsync holds with its reason and what to do", () => {
    const message =
      "The POD service could not verify the shipping address (draft d-1). Check it with the buyer, then correct it at the POD service."
    const order: ReportOrder = {
      id: 1,
      storeKey: "acme-shopify",
      storeOrderId: "1",
      referenceId: "acme-shopify:1",
      state: "pod_on_hold",
      heldReason: "address_unverified",
      heldDetails: { message },
      lastError: null,
      podDraftId: "d-1",
      podOrderId: null,
      podStatus: null,
      plannedLines: [],
      order: sampleOrder({ storeOrderId: "1" }),
      shipments: [],
      events: [{ at: 0, from: "drafted", to: "pod_on_hold", reason: message }]
    }
    const serviceHold: ReportOrder = {
      ...order,
      id: 2,
      referenceId: "acme-shopify:2",
      heldReason: null,
      heldDetails: null,
      podOrderId: "o-2"
    }
    const section = needsAPerson([order, serviceHold], DEFAULT_REPORT_SETTINGS, 3_600_000)
    expect(section.podOnHold.map((i) => [i.referenceId, i.reason, i.detail])).toEqual([
      ["acme-shopify:1", "address_unverified", message],
      ["acme-shopify:2", undefined, expect.stringContaining("on hold at the POD service (draft d-1, order o-2)")]
    ])
  })
})
