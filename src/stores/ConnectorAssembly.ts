/**
 * What every platform's connector is made of besides its own parts: the shape
 * of its constructor, and reading one order back by id, where an answer the
 * connector cannot normalize is an error that keeps the raw body.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { Effect, Either, type Option } from "effect"
import type { NormalizedOrder } from "../domain/NormalizedOrder.js"
import type { StoreConnector } from "./StoreConnector.js"
import { keepBody, StoreResponseError } from "./StoreErrors.js"

/** Builds one configured store's connector; the HTTP client is the daemon's. */
export type ConnectorMaker<Config> = (config: Config) => Effect.Effect<StoreConnector, never, HttpClient.HttpClient>

/** Normalizes one order as the platform sends it; `raw` (as received) is kept on the result. Left: why it cannot be read. */
export type OrderNormalizer<PlatformOrder> = (
  storeKey: string,
  order: PlatformOrder,
  raw: unknown
) => Either.Either<NormalizedOrder, string>
/**
 * An order read back by id (`getOrder`): normalized, or, since the store
 * itself answered with it, a `StoreResponseError` a person can diagnose from
 * the kept body (not "unknown order", which would let the pipeline forget it).
 */
export const readBackOrder = (
  storeKey: string,
  operation: string,
  raw: unknown,
  normalized: Either.Either<NormalizedOrder, string>
): Effect.Effect<Option.Option<NormalizedOrder>, StoreResponseError> =>
  Either.match(normalized, {
    onRight: (order) => Effect.succeedSome(order),
    onLeft: (problem) =>
      Effect.fail(
        new StoreResponseError({ storeKey, operation, ambiguous: false, status: 200, body: keepBody(JSON.stringify(raw)), detail: problem })
      )
  })
