import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { MappingStore } from "../pipeline/MappingStore.js"
import { suggestDraft } from "../pipeline/SuggestDraft.js"
import { fromLoopback, loopbackOnly, stringParam } from "./Loopback.js"

/**
 * For `podsync mappings load|suggest` while this daemon holds the embedded
 * database: POST /mappings/reload[?store=KEY] re-reads mapping files now and
 * answers what each load did; GET /mappings/suggest?store=KEY answers a draft
 * table. Loopback callers only: the server may face the internet for webhooks.
 */

const forbidden = loopbackOnly("/mappings")

export const MappingRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/mappings/reload",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return forbidden
      const store = yield* stringParam("store")
      const mappings = yield* MappingStore
      return yield* mappings.reload(store).pipe(
        Effect.map((reports) => HttpServerResponse.unsafeJson({ reports })),
        Effect.catchTag(
          "UnknownStoreError",
          (error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 404 }))
        )
      )
    })
  ),
  HttpRouter.get(
    "/mappings/suggest",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return forbidden
      const store = yield* stringParam("store")
      const file = store === undefined ? undefined : (yield* MappingStore).fileOf(store)
      if (store === undefined || file === undefined) {
        return HttpServerResponse.unsafeJson({ error: `give ?store= one of the configured store keys` }, { status: 404 })
      }
      return yield* suggestDraft(store, file).pipe(
        Effect.map((suggestion) => HttpServerResponse.unsafeJson(suggestion)),
        Effect.catchAll((error) => Effect.succeed(HttpServerResponse.unsafeJson({ error: error.message }, { status: 502 })))
      )
    })
  )
)
