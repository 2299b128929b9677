import { Clock, Effect, Option, Schema } from "effect"
import { Db } from "../db/Db.js"
import { jsonb } from "../db/Jsonb.js"
import { StoreCursor } from "../domain/StoreTypes.js"

const decode = Schema.decodeUnknownOption(StoreCursor)
const encode = Schema.encodeSync(StoreCursor)

/** Where each store's pull stands; saved only after the page it follows is stored. */
export class CursorsRepo extends Effect.Service<CursorsRepo>()("podsync/CursorsRepo", {
  effect: Effect.gen(function*() {
    const db = yield* Db
    return {
      get: (storeKey: string) =>
        db.use((k) => k.selectFrom("store_cursors").select("cursor").where("store_key", "=", storeKey).executeTakeFirst())
          .pipe(Effect.map((row) => (row === undefined ? Option.none() : decode(row.cursor)))),
      save: (storeKey: string, cursor: StoreCursor) =>
        Effect.gen(function*() {
          const at = new Date(yield* Clock.currentTimeMillis)
          const value = jsonb(encode(cursor) as object)
          yield* db.use((k) =>
            k.insertInto("store_cursors").values({ store_key: storeKey, cursor: value, updated_at: at })
              .onConflict((oc) => oc.column("store_key").doUpdateSet({ cursor: value, updated_at: at })).execute()
          )
        })
    }
  })
}) {}
