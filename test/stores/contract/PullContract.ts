/**
 * Contract cases of `StoreConnector.pull`, run against every platform's
 * connector and simulator. A platform's driver says how to seed and edit
 * orders on its simulator and how its clocks move between walks; the story
 * and the assertions are the same for all.
 */
import { expect, type it } from "@effect/vitest"
import { Chunk, Effect, type Scope, Stream } from "effect"
import type { StoreConnector } from "../../../src/stores/StoreConnector.js"
import { latestById, pullAll, versionsOf } from "./PullWalks.js"

export interface PullDriver<Sim> {
  /** `it.scopedLive`, or `it.scoped` where the connector's clock is the TestClock. */
  readonly test: typeof it.scopedLive
  readonly start: () => Effect.Effect<Sim, never, Scope.Scope>
  /** Creates `count` orders on the simulator. */
  readonly seed: (sim: Sim, count: number) => Effect.Effect<void>
  readonly connect: (sim: Sim, pageSize: number) => Effect.Effect<StoreConnector, never, Scope.Scope>
  /** Changes an order on the simulator, so that it has a new version. */
  readonly edit: (sim: Sim, storeOrderId: string, note: string) => Effect.Effect<void>
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

export const resumesAfterACrash = <Sim>(driver: PullDriver<Sim>) =>
  driver.test("resumes from the cursor persisted after a page, as after a crash", () =>
    Effect.gen(function*() {
      const sim = yield* driver.start()
      yield* driver.seed(sim, 35)
      const connector = yield* driver.connect(sim, 10)
      yield* driver.beforeWalk(sim, 0)
      const firstTwo = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(connector.pull(null), 2)))
      yield* driver.beforeEdit(sim)
      yield* driver.edit(sim, firstTwo[0]!.orders[3]!.storeOrderId, "changed while we were down")
      // A new process, later, starts from what the old one persisted after its second page.
      yield* driver.beforeWalk(sim, 1)
      const restarted = yield* driver.connect(sim, 10)
      const rest = yield* pullAll(restarted, firstTwo[1]!.cursor)
      const next = driver.walksToCatchUp === 2 ? yield* pullAll(restarted, rest[rest.length - 1]!.cursor) : []
      const pages = [...firstTwo, ...rest, ...next]
      const versions = versionsOf(pages)
      expect(new Set(versions).size).toBe(versions.length)
      expect(latestById(pages.flatMap((p) => p.orders), driver.versionForm)).toEqual(yield* driver.simVersions(sim))
    }))
