import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { ReportsRepo } from "../../src/reporting/ReportsRepo.js"
import { ShipmentsRepo } from "../../src/repos/ShipmentsRepo.js"
import * as ReferenceId from "../../src/domain/ReferenceId.js"
import { testDatabases } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"

const at = (text: string) => TestClock.setTime(Date.parse(text))

for (const database of testDatabases()) {
  // A layer per backend: one shared memo map would build the second suite on the first one's database.
  layer(Layer.provideMerge(Layer.mergeAll(ReportsRepo.Default, OrdersRepo.Default, ShipmentsRepo.Default), database.layer))(
    `ReportsRepo on ${database.name}`,
    (it) => {
      it.effect("keeps report files by name, each format with its body, a second write replacing the first", () =>
        Effect.gen(function*() {
          const repo = yield* ReportsRepo
          const html = `<!doctype html><html><body><h1>Acme Shirts — 20 Nov 2026</h1>${
            "<tr><td>€1,234.50</td></tr>".repeat(2000)
          }</body></html>`
          yield* repo.saveFiles([
            { format: "html", name: "report-2026-11-20.html", body: html },
            { format: "csv", name: "report-2026-11-20.csv", body: "section,store,amount,currency\nmargin,acme-shopify,1234.50,EUR\n" },
            { format: "json", name: "report-2026-11-20.json", body: '{"overall":{"margin":["12.00 USD"]}}\n' }
          ])
          expect(Option.getOrThrow(yield* repo.file("report-2026-11-20.html"))).toEqual({ format: "html", body: html })
          expect(Option.getOrThrow(yield* repo.file("report-2026-11-20.csv")).body).toContain("1234.50,EUR")
          yield* repo.saveFiles([{ format: "csv", name: "report-2026-11-20.csv", body: "section\nrewritten\n" }])
          expect(Option.getOrThrow(yield* repo.file("report-2026-11-20.csv"))).toEqual({ format: "csv", body: "section\nrewritten\n" })
          expect(Option.isNone(yield* repo.file("report-2026-11-21.csv"))).toBe(true)
        }))

      it.effect("reads the period's orders and every still-open one, with their history, and nothing else", () =>
        Effect.gen(function*() {
          const orders = yield* OrdersRepo
          const shipments = yield* ShipmentsRepo
          const repo = yield* ReportsRepo
          const plant = (store: string, id: string, when: string) =>
            Effect.zipRight(
              at(when),
              Effect.map(orders.upsertPulled(sampleOrder({ storeKey: store, storeOrderId: id }), ReferenceId.keyOf(store, id)), (r) => r.id)
            )

          // Closed before the period: left out.
          const closed = yield* plant("acme", "r1", "2026-11-18T10:00:00Z")
          yield* orders.transition(closed, "pulled", "cancelled", { actor: "t", reason: "cancelled in the store" })
          // Open since before the period (held): in.
          const held = yield* plant("acme", "r2", "2026-11-18T11:00:00Z")
          yield* orders.transition(held, "pulled", "held", {
            actor: "t",
            reason: "no mapping",
            held: { code: "unmatched", details: { message: "no row" } }
          })
          // Closed during the period: in, with its whole story and its shipment.
          const done = yield* plant("acme", "r3", "2026-11-19T23:00:00Z")
          yield* orders.transition(done, "pulled", "ready", { actor: "t", reason: "matched" })
          yield* orders.transition(done, "ready", "drafted", {
            actor: "t",
            reason: "drafted",
            podDraftId: "D-3",
            plannedLines: [{ lineId: "l1", quantity: 2 }]
          })
          yield* at("2026-11-20T08:00:00Z")
          yield* orders.transition(done, "drafted", "shipped", { actor: "t", reason: "shipped" })
          yield* shipments.record(done, "O-3", { number: "1Z3" })
          yield* at("2026-11-20T09:00:00Z")
          yield* orders.transition(done, "shipped", "fulfilled", { actor: "t", reason: "fulfilled" })
          // Another store: left out.
          yield* plant("beta", "r4", "2026-11-20T10:00:00Z")
          // After the period, closed: left out.
          const later = yield* plant("acme", "r5", "2026-11-21T01:00:00Z")
          yield* orders.transition(later, "pulled", "not_pod", { actor: "t", reason: "no POD lines" })

          const found = yield* repo.ordersFor({ from: new Date("2026-11-20T00:00:00Z"), to: new Date("2026-11-21T00:00:00Z") }, ["acme"])
          expect(found.map((o) => o.referenceId).sort()).toEqual(["acme:r2", "acme:r3"])
          const r3 = found.find((o) => o.referenceId === "acme:r3")!
          expect(r3).toMatchObject({ state: "fulfilled", podDraftId: "D-3", plannedLines: [{ lineId: "l1", quantity: 2 }] })
          expect(r3.events.map((e) => [e.to, new Date(e.at).toISOString()])).toEqual([
            ["pulled", "2026-11-19T23:00:00.000Z"],
            ["ready", "2026-11-19T23:00:00.000Z"],
            ["drafted", "2026-11-19T23:00:00.000Z"],
            ["shipped", "2026-11-20T08:00:00.000Z"],
            ["fulfilled", "2026-11-20T09:00:00.000Z"]
          ])
          expect(r3.shipments.map((s) => [s.trackingNo, s.pushState])).toEqual([["1Z3", "pending"]])
          expect(found.find((o) => o.referenceId === "acme:r2")).toMatchObject({
            heldReason: "unmatched",
            heldDetails: { message: "no row" }
          })
          expect((yield* repo.byReferences(["acme:r1", "beta:r4", "acme:nope"])).map((o) => o.referenceId).sort()).toEqual([
            "acme:r1",
            "beta:r4"
          ])
        }))

      it.effect("keeps one row per period and store: writing again replaces it", () =>
        Effect.gen(function*() {
          const repo = yield* ReportsRepo
          const day = { periodFrom: new Date("2026-11-20T00:00:00Z"), periodTo: new Date("2026-11-21T00:00:00Z") }
          yield* repo.save({ ...day, storeKey: "", files: [{ name: "a" }], summary: { findings: 1 } })
          yield* repo.save({ ...day, storeKey: "", files: [{ name: "b" }], summary: { findings: 2 } })
          yield* repo.save({ ...day, storeKey: "acme", files: [], summary: { findings: 0 } })
          yield* repo.save({
            periodFrom: new Date("2026-11-21T00:00:00Z"),
            periodTo: new Date("2026-11-22T00:00:00Z"),
            storeKey: "",
            files: [],
            summary: {}
          })
          const rows = yield* repo.list()
          expect(rows.map((r) => [r.periodFrom.toISOString().slice(0, 10), r.storeKey])).toEqual([["2026-11-21", ""], ["2026-11-20", ""], [
            "2026-11-20",
            "acme"
          ]])
          expect(yield* repo.find(day.periodFrom, day.periodTo, "")).toMatchObject({ files: [{ name: "b" }], summary: { findings: 2 } })
          expect(yield* repo.find(day.periodFrom, day.periodTo, "beta")).toBeUndefined()
        }))
    }
  )
}
