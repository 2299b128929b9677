import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { sql } from "kysely"
import { DaemonLive } from "../../src/app/DaemonLive.js"
import { PodLive } from "../../src/app/PodLive.js"
import { loadConfig } from "../../src/config/loadConfig.js"
import { Db } from "../../src/db/Db.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { liveLookupFor } from "../../src/pipeline/CatalogCheck.js"
import { testDatabases } from "../support/database.js"
import { createOrders, freePort, getJson, type Stack, startStack, writeDaemonConfig } from "../support/pipeline.js"
import * as fs from "node:fs"

/** Real time passes until `done` holds (the daemon works over real HTTP). */
const until = (what: string, done: () => Promise<boolean>, timeoutMs = 60_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  })

const draftsAtPod = async (stack: Stack) => {
  const stats = await getJson(`${stack.pod.url}/__sim/stats`)
  return Object.keys(stats.draftsByReferenceId as Record<string, number>).length
}

/**
 * ARCHITECTURE's rate-budget guarantee 1 (every caller): a one-shot command's POD requests come
 * from `PodLive`, so they take slots in the same ledger the daemon spends, even while the daemon
 * drafts as fast as the budget allows. The one-shot here is what `podsync check` sends (the live
 * catalog read of the mapped variants), through the layers the command provides.
 */
describe.each(testDatabases())("a one-shot command beside a daemon saturating the POD budget ($name)", (database) => {
  it.scopedLive("spends the shared budget: no 429 at the service, its requests in the shared slot ledger", () =>
    Effect.gen(function*() {
      const stack = yield* Effect.acquireRelease(Effect.promise(() => startStack()), (s) => Effect.promise(() => s.close()))
      const port = yield* Effect.promise(() => freePort())
      const config = yield* loadConfig(writeDaemonConfig(stack, port, { pull: "*/1 * * * * *", reconcile: "0 0 * * * *" }), {})
      const quiet = Logger.minimumLogLevel(LogLevel.Error)
      const db = yield* Layer.build(database.layer)
      // 150 orders: about 15 s of drafts at the budget's 97 requests per 10 s.
      yield* Effect.promise(() => createOrders(stack, 150))
      yield* Layer.build(DaemonLive(config, { idle: "200 millis" }).pipe(Layer.provide(Layer.succeedContext(db)))).pipe(
        Effect.provide(quiet)
      )
      yield* until("the daemon to draft at full rate", async () => (await draftsAtPod(stack)) >= 40)

      const table = parseMappingCsv(fs.readFileSync(stack.mappingFile, "utf8")).table
      const oneShot = PodLive(config.pod).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(Layer.succeedContext(db)))
      const found = yield* liveLookupFor([table]).pipe(Effect.provide(oneShot), Effect.provide(quiet))
      expect(found.variants).toBeGreaterThan(0)
      expect(yield* Effect.promise(() => draftsAtPod(stack))).toBeLessThan(150) // it ran while the daemon was still drafting

      // The one-shot's slots: catalog reads by a replica that never sent a draft.
      const slots = yield* Effect.flatMap(Db, (d) =>
        d.use((k) =>
          sql<{ n: number }>`select count(*)::int as n from rate_budget_slots
            where operation like 'GET /api/v3/catalog%' and lane = 'background'
              and replica not in (select replica from rate_budget_slots where operation like 'POST %')`.execute(k)
        )).pipe(Effect.provide(db))
      expect(slots.rows[0]!.n).toBeGreaterThan(0)

      yield* until("every order drafted", async () => (await draftsAtPod(stack)) === 150, 90_000)
      const stats = yield* Effect.promise(() => getJson(`${stack.pod.url}/__sim/stats`))
      expect(stats.rejected429).toBe(0)
      expect(stats.duplicateReferenceIds).toEqual([])
    }), 180_000)
})
