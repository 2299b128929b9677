// The dry run (issue 37) below the daemon: its config key and flag, the request it records instead
// of sending, how a recorded order is left alone until it changes (on PGlite and PostgreSQL), and
// what /status and `podsync status` say of it. The daemon against the simulators: test/e2e/dry-run.test.ts.
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either, Layer, Option, Schema, TestClock } from "effect"
import { renderStatus } from "../../src/cli/status.js"
import { withDryRun } from "../../src/cli/start.js"
import { DryRun } from "../../src/config/DryRun.js"
import { parseConfig } from "../../src/config/loadConfig.js"
import { costEstimate } from "../../src/console/DryRunView.js"
import * as Money from "../../src/domain/Money.js"
import { readStatusReport, StatusReport } from "../../src/observability/StatusReport.js"
import { wouldCreateDraft, wouldDraftReason, wouldPushTrackings } from "../../src/pipeline/DryRunRecords.js"
import type { CreateDraftInput } from "../../src/pod/schemas/DraftRequests.js"
import { decodeRecordedDraft } from "../../src/repos/OrderListRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { StatusRepo } from "../../src/repos/StatusRepo.js"
import { minimal } from "../config/fixtures.js"
import { testDatabases } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"

const T0 = Date.parse("2026-12-08T09:00:00Z")

/** The draft of a real-looking order: a long name, two packages' worth of lines, a European address. */
const draft = (reference: string): CreateDraftInput => ({
  reference_id: reference,
  platform: "MARKETPLACE_PLATFORM_SHOPIFY",
  store_id: "store-42",
  address: {
    first_name: "Anna-Katharina",
    last_name: "Schmidt-Oberländer",
    street_1: "Hauptstraße 5",
    city: "München",
    zip_code: "80331",
    country_code: "DE",
    phone_no: "+49 89 1234567"
  },
  shipping_method: "METHOD_FAST_SHIP",
  line_items: [
    {
      variant_id: "GM0001010011",
      quantity: 2,
      printing_options: [{ location_code: "PRINT_LOCATION_CODE_FRONT", url: "https://cdn.example.com/d/front.png" }]
    },
    {
      variant_id: "GM0002010011",
      quantity: 1,
      printing_options: [{ location_code: "PRINT_LOCATION_CODE_BACK", url: "https://cdn.example.com/d/back.png" }]
    }
  ]
})

describe("the dry run's config key and flag", () => {
  const parse = (extra: string) => parseConfig(minimal(extra), "t.yaml", { POD_CLIENT_KEY: "k" })

  it("is off unless pipeline.dryRun says true", () => {
    expect(Either.getOrThrow(parse("")).pipeline).toEqual({ dryRun: false, leaseSeconds: 60 })
    expect(Either.getOrThrow(parse("pipeline: { dryRun: true }")).pipeline).toEqual({ dryRun: true, leaseSeconds: 60 })
    expect(Either.getOrThrow(parse("pipeline: {}")).pipeline).toEqual({ dryRun: false, leaseSeconds: 60 })
  })

  it("takes a lease length of 4 s to an hour, and names the key of one outside", () => {
    expect(Either.getOrThrow(parse("pipeline: { leaseSeconds: 5 }")).pipeline).toEqual({ dryRun: false, leaseSeconds: 5 })
    const refused = parse("pipeline: { leaseSeconds: 2 }")
    expect(Either.isLeft(refused) && refused.left.message).toMatch(/pipeline\.leaseSeconds/)
  })

  it("names the key of a value that is not true or false, and an unknown key under pipeline", () => {
    const bad = parse("pipeline: { dryRun: sometimes }")
    expect(Either.isLeft(bad) && bad.left.issues.map((i) => i.path)).toEqual(["pipeline.dryRun"])
    const unknown = parse("pipeline: { dryrun: true }")
    expect(Either.isLeft(unknown) && unknown.left.issues.map((i) => i.path)).toContain("pipeline.dryrun")
  })

  it("start --dry-run turns it on over the config, and never off", () => {
    const off = Either.getOrThrow(parse(""))
    const on = Either.getOrThrow(parse("pipeline: { dryRun: true }"))
    expect(withDryRun(off, true).pipeline.dryRun).toBe(true)
    expect(withDryRun(off, false)).toBe(off)
    expect(withDryRun(on, false).pipeline.dryRun).toBe(true)
  })
})

