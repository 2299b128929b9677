import { Args, Command } from "@effect/cli"
import { HttpClientRequest } from "@effect/platform"
import { Console, Effect, Option, Schema } from "effect"
import { explainOrder, noOrderMessage, type OrderStory, renderStory } from "../pipeline/Explain.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, withConfig } from "./AppRuntime.js"
import { existingDbLayer } from "../app/DatabaseLive.js"

const StoryBody = Schema.Struct({
  referenceId: Schema.String,
  name: Schema.String,
  state: Schema.String,
  heldReason: Schema.NullOr(Schema.String),
  heldMessage: Schema.optional(Schema.NullOr(Schema.String)),
  podDraftId: Schema.NullOr(Schema.String),
  podOrderId: Schema.NullOr(Schema.String),
  events: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      actor: Schema.String,
      from: Schema.NullOr(Schema.String),
      to: Schema.String,
      reason: Schema.NullOr(Schema.String)
    })
  ),
  shipments: Schema.Array(Schema.Struct({ trackingNo: Schema.String, carrier: Schema.NullOr(Schema.String), pushState: Schema.String }))
})

/** `podsync explain <store key>:<store order id>`: the order's whole story. */
export const explainCommand = Command.make(
  "explain",
  { config: configOption, reference: Args.text({ name: "store key:store order id" }) },
  ({ config, reference }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const fromDatabase = explainOrder(reference).pipe(
          Effect.provide(OrdersRepo.Default),
          Effect.provide(ShipmentsRepo.Default),
          Effect.provide(existingDbLayer(app))
        )
        // A daemon on the embedded database holds it: it tells the story (or says it knows no such order).
        const told = yield* askEmbeddedDaemon(
          app,
          HttpClientRequest.get(daemonUrl(app, "/explain")).pipe(HttpClientRequest.setUrlParam("ref", reference)),
          StoryBody,
          "10 seconds"
        )
        const story: OrderStory | undefined = Option.isSome(told) ? told.value : yield* fromDatabase
        if (story === undefined) return yield* new CliFailure({ message: noOrderMessage(reference) })
        yield* Console.log(renderStory(story))
      }))
).pipe(Command.withDescription("Tell an order's whole story"))
