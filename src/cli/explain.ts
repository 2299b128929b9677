import { Args, Command } from "@effect/cli"
import { Console, Effect, Schema } from "effect"
import { explainOrder, type OrderStory, renderStory } from "../pipeline/Explain.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { askDaemon, CliFailure, configOption, withConfig } from "./AppRuntime.js"
import { dbLayer } from "../app/DatabaseLive.js"

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
          Effect.provide(dbLayer(app))
        )
        const story: OrderStory | undefined = app.database.url
          ? yield* fromDatabase
          : yield* askDaemon(app, "GET", `/explain?ref=${encodeURIComponent(reference)}`, StoryBody).pipe(Effect.orElse(() => fromDatabase))
        if (story === undefined) {
          return yield* Effect.fail(
            new CliFailure({ message: `no order ${reference} (expected <store key>:<store order id>, e.g. acme-shopify:5550001)` })
          )
        }
        yield* Console.log(renderStory(story))
      }))
).pipe(Command.withDescription("Tell an order's whole story"))
