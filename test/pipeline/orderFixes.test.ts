// Fixing in place (issue 34): a person's fixes of one order, kept by podsync and carried by the POD
// draft, on PGlite and PostgreSQL, against the POD simulator over real HTTP.
import * as fs from "node:fs"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { NormalizedOrder } from "../../src/domain/NormalizedOrder.js"
import { DRAFT_STATES, MATCH_STATES } from "../../src/domain/OrderState.js"
import { HELD_BY_PERSON } from "../../src/domain/PersonAction.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import type { StoreSettings } from "../../src/mapping/DraftPlan.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { draftOrder } from "../../src/pipeline/DraftStage.js"
import { chooseVariant, fixAddress } from "../../src/pipeline/OrderFixing.js"
import { actOnOrders } from "../../src/pipeline/PersonActions.js"
import { matchMany } from "../../src/pipeline/Planning.js"
import { PlanningInputs } from "../../src/pipeline/PlanningInputs.js"
import { PodClient } from "../../src/pod/PodClient.js"
import { AttentionRepo } from "../../src/repos/AttentionRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { StoreConnectors } from "../../src/stores/StoreConnector.js"
import { testDatabases } from "../support/database.js"
import { sampleLine, sampleOrder } from "../support/orders.js"
import { admin, recordingPodClientLayer, sharedPodSimulator } from "../pod/podSim.js"

const sim = sharedPodSimulator()
const sent: Array<string> = []
const pod = recordingPodClientLayer(() => sim.url, sent)

const settings: StoreSettings = {
  storeKey: "fix-shop",
  platform: "shopify",
  podStoreId: "store-fix",
  shipping: { default: "METHOD_STANDARD", byTitle: {} },
  eligibleFinancialStatuses: ["PAID"]
}
const table = parseMappingCsv(fs.readFileSync("config/mappings/demo-shopify.csv", "utf8")).table
const inputs = Layer.succeed(PlanningInputs, {
  tableFor: () => Effect.succeed(table),
  catalog: Effect.succeed(undefined),
  settingsFor: (storeKey) => (storeKey === settings.storeKey ? settings : undefined)
})
const connectors = Layer.succeed(StoreConnectors, new Map())
const anna = (actionKey: string) => ({ user: "anna", actionKey })

/** Two lines in two currencies' worth of shops: a fixed-design tee and a buyer-designed one. */
const order = (id: string, shipTo: NormalizedOrder["shipTo"]): NormalizedOrder =>
  sampleOrder({
    storeKey: settings.storeKey,
    storeOrderId: id,
    name: `#${id}`,
    currency: "USD",
    shipTo,
    lines: [
      sampleLine({
        lineId: `${id}-1`,
        sku: "UTS01-DARKHE-M",
        variantId: `v-${id}-1`,
        title: "Unisex Heavy Cotton Tee – Mountain Sunrise Over The Lake (limited run)"
      }),
      sampleLine({
        lineId: `${id}-2`,
        sku: "UTS01-FOREST-S",
        variantId: `v-${id}-2`,
        quantity: 1,
        currentQuantity: 1,
        fulfillableQuantity: 1
      })
    ]
  })

const usAddress = {
  name: "Grace Hopper",
  firstName: "Grace",
  lastName: "Hopper",
  line1: "",
  city: "Arlington",
  region: "Virginia",
  regionCode: "US-VA",
  postalCode: "22202",
  countryCode: "US",
  country: "United States",
  phone: "+1 703 555 0100"
}

const pulledAndMatched = (o: NormalizedOrder) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const { id } = yield* repo.upsertPulled(o, ReferenceId.keyOf(o.storeKey, o.storeOrderId))
    yield* matchMany(yield* repo.claim(MATCH_STATES, 50, "match", 60), "match")
    return id
  })

const draftTurn = Effect.gen(function*() {
  const repo = yield* OrdersRepo
  const claimed = yield* repo.claim(DRAFT_STATES, 25, "drafter", 60, { countsAttempt: true })
  yield* Effect.forEach(claimed, (o) => draftOrder(o, "drafter"), { discard: true })
})

