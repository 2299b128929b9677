import { Effect } from "effect"
import { Db } from "../db/Db.js"

export interface StoreStateCount {
  readonly storeKey: string
  readonly state: string
  readonly count: number
}

export interface HeldReasonCount {
  readonly storeKey: string
  readonly reason: string
  readonly count: number
}

/** Read-only figures for `podsync status` and GET /status. */
export class StatusRepo extends Effect.Service<StatusRepo>()("podsync/StatusRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db
    return {
      ordersByStoreAndState: db.use((k) =>
        k.selectFrom("store_orders")
          .select(["store_key", "state", (eb) => eb.fn.countAll<number | string>().as("n")])
          .groupBy(["store_key", "state"])
          .orderBy("store_key")
          .orderBy("state")
          .execute()
      ).pipe(Effect.map((rows): ReadonlyArray<StoreStateCount> =>
        rows.map((r) => ({ storeKey: r.store_key, state: r.state, count: Number(r.n) }))
      )),
      heldByReason: db.use((k) =>
        k.selectFrom("store_orders")
          .where("state", "=", "held")
          .select(["store_key", "held_reason", (eb) => eb.fn.countAll<number | string>().as("n")])
          .groupBy(["store_key", "held_reason"])
          .orderBy("store_key")
          .execute()
      ).pipe(Effect.map((rows): ReadonlyArray<HeldReasonCount> =>
        rows.map((r) => ({ storeKey: r.store_key, reason: r.held_reason ?? "unknown", count: Number(r.n) }))
      ))
    }
  })
}) {}