describe("what a dry run records instead of sending", () => {
  it.effect("the draft create as the POD client would send it, with the order's reference id", () =>
    Effect.gen(function*() {
      const request = yield* wouldCreateDraft(draft("acme-shopify:5550001"))
      expect(request).toMatchObject({ kind: "draft", method: "POST", path: "/api/v3/orders/draft" })
      expect(request.kind === "draft" && request.body).toEqual({ data: draft("acme-shopify:5550001") })
      expect(wouldDraftReason(request)).toBe(
        "dry run: would create the POD draft (2 lines, METHOD_FAST_SHIP); nothing was sent, it is drafted when dry run is off"
      )
    }))

  it.effect("a draft the client would refuse to send is refused the same way (the order is held, as in a real run)", () =>
    Effect.gen(function*() {
      const tooLong = {
        ...draft("acme-shopify:5550002"),
        address: { ...draft("x").address, city: "Garmisch-Partenkirchen im Werdenfelser Land" }
      }
      const refused = yield* Effect.flip(wouldCreateDraft(tooLong))
      expect(refused._tag).toBe("PodInvalidRequestError")
      expect(refused.issue).toContain("city")
    }))

  it.effect("a POD cost estimate from the catalog's prices only when every line's price is known, per currency", () =>
    Effect.gen(function*() {
      const recorded = Option.getOrThrow(decodeRecordedDraft(JSON.parse(JSON.stringify(yield* wouldCreateDraft(draft("acme-shopify:1"))))))
      const usd = (units: string) => Money.fromNanos("USD", BigInt(Math.round(Number(units) * 100)) * 10_000_000n)
      const both = new Map([["GM0001010011", { name: "Unisex Tee Forest S", price: usd("8.50") }], [
        "GM0002010011",
        { name: "Mug 11oz", price: usd("4.25") }
      ]])
      expect(costEstimate(recorded, both)?.map((m) => Money.format(m))).toEqual([Money.format(usd("21.25"))])
      expect(costEstimate(recorded, new Map([["GM0001010011", { name: "Unisex Tee Forest S", price: usd("8.50") }]]))).toBeUndefined()
      expect(wouldPushTrackings("acme-shopify", [{ carrier: "UPS", trackingNo: "1Z999AA10123456784" }])).toEqual({
        kind: "tracking",
        storeKey: "acme-shopify",
        packages: [{ carrier: "UPS", trackingNumber: "1Z999AA10123456784" }]
      })
    }))
})

