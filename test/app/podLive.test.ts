import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { sql } from "kysely"
import { PodLive } from "../../src/app/PodLive.js"
import { Db } from "../../src/db/Db.js"
import { parseMappingCsv } from "../../src/mapping/MappingCsv.js"
import { liveLookupFor } from "../../src/pipeline/CatalogCheck.js"
import { testDatabases } from "../support/database.js"
import { createOrders, getJson, type Stack } from "../support/pipeline.js"
import * as fs from "node:fs"
import { daemonInProcess, scopedStack, until } from "../support/daemonInProcess.js"

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
      const stack = yield* scopedStack()
      const quiet = Logger.minimumLogLevel(LogLevel.Error)
      // 150 orders: about 15 s of drafts at the budget's 97 requests per 10 s.
      yield* Effect.promise(() => createOrders(stack, 150))
      const { config, db } = yield* daemonInProcess(stack, database.layer, { logLevel: LogLevel.Error, reconcile: "0 0 * * * *" })
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
