import { Array as Arr, Clock, Effect } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { FulfillmentPush } from "../domain/StoreTypes.js"
import { type Move, OrdersRepo, type StoredOrder } from "../repos/OrdersRepo.js"
import { OPEN_PUSH_STATES, type PushState, type Shipment, type ShipmentMark, ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { pushAll, type StoreConnector, StoreConnectors } from "../stores/StoreConnector.js"
import { wouldPushTrackings } from "./DryRunRecords.js"
import { whileLeasedAll } from "./Lease.js"

/** The POD lines a draft was made of; for an order drafted before they were recorded, the lines still to ship. */
const linesOf = (stored: StoredOrder, order: NormalizedOrder) =>
  stored.plannedLines.length > 0
    ? stored.plannedLines
    : order.lines.filter((l) => l.fulfillableQuantity > 0).map((l) => ({ lineId: l.lineId, quantity: l.fulfillableQuantity }))

/** What the store said when it refused a push, for the order's story (bounded: a store may say a lot). */
const storeWords = (messages: ReadonlyArray<string>): string => {
  const said = messages.join("; ")
  return said === "" ? "" : ` (${said.length > 300 ? `${said.slice(0, 300)}…` : said})`
}

/** Where one claimed order stands in this turn: its shipments' push states, and when to look again. */
interface Turn {
  readonly stored: StoredOrder
  /** Its store's connector. */
  readonly connector: StoreConnector
  readonly standing: Map<number, PushState>
  /** Its shipments, every one (a later package names the numbers pushed before it). */
  readonly shipments: ReadonlyArray<Shipment>
  /** Its open shipments not yet tried in this turn, oldest first. */
  readonly queue: Array<Shipment>
  retryInMs: number | undefined
}

/**
 * When a scheduled fulfilment is next looked at: a minute after the earliest date the store gave
 * (it opens the fulfillment order then), but not sooner than a minute nor later than six hours from
 * now; in an hour when it gave none.
 */
export const scheduledUntil = (
  scheduled: ReadonlyArray<{ readonly fulfillAt?: string | undefined }>,
  nowMs: number
): { readonly at: string | undefined; readonly inMs: number } => {
  const dates = scheduled.flatMap((s) => (s.fulfillAt === undefined ? [] : [s.fulfillAt])).sort()
  const at = dates[0]
  const atMs = at === undefined ? Number.NaN : Date.parse(at)
  if (!Number.isFinite(atMs)) return { at, inMs: 3_600_000 }
  return { at, inMs: Math.min(6 * 3_600_000, Math.max(60_000, atMs - nowMs + 60_000)) }
}

const retryIn = (turn: Turn, ms: number) => {
  turn.retryInMs = Math.min(turn.retryInMs ?? Infinity, ms)
}

/**
 * Pushes each shipment of the claimed orders to their stores, exactly once:
 * the connector reads the store's fulfilments back and matches the tracking
 * number before creating anything, so a retry after any doubt is safe (no
 * write-ahead mark). A batch goes in rounds, each taking every order's next
 * open shipment (one order's packages one after another, each planned on what
 * the store holds after the previous one), one `pushAll` per store per round:
 * a connector that can batches the whole round into a few requests. The push
 * states of a round are written in one statement, and the orders whose every
 * shipment is settled move in one more.
 */
export const fulfillMany = (claimed: ReadonlyArray<StoredOrder>, owner: string) =>
  whileLeasedAll(
    claimed.map((o) => o.id),
    owner,
    Effect.gen(function*() {
      const repo = yield* OrdersRepo
      const shipments = yield* ShipmentsRepo
      const connectors = yield* StoreConnectors
      const releases: Array<{ readonly id: number; readonly nextAttemptAt: Date | null }> = []
      const known = yield* shipments.forOrders(claimed.map((o) => o.id))
      const turns: Array<Turn> = []
      for (const stored of claimed) {
        // A store removed from the config: leave its orders alone.
        const connector = connectors.get(stored.storeKey)
        if (connector === undefined) {
          releases.push({ id: stored.id, nextAttemptAt: null })
          continue
        }
        const all = known.get(stored.id) ?? []
        turns.push({
          stored,
          connector,
          standing: new Map(all.map((s) => [s.id, s.pushState])),
          shipments: all,
          queue: all.filter((s) => OPEN_PUSH_STATES.includes(s.pushState)),
          retryInMs: undefined
        })
      }
      const notes: Array<{ readonly id: number; readonly reason: string; readonly data?: unknown }> = []
      const now = yield* Clock.currentTimeMillis

      for (;;) {
        const round = turns.flatMap((turn) => {
          const shipment = turn.queue.shift()
          return shipment === undefined ? [] : [{ turn, shipment }]
        })
        if (round.length === 0) break
        const marks: Array<ShipmentMark> = []
        const settle = (turn: Turn, mark: ShipmentMark) => {
          marks.push(mark)
          turn.standing.set(mark.id, mark.state)
        }
        const toPush: Array<{ readonly turn: Turn; readonly shipment: Shipment; readonly push: FulfillmentPush }> = []
        for (const { turn, shipment } of round) {
          const [first, ...rest] = linesOf(turn.stored, turn.stored.order)
          if (first === undefined) {
            settle(turn, { id: shipment.id, state: "skipped" })
            notes.push({
              id: turn.stored.id,
              reason: `tracking ${shipment.trackingNo} was not pushed: the order has no POD lines left to fulfil`
            })
            continue
          }
          // The POD service does not say which lines each box holds: every box names the planned lines, and a
          // later box of lines already fulfilled joins the earlier boxes' fulfilment where the platform can.
          const earlier = turn.shipments.filter((s) => s.id !== shipment.id && turn.standing.get(s.id) === "pushed").map((s) =>
            s.trackingNo
          )
          const push: FulfillmentPush = {
            storeOrderId: turn.stored.storeOrderId,
            lines: [first, ...rest],
            tracking: {
              company: shipment.carrier || "Other",
              number: shipment.trackingNo,
              ...(shipment.trackingUrl ? { url: shipment.trackingUrl } : {})
            },
            ...(earlier.length > 0 ? { earlierTrackingNumbers: earlier } : {})
          }
          toPush.push({ turn, shipment, push })
        }
        for (const items of Object.values(Arr.groupBy(toPush, (i) => i.turn.stored.storeKey))) {
          const results = yield* pushAll(items[0].turn.connector, items.map((i) => i.push))
          // One result per push, in the pushes' order.
          for (const [{ turn, shipment }, outcome] of Arr.zip(items, results)) {
            if (outcome._tag === "Left") {
              const error = outcome.left
              const ambiguous = "ambiguous" in error && error.ambiguous === true
              settle(turn, {
                id: shipment.id,
                state: ambiguous ? "in_doubt" : "pending",
                detail: { attempt: true, error: { tag: error._tag, message: error.message } }
              })
              retryIn(turn, ambiguous ? 2_000 : Math.min(300_000, 5_000 * 2 ** Math.min(shipment.attempts, 6)))
              continue
            }
            const result = outcome.right
            switch (result._tag) {
              case "Created":
              case "TrackingAdded":
              case "AlreadyPushed":
                settle(turn, {
                  id: shipment.id,
                  state: "pushed",
                  detail: { attempt: true, fulfillmentId: result.fulfillmentIds.join(",") }
                })
                if (result._tag === "TrackingAdded") {
                  notes.push({
                    id: turn.stored.id,
                    reason:
                      `another package shipped: tracking ${shipment.trackingNo} was added to the store's fulfilment of the earlier package`
                  })
                }
                break
              case "OnHold":
                settle(turn, { id: shipment.id, state: "on_hold", detail: { attempt: true } })
                notes.push({
                  id: turn.stored.id,
                  reason: `the store holds this order's fulfillment (${
                    result.holds.map((h) => h.reason ?? h.heldId).join(", ")
                  }): tracking ${shipment.trackingNo} waits until the hold is released`
                })
                retryIn(turn, 600_000)
                break
              case "Scheduled": {
                settle(turn, { id: shipment.id, state: "on_hold", detail: { attempt: true } })
                const opens = scheduledUntil(result.scheduled, now)
                notes.push({
                  id: turn.stored.id,
                  reason: `the store schedules this order's fulfilment for later (a pre-order or a "fulfil at" date${
                    opens.at === undefined ? "" : `: ${opens.at}`
                  }): tracking ${shipment.trackingNo} waits until then`
                })
                retryIn(turn, opens.inMs)
                break
              }
              case "NothingToFulfil":
                settle(turn, { id: shipment.id, state: "skipped", detail: { attempt: true, error: { reason: result.reason } } })
                notes.push({ id: turn.stored.id, reason: `tracking ${shipment.trackingNo} was not pushed: ${result.reason}` })
                break
              case "Rejected":
                settle(turn, {
                  id: shipment.id,
                  state: "rejected",
                  detail: { attempt: true, error: { reason: result.reason, messages: result.messages } }
                })
                notes.push({
                  id: turn.stored.id,
                  reason: `the store refused tracking ${shipment.trackingNo}: ${result.reason}${
                    storeWords(result.messages)
                  }. Add it in the store by hand`,
                  data: { messages: result.messages }
                })
                break
            }
          }
        }
        yield* shipments.markMany(marks)
      }
      yield* Effect.forEach(notes, (n) => repo.note(n.id, owner, n.reason, n.data), { discard: true })

      const moves: Array<Move> = []
      for (const turn of turns) {
        const states = [...turn.standing.values()]
        if (states.some((state) => OPEN_PUSH_STATES.includes(state))) {
          releases.push({ id: turn.stored.id, nextAttemptAt: new Date(now + (turn.retryInMs ?? 30_000)) })
          continue
        }
        // Nothing reached the buyer: not fulfilled, and a person must act.
        const failed = states.includes("rejected") && !states.includes("pushed")
        moves.push({
          id: turn.stored.id,
          from: "shipped",
          to: failed ? "failed" : "fulfilled",
          change: {
            actor: owner,
            nextAttemptAt: null,
            release: owner,
            unlessOpenShipments: true,
            reason: failed
              ? "the store refused every tracking of this order: add the tracking in the store by hand"
              : "tracking pushed to the store"
          }
        })
      }
      const moved = yield* repo.transitionMany(moves)
      // Not moved: a tracking recorded while this ran (another package) keeps the order shipped, and it comes straight back here.
      for (const { id } of moves) if (!moved.has(id)) releases.push({ id, nextAttemptAt: new Date(0) })
      yield* repo.releaseMany(releases, owner)
      return moved.size
    })
  ).pipe(Effect.withSpan("pipeline.fulfill"))

/** Pushes one claimed order's shipments (see `fulfillMany`). */
export const fulfillOrder = (stored: StoredOrder, owner: string) => fulfillMany([stored], owner)

/**
 * The fulfill stage of a dry run: each claimed order's story tells the trackings it would push to its
 * store, once (until the order changes), and nothing is pushed; the order stays shipped, and is
 * fulfilled by the daemon that is not dry.
 */
export const wouldFulfillMany = (claimed: ReadonlyArray<StoredOrder>, owner: string) =>
  Effect.gen(function*() {
    const repo = yield* OrdersRepo
    const known = yield* (yield* ShipmentsRepo).forOrders(claimed.map((o) => o.id))
    yield* Effect.forEach(claimed, (stored) => {
      const open = (known.get(stored.id) ?? []).filter((s) => OPEN_PUSH_STATES.includes(s.pushState))
      const request = wouldPushTrackings(stored.storeKey, open)
      const numbers = open.map((s) => s.trackingNo).join(", ")
      return repo.recordDryRun(stored.id, owner, {
        reason: `dry run: would push ${open.length} tracking(s) to the store${numbers === "" ? "" : ` (${numbers})`}; nothing was sent`,
        request
      })
    }, { discard: true })
  }).pipe(Effect.withSpan("pipeline.wouldFulfill"))
