import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { ambiguousMessage, lookUpOrder, noOrderMessage } from "../pipeline/Explain.js"
import { PipelineTriggers } from "../pipeline/PipelineTriggers.js"
import { fromLoopback, loopbackOnly, stringParam } from "./Loopback.js"

/**
 * For the CLI while this daemon holds the embedded database: POST /pull
 * [?store=KEY], POST /reconcile, GET /explain?ref=<store key>:<order id>.
 */
export const ControlRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/pull",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return loopbackOnly("/pull")
      const store = yield* stringParam("store")
      const triggers = yield* PipelineTriggers
      // "*" asks the pull worker for every configured store.
      yield* triggers.storeChanged(store ?? "*")
      return HttpServerResponse.unsafeJson({ accepted: store ?? "all stores" }, { status: 202 })
    })
  ),
  HttpRouter.post(
    "/reconcile",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return loopbackOnly("/reconcile")
      const triggers = yield* PipelineTriggers
      if (triggers.reconcileNow !== undefined) yield* triggers.reconcileNow
      return HttpServerResponse.unsafeJson({ accepted: true }, { status: 202 })
    })
  ),
  HttpRouter.get(
    "/explain",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return loopbackOnly("/explain")
      const ref = yield* stringParam("ref")
      if (ref === undefined) {
        return HttpServerResponse.unsafeJson({ error: "give ?ref=<store key>:<store order id> or the order name, and &store=KEY" }, {
          status: 400
        })
      }
      const store = yield* stringParam("store")
      const found = yield* lookUpOrder(ref, store)
      switch (found._tag) {
        case "Found":
          return HttpServerResponse.unsafeJson(found.story)
        case "NotFound":
          return HttpServerResponse.unsafeJson({ error: noOrderMessage(ref) }, { status: 404 })
        case "Ambiguous":
          return HttpServerResponse.unsafeJson({ error: ambiguousMessage(ref, found.references) }, { status: 409 })
      }
    })
  )
)
