import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Console, Effect, Option, Schema } from "effect"
import { ambiguousMessage, lookUpOrder, noOrderMessage, type OrderStory, renderStory } from "../pipeline/Explain.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { ShipmentsRepo } from "../repos/ShipmentsRepo.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, storeNamed, withConfig } from "./AppRuntime.js"
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
      reason: Schema.NullOr(Schema.String),
      wouldSend: Schema.optional(Schema.Unknown)
    })
  ),
  shipments: Schema.Array(Schema.Struct({ trackingNo: Schema.String, carrier: Schema.NullOr(Schema.String), pushState: Schema.String }))
})

/**
 * `podsync explain <order> [--store KEY]`: the order's whole story. The order is its reference
 * (`acme-shopify:5550001`) or what the store shows the seller: its name (`#1006`) or number.
 */
export const explainCommand = Command.make(
  "explain",
  {
    config: configOption,
    store: Options.text("store").pipe(
      Options.withPseudoName("KEY"),
      Options.withDescription("the store, when an order name or number is in several (its key; default: look in every store)"),
      Options.optional
    ),
    reference: Args.text({ name: "order: <store key>:<store order id>, or the order name (#1006)" })
  },
  ({ config, reference, store }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const storeKey = Option.getOrUndefined(store)
        if (storeKey !== undefined) yield* storeNamed(app, storeKey)
        const fromDatabase = lookUpOrder(reference, storeKey).pipe(
          Effect.provide(OrdersRepo.Default),
          Effect.provide(ShipmentsRepo.Default),
          Effect.provide(existingDbLayer(app)),
          Effect.flatMap((found) => {
            switch (found._tag) {
              case "Found":
                return Effect.succeed(found.story)
              case "NotFound":
                return Effect.fail(new CliFailure({ message: noOrderMessage(reference) }))
              case "Ambiguous":
                return Effect.fail(new CliFailure({ message: ambiguousMessage(reference, found.references) }))
            }
          })
        )
        // A daemon on the embedded database holds it: it tells the story (or says why it cannot).
        const told = yield* askEmbeddedDaemon(
          app,
          HttpClientRequest.get(daemonUrl(app, "/explain")).pipe(
            HttpClientRequest.setUrlParams({ ref: reference, ...(storeKey === undefined ? {} : { store: storeKey }) })
          ),
          StoryBody,
          "10 seconds"
        )
        const story: OrderStory = Option.isSome(told) ? told.value : yield* fromDatabase
        yield* Console.log(renderStory(story))
      }))
).pipe(Command.withDescription("Tell an order's whole story (by its reference, or the order name the store shows)"))
