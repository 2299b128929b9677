/**
 * Contract cases of `StoreConnector.pull`, run against every platform's
 * connector and simulator. A platform's driver says how to seed and edit
 * orders on its simulator and how its clocks move between walks; the story
 * and the assertions are the same for all.
 */
import { expect, type it } from "@effect/vitest"
import { Chunk, Effect, Option, type Scope, Stream } from "effect"
import type { PulledPage, StoreConnector } from "../../../src/stores/StoreConnector.js"
import { latestById, pullAll, versionsOf } from "./PullWalks.js"
import { simulatorAdmin } from "./SimulatorHarness.js"

export interface PullDriver<Sim extends { readonly url: string }> {
  /** `it.scopedLive`, or `it.scoped` where the connector's clock is the TestClock. */
  readonly test: typeof it.scopedLive
  readonly start: () => Effect.Effect<Sim, never, Scope.Scope>
  /**
   * The simulator's admin resource of orders (`orders`, or Etsy's `receipts`): `POST /__sim/<resource>/bulk`
   * creates some (with `bulk` beside the count), `PATCH /__sim/<resource>/:id` changes one's `noteField`.
   */
  readonly resource: string
  readonly bulk?: Record<string, unknown>
  readonly noteField: string
  readonly connect: (sim: Sim, overrides?: { readonly pageSize?: number }) => Effect.Effect<StoreConnector, never, Scope.Scope>
  /** Moves the clocks on before walk number `walk` (0, 1, …) starts, where the platform needs it. */
  readonly beforeWalk: (sim: Sim, walk: number) => Effect.Effect<void>
  /** Moves the simulator's clock on before an edit, where the platform needs it. */
  readonly beforeEdit: (sim: Sim) => Effect.Effect<void>
  /** Walks a resumed pull needs to meet every change: 2 where a walk covers only what changed before it began. */
  readonly walksToCatchUp: 1 | 2
  /** The newest version of every order, by id, as the simulator has it. */
  readonly simVersions: (sim: Sim) => Effect.Effect<Map<string, string>>
  /** How a handed-out version is written to compare it with `simVersions`. */
  readonly versionForm?: (iso: string) => string
}

/** Creates `count` orders on the simulator; answers their ids as the admin API gives them. */
const seed = <Sim extends { readonly url: string }>(driver: PullDriver<Sim>, sim: Sim, count: number) =>
  simulatorAdmin<{ ids: ReadonlyArray<string | number> }>(sim, "POST", `${driver.resource}/bulk`, { count, ...driver.bulk })

/** Every order a walk from `cursor` hands out, page by page. */
const collected = (pull: Stream.Stream<PulledPage, unknown>) => Effect.map(Effect.orDie(Stream.runCollect(pull)), Chunk.toReadonlyArray)

export const resumesAfterACrash = <Sim extends { readonly url: string }>(driver: PullDriver<Sim>) =>
  driver.test("resumes from the cursor persisted after a page, as after a crash", () =>
    Effect.gen(function*() {
      const sim = yield* driver.start()
      yield* seed(driver, sim, 35)
      const connector = yield* driver.connect(sim, { pageSize: 10 })
      yield* driver.beforeWalk(sim, 0)
      const firstTwo = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(connector.pull(null), 2)))
      yield* driver.beforeEdit(sim)
      yield* simulatorAdmin(sim, "PATCH", `${driver.resource}/${firstTwo[0]!.orders[3]!.storeOrderId}`, {
        [driver.noteField]: "changed while we were down"
      })
      // A new process, later, starts from what the old one persisted after its second page.
      yield* driver.beforeWalk(sim, 1)
      const restarted = yield* driver.connect(sim, { pageSize: 10 })
      const rest = yield* pullAll(restarted, firstTwo[1]!.cursor)
      const next = driver.walksToCatchUp === 2 ? yield* pullAll(restarted, rest[rest.length - 1]!.cursor) : []
      const pages = [...firstTwo, ...rest, ...next]
      const versions = versionsOf(pages)
      expect(new Set(versions).size).toBe(versions.length)
      expect(latestById(pages.flatMap((p) => p.orders), driver.versionForm)).toEqual(yield* driver.simVersions(sim))
    }))

/**
 * A first pull given `since` starts there: only the orders created after it come. `since` writes the
 * simulator's clock (as `POST /__sim/clock/advance` answers it) as the bound; `storeOrderId` reads an id
 * as the admin API gives it as the connector does.
 */
export const startsAtSince = <Sim extends { readonly url: string }>(
  driver: PullDriver<Sim>,
  since: (clock: { readonly now: string; readonly nowSeconds: number }) => string,
  storeOrderId: (id: string | number) => string = String
) =>
  driver.test("starts a first pull at `since` when given", () =>
    Effect.gen(function*() {
      const sim = yield* driver.start()
      yield* seed(driver, sim, 3)
      const clock = yield* simulatorAdmin<{ now: string; nowSeconds: number }>(sim, "POST", "clock/advance", { seconds: 3600 })
      const newer = yield* seed(driver, sim, 2)
      yield* driver.beforeWalk(sim, 0)
      const connector = yield* driver.connect(sim)
      const pages = yield* collected(connector.pull(null, { since: since(clock) }))
      expect(pages.flatMap((p) => p.orders.map((o) => o.storeOrderId))).toEqual(newer.ids.map(storeOrderId))
    }))

/** Reading an order the store does not have (or whose id it could not have) answers none. */
export const answersNoneForAnUnknownOrder = <Sim extends { readonly url: string }>(driver: PullDriver<Sim>) =>
  driver.test("answers none for an order the store does not know", () =>
    Effect.gen(function*() {
      const sim = yield* driver.start()
      const connector = yield* driver.connect(sim)
      expect(yield* connector.getOrder("999999")).toEqual(Option.none())
      expect(yield* connector.getOrder("not-a-number")).toEqual(Option.none())
    }))

/**
 * A connector whose credentials the store refuses (`refused`, connected with a wrong `secret`) fails
 * reading an order with a typed auth error (of `operation`, where given) that does not carry the secret.
 */
export const refusesWrongCredentials = <Sim extends { readonly url: string }>(
  driver: PullDriver<Sim>,
  wrong: {
    readonly refused: (sim: Sim) => Effect.Effect<StoreConnector, never, Scope.Scope>
    readonly secret: string
    readonly orderId: string
    readonly operation?: string
  }
) =>
  driver.test("fails with a typed auth error that does not carry the refused secret", () =>
    Effect.gen(function*() {
      const connector = yield* wrong.refused(yield* driver.start())
      const error = yield* Effect.flip(connector.getOrder(wrong.orderId))
      expect(error).toMatchObject({
        _tag: "StoreAuthError",
        status: 401,
        ...(wrong.operation === undefined ? {} : { operation: wrong.operation })
      })
      expect(JSON.stringify(error)).not.toContain(wrong.secret)
      expect(error.message).not.toContain(wrong.secret)
    }))
