/**
 * Steps for the two webhook operations every connector has. They are pure
 * (no network): driven so that they count as driven, and expected to send
 * nothing.
 */
import { Effect, Either } from "effect"
import type { StoreStep } from "./StoreTour.js"

export const webhookSteps = <S>(): ReadonlyArray<StoreStep<S>> => [
  {
    method: "verifyWebhook",
    note: "an unsigned delivery",
    expect: "WebhookRejectedError",
    sends: false,
    run: (c) =>
      Either.match(c.verifyWebhook({ headers: {}, rawBody: new TextEncoder().encode("{}") }), {
        onLeft: Effect.fail,
        onRight: Effect.succeed
      })
  },
  {
    method: "admitWebhook",
    note: "a verified delivery",
    sends: false,
    run: (c) =>
      Effect.sync(() => c.admitWebhook({ storeKey: c.storeKey, topic: "orders/updated", dedupKey: "conformance", payload: {} }, Date.now()))
  }
]

/** Every result of a batched operation right (and no push refused), else the step fails with the first that is not. */
export const everyOneRight = <A, E>(results: ReadonlyArray<Either.Either<A, E>>): Effect.Effect<ReadonlyArray<A>, unknown> => {
  const failed = results.find(Either.isLeft)
  if (failed !== undefined) return Effect.fail(failed.left)
  const values = results.flatMap((r) => (Either.isRight(r) ? [r.right] : []))
  const refused = values.find((v) => typeof v === "object" && v !== null && "_tag" in v && v._tag === "Rejected")
  return refused === undefined ? Effect.succeed(values) : Effect.fail(new Error(`a push was refused: ${JSON.stringify(refused)}`))
}