for (const database of testDatabases()) {
  layer(Layer.provideMerge(Layer.merge(OrdersRepo.Default, StatusRepo.Default), database.layer))(
    `a dry run's records on ${database.name}`,
    (it) => {
      const readyOrder = (id: string) =>
        Effect.gen(function*() {
          const repo = yield* OrdersRepo
          const { id: row } = yield* repo.upsertPulled(sampleOrder({ storeOrderId: id }), `acme-shopify:${id}`)
          yield* repo.transition(row, "pulled", "ready", { actor: "test", reason: "matched", nextAttemptAt: new Date(0) })
          return row
        })

      it.effect("records an order's would-be draft once, leaves it alone until it changes, and a daemon not in dry run takes it", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const repo = yield* OrdersRepo
          const row = yield* readyOrder("dry-1")
          const claimed = yield* repo.claim(["ready"], 10, "dry", 60, { countsAttempt: true, unlessDryRunRecorded: true })
          expect(claimed.map((o) => o.id)).toContain(row)
          const request = yield* wouldCreateDraft(draft("acme-shopify:dry-1"))
          yield* repo.recordDryRun(row, "dry", { reason: wouldDraftReason(request), request, attempts: 0 })

          // Recorded: the claim was given back with no attempt counted, and a dry run does not take it again.
          const stored = yield* repo.byId(row)
          expect(stored.attempts).toBe(0)
          expect(stored.state).toBe("ready")
          yield* TestClock.adjust("10 minutes")
          const again = yield* repo.claim(["ready"], 10, "dry", 60, { countsAttempt: true, unlessDryRunRecorded: true })
          expect(again.map((o) => o.id)).not.toContain(row)
          const story = yield* repo.story(row)
          expect(story.filter((e) => e.reason?.startsWith("dry run:"))).toHaveLength(1)
          expect(story.at(-1)?.data).toEqual({ wouldSend: JSON.parse(JSON.stringify(request)) })

          // The store changes the order: the dry run records what it would send now.
          const changed = sampleOrder({ storeOrderId: "dry-1", updatedAt: "2026-11-20T11:00:00Z", note: "a second mug please" })
          yield* repo.upsertPulled(changed, "acme-shopify:dry-1")
          const afterChange = yield* repo.claim(["ready"], 10, "dry", 60, { countsAttempt: true, unlessDryRunRecorded: true })
          expect(afterChange.map((o) => o.id)).toContain(row)
          yield* repo.recordDryRun(row, "dry", { reason: wouldDraftReason(request), request, attempts: 0 })

          // A daemon not in dry run claims it as any ready order.
          const real = yield* repo.claim(["ready"], 10, "real", 60, { countsAttempt: true })
          expect(real.map((o) => o.id)).toContain(row)
          // Its move (here, drafted) ends the record: nothing is listed as would-be any more.
          yield* repo.transition(row, "ready", "drafted", { actor: "real", reason: "drafted", podDraftId: "d-dry-1", release: "real" })
          const recorded = yield* (yield* StatusRepo).dryRunRecorded
          expect(recorded.filter((r) => r.storeKey === "acme-shopify")).toEqual([])
        }))

      it.effect("/status counts what a dry run recorded, by store and kind, and podsync status leads with it", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const repo = yield* OrdersRepo
          const rows = [yield* readyOrder("st-1"), yield* readyOrder("st-2")]
          for (const [i, row] of rows.entries()) {
            const request = yield* wouldCreateDraft(draft(`acme-shopify:st-${i + 1}`))
            yield* repo.recordDryRun(row, "dry", { reason: wouldDraftReason(request), request })
          }
          const report = yield* readStatusReport({ storeKeys: ["acme-shopify"], budget: null, traffic: null, dryRun: true })
          expect(report.dryRun).toEqual({ recorded: [{ storeKey: "acme-shopify", kind: "draft", count: 2 }] })
          // Through the wire and back, as `podsync status` reads it from a daemon.
          const decoded = yield* Schema.decodeUnknown(StatusReport)(yield* Schema.encode(StatusReport)(report))
          const text = renderStatus(decoded, "running daemon")
          expect(text.split("\n")[1]).toBe(
            "DRY RUN: nothing is sent to the POD service or the stores; recorded instead: acme-shopify would-be drafts 2 " +
              "(start without --dry-run, pipeline.dryRun: false, to send them)"
          )
          // Not in dry run: the report says nothing of it, and the recorded orders wait in the draft queue.
          const normal = yield* readStatusReport({ storeKeys: ["acme-shopify"], budget: null, traffic: null })
          expect(normal.dryRun).toBeUndefined()
          expect(renderStatus(normal, "database")).not.toContain("DRY RUN")
          const draftQueue = (r: StatusReport) => r.queues.find((q) => q.stage === "draft")?.due
          expect(draftQueue(normal)).toBeGreaterThanOrEqual(2)
          // In a dry run they wait for nothing: not counted as due (nor alerted on as a stalled queue).
          const dry = yield* readStatusReport({ storeKeys: ["acme-shopify"], budget: null, traffic: null, dryRun: true }).pipe(
            Effect.provide(DryRun.layer(true))
          )
          expect(draftQueue(dry)).toBe(draftQueue(normal)! - 2)
        }))
    }
  )
}
