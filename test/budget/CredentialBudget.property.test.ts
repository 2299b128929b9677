// fast-check as @effect/vitest expects it: effect's own copy.
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { type Lane, laneRank, lanesByPriority } from "../../src/budget/Lane.js"
import { effectiveLimit, type RateLimitSettings } from "../../src/budget/SlotLog.js"
import { type Demand, type Served, serveDemand } from "./demand.js"
import { mostArrivalsPossibleInWindow } from "./windowCheck.js"

const rateLimitArb: fc.Arbitrary<RateLimitSettings> = fc.record({
  requests: fc.integer({ min: 1, max: 12 }),
  windowSeconds: fc.constantFrom(0.2, 0.5, 1, 2),
  blockSeconds: fc.constant(3),
  headroom: fc.constantFrom(0, 0.05, 0.25)
})

const demandArb = (options: { readonly stores: number; readonly spreadMs: number; readonly most: number }) =>
  fc.array(
    fc.record({
      at: fc.integer({ min: 0, max: options.spreadMs }),
      lane: fc.constantFrom<Lane>(...lanesByPriority),
      store: fc.integer({ min: 0, max: options.stores - 1 }).map((n) => `store-${n}`),
      latencyMs: fc.integer({ min: 1, max: 400 })
    }),
    { minLength: 1, maxLength: options.most }
  )

const runs = { fastCheck: { numRuns: 30 } }

/** Whether `store` of `lane` had a caller waiting when the grant of order `order` happened at `at`. */
const waitingAt = (served: ReadonlyArray<Served>, lane: Lane, store: string, order: number, at: number) =>
  served.some((s) => s.lane === lane && s.store === store && s.requestedAt < at && s.order >= order)

describe("the in-process rate budget (TestClock)", () => {
  it.effect.prop(
    "never lets more than requests × (1 − headroom) arrive in any window, wherever each arrival falls",
    [rateLimitArb, demandArb({ stores: 4, spreadMs: 4000, most: 120 })],
    ([rateLimit, demand]) =>
      Effect.gen(function*() {
        const { served } = yield* serveDemand(rateLimit, demand)
        expect(served).toHaveLength(demand.length)
        const most = mostArrivalsPossibleInWindow(served, rateLimit.windowSeconds * 1000)
        expect(most).toBeLessThanOrEqual(effectiveLimit(rateLimit))
      }),
    runs
  )

  it.effect.prop(
    "never serves a lane while a higher lane is waiting",
    [rateLimitArb, demandArb({ stores: 3, spreadMs: 3000, most: 120 })],
    ([rateLimit, demand]) =>
      Effect.gen(function*() {
        const { served } = yield* serveDemand(rateLimit, demand)
        for (const grant of served) {
          const higherWaiting = served.filter((other) =>
            laneRank(other.lane) > laneRank(grant.lane) && other.requestedAt < grant.sentAt && other.order > grant.order
          )
          expect(higherWaiting, `grant ${grant.order} (${grant.lane}) at ${grant.sentAt}`).toEqual([])
        }
      }),
    runs
  )

  it.effect.prop(
    "serves the stores of one lane in turn: while two stores both wait, neither is served twice in a row",
    [rateLimitArb, demandArb({ stores: 4, spreadMs: 2000, most: 120 })],
    ([rateLimit, demand]) =>
      Effect.gen(function*() {
        const { served } = yield* serveDemand(rateLimit, demand)
        for (const lane of lanesByPriority) {
          const grants = served.filter((s) => s.lane === lane)
          const stores = [...new Set(grants.map((g) => g.store))]
          for (const a of stores) {
            for (const b of stores) {
              if (a >= b) continue
              // Within each run of grants during which both a and b wait, their grants alternate,
              // so their counts stay within one request of each other.
              let previous: string | undefined
              for (const grant of grants) {
                const contested = waitingAt(served, lane, a, grant.order, grant.sentAt) &&
                  waitingAt(served, lane, b, grant.order, grant.sentAt)
                if (!contested) {
                  previous = undefined
                  continue
                }
                if (grant.store !== a && grant.store !== b) continue
                expect(grant.store, `${lane}: ${a} vs ${b} at grant ${grant.order}`).not.toBe(previous)
                previous = grant.store
              }
            }
          }
        }
      }),
    runs
  )

  it.effect.prop(
    "sends nothing from a 429 until its Retry-After has passed, then serves everyone",
    [
      rateLimitArb,
      demandArb({ stores: 3, spreadMs: 6000, most: 60 }),
      fc.array(fc.record({ pick: fc.nat(), seconds: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 3 })
    ],
    ([rateLimit, demand, refusals]) =>
      Effect.gen(function*() {
        const withRefusals: Array<Demand> = [...demand]
        for (const refusal of refusals) {
          const index = refusal.pick % withRefusals.length
          withRefusals[index] = { ...withRefusals[index]!, rateLimitedFor: refusal.seconds }
        }
        const { served, snapshot } = yield* serveDemand(rateLimit, withRefusals, { pauseJitterMs: 300 })
        expect(served).toHaveLength(withRefusals.length)
        for (const refused of served.filter((s) => s.rateLimitedFor !== undefined)) {
          const pauseEnd = refused.answeredAt + refused.rateLimitedFor! * 1000
          const sentDuringPause = served.filter((s) => s.sentAt > refused.answeredAt && s.sentAt < pauseEnd)
          expect(sentDuringPause.map((s) => s.sentAt), `pause from ${refused.answeredAt} to ${pauseEnd}`).toEqual([])
        }
        expect(snapshot.rateLimited).toBe(served.filter((s) => s.rateLimitedFor !== undefined).length)
      }),
    runs
  )
})
