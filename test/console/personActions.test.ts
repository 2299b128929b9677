import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import type { OrderState } from "../../src/domain/OrderState.js"
import { SKIPPED_BY_PERSON } from "../../src/domain/PersonAction.js"
import { actOnOrders } from "../../src/pipeline/PersonActions.js"
import { decideMatch } from "../../src/pipeline/MatchDecision.js"
import { AttentionRepo } from "../../src/repos/AttentionRepo.js"
import { OrdersRepo } from "../../src/repos/OrdersRepo.js"
import { Db } from "../../src/db/Db.js"
import { otherReplicaDb, testDatabases } from "../support/database.js"
import { sampleOrder } from "../support/orders.js"

const T0 = Date.parse("2026-11-26T09:00:00Z")
const person = (actionKey: string) => ({ user: "anna", actionKey })

/** Stores an order and walks it through `path` (a minute apart), as the pipeline would; answers its row as a person sees it. */
const orderIn = (storeOrderId: string, path: ReadonlyArray<OrderState>, storeKey = "acme-shopify") =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const { id } = yield* repo.upsertPulled(sampleOrder({ storeKey, storeOrderId }), `${storeKey}:${storeOrderId}`)
    let from: OrderState = "pulled"
    for (const to of path) {
      yield* TestClock.adjust("1 minute")
      yield* repo.transition(id, from, to, {
        reason: `pipeline: ${to}`,
        actor: "worker",
        ...(to === "held" ? { held: { code: "unmatched", details: { message: "no mapping row for TEE-BLK-M" } } } : {}),
        ...(to === "drafted" ? { podDraftId: `draft-${storeOrderId}` } : {}),
        nextAttemptAt: null
      })
      from = to
    }
    const stored = yield* repo.byId(id)
    return { id, state: stored.state, updatedAt: stored.updatedAt }
  })

const eventsOf = (id: number) => Effect.flatMap(OrdersRepo, (repo) => repo.story(id))

