import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Option, Schema } from "effect"
import { fromLoopback, loopbackOnly } from "./Loopback.js"

/** A pair of header names the POD service takes the credentials under (no value: names only). */
const HeaderPair = Schema.Struct({ key: Schema.String, secret: Schema.String })

/**
 * What `podsync check` found of the POD service and the stores: the lines it says (the same lines
 * wherever it ran), the problems counted, what did not answer, and what the POD service's header
 * names mean. Names and findings only: never a credential's value.
 */
export const ServicesVerdict = Schema.Struct({
  lines: Schema.Array(Schema.String),
  errors: Schema.Number,
  catalogProblems: Schema.Number,
  authHeaders: Schema.optional(Schema.Union(
    Schema.Struct({ _tag: Schema.Literal("switch"), pair: HeaderPair }),
    Schema.Struct({ _tag: Schema.Literal("wrong") })
  )),
  unverified: Schema.Array(Schema.String)
})
export type ServicesVerdict = typeof ServicesVerdict.Type

/**
 * The daemon's side of `podsync check` (app/ServiceCheck.ts): the same verification, through the
 * budgets this daemon holds (on the embedded database no other process may spend them).
 */
export class DaemonCheck extends Context.Tag("podsync/DaemonCheck")<DaemonCheck, {
  readonly verify: Effect.Effect<ServicesVerdict>
}>() {}

/** POST /check: for `podsync check` while this daemon holds the data folder and the budgets; this machine only. */
export const CheckRoutes = HttpRouter.empty.pipe(
  HttpRouter.post(
    "/check",
    Effect.gen(function*() {
      if (!(yield* fromLoopback)) return loopbackOnly("/check")
      const check = yield* Effect.serviceOption(DaemonCheck)
      if (Option.isNone(check)) {
        return HttpServerResponse.unsafeJson({ error: "this daemon does not run podsync check's verification" }, { status: 501 })
      }
      return yield* HttpServerResponse.json(yield* Schema.encode(ServicesVerdict)(yield* check.value.verify))
    }).pipe(Effect.catchTag("ParseError", Effect.die), Effect.catchTag("HttpBodyError", Effect.die))
  )
)