const simDraft = (draftId: string) => Effect.flatMap(PodClient, (c) => c.getDraft(draftId))
const draftsOf = (referenceId: string) => Effect.flatMap(PodClient, (c) => c.findDraftsByReferenceId(referenceId))

for (const database of testDatabases()) {
  const tag = database.name.slice(0, 2)
  layer(
    Layer.mergeAll(OrdersRepo.Default, AttentionRepo.Default, pod, inputs, connectors).pipe(Layer.provideMerge(database.layer)),
    { excludeTestServices: true }
  )(`fixing an order in place on ${database.name}`, (it) => {
    it.effect("a held order's corrected address is kept by podsync, re-planned at once, and carried by its one POD draft", () =>
      Effect.gen(function*() {
        const repo = yield* OrdersRepo
        const id = yield* pulledAndMatched(order(`${tag}a1`, usAddress))
        const held = yield* repo.byId(id)
        expect(held).toMatchObject({ state: "held", heldReason: "address" })

        // Checked by the pipeline's own address rules: nothing is kept.
        const [bad] = yield* fixAddress(id, { ...usAddress, line1: "x".repeat(60) }, anna(`${tag}k1`))
        expect(bad).toMatchObject({ outcome: "refused" })
        expect(bad!.message).toContain("address line 1 (street_1)")
        expect((yield* repo.fixes.forOrder(id)).address).toBeUndefined()

        const outcomes = yield* fixAddress(id, { ...usAddress, line1: "2300 Crystal Drive, Suite 1200" }, anna(`${tag}k2`))
        expect(outcomes.map((o) => o.outcome)).toEqual(["done", "done"])
        expect(outcomes[1]!.message).toBe("re-planned now with the corrected address")
        const story = yield* repo.story(id)
        const told = story.find((e) => e.actor === "console:anna" && e.reason?.startsWith("shipping address corrected"))
        expect(told?.reason).toContain("2300 Crystal Drive, Suite 1200")
        expect(told?.reason).toContain("the store's copy is unchanged")
        expect((yield* repo.fixes.forOrder(id)).address).toMatchObject({
          by: "console:anna",
          shipTo: { line1: "2300 Crystal Drive, Suite 1200" }
        })

        // The release made it due: the match stage plans it with the fix, the draft stage drafts it.
        yield* matchMany(yield* repo.claim(MATCH_STATES, 50, "match", 60), "match")
        expect((yield* repo.byId(id)).state).toBe("ready")
        yield* draftTurn
        const drafted = yield* repo.byId(id)
        expect(drafted.state).toBe("drafted")
        const draft = yield* simDraft(drafted.podDraftId!)
        expect(draft.addresses?.[0]).toMatchObject({ street_1: "2300 Crystal Drive, Suite 1200", zip_code: "22202", state_code: "VA" })
        // The store's copy is as the store sent it.
        expect(drafted.order.shipTo?.line1).toBe("")
        expect(yield* draftsOf(drafted.referenceId)).toHaveLength(1)

        // After the draft the address is the POD service's to fix: refused, nothing kept, no second draft.
        const [late] = yield* fixAddress(id, { ...usAddress, line1: "1 Other Street" }, anna(`${tag}k3`))
        expect(late).toMatchObject({ outcome: "refused" })
        expect(late!.message).toContain("cannot change an address")
        expect((yield* repo.fixes.forOrder(id)).address?.shipTo.line1).toBe("2300 Crystal Drive, Suite 1200")
        expect(yield* draftsOf(drafted.referenceId)).toHaveLength(1)
      }))

    it.effect("a line's variant changes a draft not checked out through the draft update, and is refused once it is", () =>
      Effect.gen(function*() {
        const repo = yield* OrdersRepo
        const id = yield* pulledAndMatched(order(`${tag}v1`, { ...usAddress, line1: "12 Analytical Way" }))
        yield* draftTurn
        const drafted = yield* repo.byId(id)
        expect(drafted.state).toBe("drafted")
        const before = yield* simDraft(drafted.podDraftId!)
        expect(before.line_items?.map((l) => l.variant?.variant_id)).toEqual(["GM0002010020", "GM0002010011"])

        sent.length = 0
        const [done] = yield* chooseVariant(id, `${tag}v1-1`, { variantId: "GM0002010035" }, anna(`${tag}k4`))
        expect(done).toMatchObject({ outcome: "done" })
        expect(sent).toContain("drafts.patchLineItems")
        const after = yield* simDraft(drafted.podDraftId!)
        expect(after.line_items?.map((l) => l.variant?.variant_id)).toEqual(["GM0002010035", "GM0002010011"])
        // Its designs and quantity stay the line's.
        expect(after.line_items?.[0]?.quantity).toBe(2)
        expect(after.line_items?.[0]?.printing_options?.map((p) => p.print_location_code)).toEqual(
          before.line_items?.[0]?.printing_options?.map((p) => p.print_location_code)
        )
        expect((yield* repo.fixes.forOrder(id)).variants).toMatchObject([{
          lineId: `${tag}v1-1`,
          pod: { variantId: "GM0002010035" },
          by: "console:anna"
        }])
        expect((yield* repo.story(id)).some((e) => e.actor === "console:anna" && e.reason?.includes("draft update"))).toBe(true)

        // Checked out at the POD service: its lines no longer change; nothing is sent, nothing kept.
        yield* Effect.promise(() => admin(sim.url, "POST", `/drafts/${drafted.podDraftId!}/checkout`, { paid: true }))
        sent.length = 0
        const [late] = yield* chooseVariant(id, `${tag}v1-2`, { variantId: "GM0002010027" }, anna(`${tag}k5`))
        expect(late).toMatchObject({ outcome: "refused" })
        expect(late!.message).toContain("checked out")
        expect(sent).not.toContain("drafts.patchLineItems")
        expect((yield* repo.fixes.forOrder(id)).variants).toHaveLength(1)
        expect(yield* draftsOf(drafted.referenceId)).toHaveLength(1)
      }))

    it.effect("a variant chosen before the draft is planned with it; held by hand stays held until released", () =>
      Effect.gen(function*() {
        const repo = yield* OrdersRepo
        const id = yield* pulledAndMatched(order(`${tag}h1`, { ...usAddress, line1: "12 Analytical Way" }))
        const ready = yield* repo.byId(id)
        expect(ready.state).toBe("ready")
        const [held] = yield* actOnOrders("hold", [ready], anna(`${tag}k6`))
        expect(held).toMatchObject({ outcome: "done" })
        expect(yield* repo.byId(id)).toMatchObject({ state: "held", heldReason: HELD_BY_PERSON })

        // Held by hand: a re-plan (a mapping change, a newer store version) leaves it held.
        yield* repo.wake(["held"])
        yield* matchMany(yield* repo.claim(MATCH_STATES, 50, "match", 60), "match")
        yield* draftTurn
        expect(yield* repo.byId(id)).toMatchObject({ state: "held", heldReason: HELD_BY_PERSON, podDraftId: null })

        // The person's choice is kept; the person's hold stands (no automatic release).
        const outcomes = yield* chooseVariant(id, `${tag}h1-2`, { legacyId: "10043" }, anna(`${tag}k7`))
        expect(outcomes.map((o) => o.outcome)).toEqual(["done"])
        const stillHeld = yield* repo.byId(id)
        expect(stillHeld.state).toBe("held")
        const [released] = yield* actOnOrders("release", [stillHeld], anna(`${tag}k8`))
        expect(released).toMatchObject({ outcome: "done" })
        yield* matchMany(yield* repo.claim(MATCH_STATES, 50, "match", 60), "match")
        expect((yield* repo.byId(id)).state).toBe("ready")
        yield* draftTurn
        const drafted = yield* repo.byId(id)
        const draft = yield* simDraft(drafted.podDraftId!)
        expect(draft.line_items?.map((l) => String(l.variant?.legacy_id))).toEqual(["10020", "10043"])
        expect(yield* draftsOf(drafted.referenceId)).toHaveLength(1)
      }))
  })
}