for (const database of testDatabases()) {
  layer(Layer.provideMerge(Layer.merge(OrdersRepo.Default, AttentionRepo.Default), database.layer))(
    `a person's actions on ${database.name}`,
    (it) => {
      it.effect("retry now moves a failed order to ready, due now, recorded with the person; the same submission twice acts once", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const seen = yield* orderIn("r1", ["ready", "failed"])
          yield* TestClock.adjust("5 minutes")
          const [first] = yield* actOnOrders("retry", [seen], person("k-r1"))
          expect(first).toMatchObject({ outcome: "done", referenceId: "acme-shopify:r1" })
          const [again] = yield* actOnOrders("retry", [seen], person("k-r1"))
          expect(again).toMatchObject({ outcome: "already_done" })
          const stored = yield* Effect.flatMap(OrdersRepo, (r) => r.byId(seen.id))
          expect(stored.state).toBe("ready")
          const events = yield* eventsOf(seen.id)
          const byPerson = events.filter((e) => e.actor === "console:anna")
          expect(byPerson).toHaveLength(1)
          expect(byPerson[0]).toMatchObject({ from: "failed", to: "ready", reason: "retry asked by anna in the console" })
          expect(byPerson[0]!.data).toMatchObject({ action: "retry", user: "anna", before: { state: "failed" } })
          // Due now: the draft stage claims it at once.
          const claimed = yield* Effect.flatMap(OrdersRepo, (r) => r.claim(["ready"], 10, "drafter", 60))
          expect(claimed.map((o) => o.id)).toContain(seen.id)
        }))

      it.scoped("a double click sent twice at once, through two connections, acts once", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const seen = yield* orderIn("x1", ["ready", "drafted", "cancel_pending"])
          const other = yield* otherReplicaDb(database)
          const viaOther = actOnOrders("handled", [seen], person("k-x1")).pipe(
            Effect.provide(AttentionRepo.Default.pipe(Layer.provide(Layer.succeed(Db, other))))
          )
          const outcomes = yield* Effect.all([actOnOrders("handled", [seen], person("k-x1")), viaOther], { concurrency: "unbounded" })
          expect(outcomes.map(([o]) => o!.outcome).sort()).toEqual(["already_done", "done"])
          const byPerson = (yield* eventsOf(seen.id)).filter((e) => e.actor === "console:anna")
          expect(byPerson).toHaveLength(1)
        }))

      it.effect("refuses an action on an order whose state changed since the page was shown, saying what it is now", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const seen = yield* orderIn("s1", ["ready", "failed"])
          // Meanwhile the order is retried by someone else and drafted.
          yield* TestClock.adjust("1 minute")
          const repo = yield* OrdersRepo
          yield* repo.transition(seen.id, "failed", "ready", { reason: "retried", actor: "cli" })
          const [outcome] = yield* actOnOrders("retry", [seen], person("k-s1"))
          expect(outcome).toMatchObject({ outcome: "refused" })
          expect(outcome!.message).toContain("it is now ready (it was failed when the page was shown)")
          expect((yield* eventsOf(seen.id)).filter((e) => e.actor === "console:anna")).toEqual([])
        }))

      it.effect("refuses an action on an order that moved again into the same state (its version changed)", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const seen = yield* orderIn("v1", ["held"])
          yield* TestClock.adjust("1 minute")
          const repo = yield* OrdersRepo
          yield* repo.transition(seen.id, "held", "held", {
            reason: "held for another reason",
            actor: "worker",
            held: { code: "address", details: { message: "no street" } }
          })
          const [outcome] = yield* actOnOrders("skip", [seen], person("k-v1"))
          expect(outcome).toMatchObject({ outcome: "refused" })
          expect(outcome!.message).toContain("it changed since the page was shown")
          expect((yield* repo.byId(seen.id)).state).toBe("held")
        }))

      it.effect("release re-plans a held order now; not a POD order sticks through re-planning; mark handled closes cancel_pending", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const held = yield* orderIn("h1", ["held"])
          const skipped = yield* orderIn("h2", ["held"])
          const cancelPending = yield* orderIn("c1", ["ready", "drafted", "cancel_pending"])
          const repo = yield* OrdersRepo
          expect(yield* actOnOrders("release", [held], person("k-h1"))).toMatchObject([{ outcome: "done" }])
          const matched = yield* repo.claim(["held"], 10, "matcher", 60)
          expect(matched.map((o) => o.id)).toEqual([held.id])
          expect(yield* actOnOrders("skip", [skipped], person("k-h2"))).toMatchObject([{ outcome: "done" }])
          const notPod = yield* repo.byId(skipped.id)
          expect(notPod).toMatchObject({ state: "not_pod", heldReason: SKIPPED_BY_PERSON })
          // A mapping change wakes it and the match stage re-plans it: the person's word stands.
          const unmatched = { _tag: "Held", code: "unmatched", message: "no row", problems: [] } as never
          expect(decideMatch(notPod, unmatched, T0, "worker", "standard")).toEqual({ release: null })
          expect(yield* actOnOrders("handled", [cancelPending], person("k-c1"))).toMatchObject([{ outcome: "done" }])
          expect((yield* repo.byId(cancelPending.id)).state).toBe("pod_cancelled")
          const last = (yield* eventsOf(cancelPending.id)).at(-1)
          expect(last).toMatchObject({ actor: "console:anna", from: "cancel_pending", to: "pod_cancelled" })
        }))

      it.effect("retry now makes an in-doubt order due for its look-up, and refuses what it cannot do with the reason", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const inDoubt = yield* orderIn("d1", ["ready", "in_doubt"])
          const held = yield* orderIn("d2", ["held"])
          const failedWithDraft = yield* orderIn("d3", ["ready", "drafted", "failed"])
          const outcomes = yield* actOnOrders("retry", [inDoubt, held, failedWithDraft], person("k-d"))
          expect(outcomes.find((o) => o.id === inDoubt.id)).toMatchObject({ outcome: "done" })
          expect(outcomes.find((o) => o.id === held.id)?.message).toBe("only a failed or in-doubt order is retried; this one is held")
          expect(outcomes.find((o) => o.id === failedWithDraft.id)?.message).toContain("it already has POD draft draft-d3")
          const repo = yield* OrdersRepo
          expect((yield* repo.claim(["in_doubt"], 10, "drafter", 60)).map((o) => o.id)).toEqual([inDoubt.id])
          expect((yield* repo.byId(failedWithDraft.id)).state).toBe("failed")
        }))

      it.effect("lists what needs a person oldest first, with drafts not checked out in time, filtered by store and reason", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const old = yield* orderIn("q1", ["held"])
          const draft = yield* orderIn("q2", ["ready", "drafted"])
          yield* orderIn("q3", ["ready", "failed"], "other-store")
          yield* TestClock.adjust("30 hours")
          const fresh = yield* orderIn("q4", ["ready", "drafted"])
          const attention = yield* AttentionRepo
          const now = T0 + 30 * 3_600_000 + 10 * 60_000
          const bounds = { draftedBefore: new Date(now - 24 * 3_600_000), inDoubtBefore: new Date(now - 30 * 60_000), limit: 100 }
          const all = (yield* attention.waiting(bounds)).filter((o) => o.referenceId.includes(":q"))
          expect(all.map((o) => o.referenceId)).toEqual(["acme-shopify:q1", "acme-shopify:q2", "other-store:q3"])
          expect(all.map((o) => o.id)).not.toContain(fresh.id)
          expect(all[0]).toMatchObject({ id: old.id, message: "no mapping row for TEE-BLK-M", name: "#1001" })
          expect(all[1]).toMatchObject({ id: draft.id, state: "drafted", podDraftId: "draft-q2" })
          const otherStore = yield* attention.waiting({ ...bounds, storeKey: "other-store" })
          expect(otherStore.map((o) => o.referenceId)).toEqual(["other-store:q3"])
          const heldOnly = yield* attention.waiting({ ...bounds, state: "held", heldReason: "unmatched" })
          expect(heldOnly.map((o) => o.referenceId)).toContain("acme-shopify:q1")
          expect(heldOnly.every((o) => o.state === "held")).toBe(true)
        }))

      it.effect("counts waiting from when the order began to wait: a re-plan that holds it again keeps its place at the front", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const first = yield* orderIn("w1", ["held"])
          yield* orderIn("w2", ["held"])
          yield* TestClock.adjust("3 hours")
          const [released] = yield* actOnOrders("release", [first], person("k-w1"))
          expect(released).toMatchObject({ outcome: "done" })
          // The planner holds it again for the same reason, as it does when the mapping is still missing.
          const orders = yield* OrdersRepo
          yield* TestClock.adjust("1 minute")
          yield* orders.transition(first.id, "held", "held", {
            reason: "pipeline: held",
            actor: "worker",
            held: { code: "unmatched", details: { message: "no mapping row for TEE-BLK-M" } },
            nextAttemptAt: null
          })
          const now = T0 + 4 * 3_600_000
          const bounds = { draftedBefore: new Date(now - 24 * 3_600_000), inDoubtBefore: new Date(now - 30 * 60_000), limit: 100 }
          const listed = (yield* (yield* AttentionRepo).waiting(bounds)).filter((o) => o.referenceId.includes(":w"))
          expect(listed.map((o) => o.referenceId)).toEqual(["acme-shopify:w1", "acme-shopify:w2"])
          // Held a minute after T0 (orderIn's first step), not when the re-plan moved it.
          expect(listed[0]!.waitingSince.toISOString()).toBe(new Date(T0 + 60_000).toISOString())
          expect(listed[0]!.updatedAt.getTime()).toBeGreaterThan(T0 + 3 * 3_600_000)
        }))

      it.effect("an order unpaid at the store waits for the buyer: listed only when asked for, and no alert says it needs a person", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(T0)
          const orders = yield* OrdersRepo
          const holdFor = (storeOrderId: string, code: string, message: string) =>
            Effect.gen(function*() {
              const { id } = yield* orders.upsertPulled(
                sampleOrder({ storeKey: "acme-shopify", storeOrderId }),
                `acme-shopify:${storeOrderId}`
              )
              yield* TestClock.adjust("1 minute")
              yield* orders.transition(id, "pulled", "held", {
                reason: "pipeline: held",
                actor: "worker",
                held: { code, details: { message } },
                nextAttemptAt: null
              })
              return id
            })
          const unpaid = yield* holdFor("u1", "unpaid", "the order is not paid (financial status pending)")
          const unmatched = yield* holdFor("u2", "unmatched", "no mapping row for TEE-BLK-M")
          const bounds = { draftedBefore: new Date(T0), inDoubtBefore: new Date(T0), limit: 100 }
          const attention = yield* AttentionRepo
          const listed = (yield* attention.waiting(bounds)).map((o) => o.id)
          expect(listed).toContain(unmatched)
          expect(listed).not.toContain(unpaid)
          const asked = yield* attention.waiting({ ...bounds, state: "held", heldReason: "unpaid" })
          expect(asked.map((o) => o.id)).toEqual([unpaid])
          const alerted = yield* Effect.flatMap(
            Db,
            (db) =>
              db.use((k) =>
                k.selectFrom("alert_outbox").select(["order_id", "kind", "reason"]).where("order_id", "in", [unpaid, unmatched]).execute()
              )
          )
          expect(alerted.map((a) => [Number(a.order_id), a.kind, a.reason])).toEqual([[unmatched, "order.held", "unmatched"]])
        }))
    }
  )
}
