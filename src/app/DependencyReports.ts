/**
 * Where the POD service's and the stores' answers reach the daemon's health: every POD request's
 * outcome (through the request gate) and every store API request's (through the store's HTTP
 * client). No answer, a timeout or a 5xx marks the dependency down; any other answer (a 4xx
 * included: the service is there, the request was wrong) marks it up. Without `DependencyHealth`
 * (one-off CLI commands) nothing changes.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { Cause, Duration, Effect, Exit, Layer, Option } from "effect"
import { AlertConditions, credentialsRefused, rateLimited } from "../alerts/AlertConditions.js"
import { connectionRefusal } from "../domain/ConnectionFailure.js"
import { DependencyHealth, storeDependency } from "../observability/DependencyHealth.js"
import { PodRequestGate, type PodRequestOutcome } from "../pod/PodRequestGate.js"

/** Whether an answer says the dependency is not there (as opposed to a request it refused). */
const unavailable = (status: number) => status >= 500
/** Whether an answer refuses the credentials themselves. */
const refusing = (status: number) => status === 401 || status === 403

/** Why a request got no answer, in words a seller can act on: "connection refused at http://…", else "no answer". */
const noAnswer = (cause: Cause.Cause<unknown>, url: string) => {
  const refusal = Option.match(Cause.failureOption(cause), { onNone: () => undefined, onSome: connectionRefusal })
  return refusal === undefined ? "no answer" : `${refusal} at ${new URL(url).origin}`
}

const describePodOutcome = (outcome: PodRequestOutcome) =>
  outcome._tag === "NoAnswer" ? outcome.detail ?? `no answer (${outcome.reason})` : `HTTP ${outcome.status}`

/**
 * What an answer of the POD service says to the alert conditions (when the daemon has them): a
 * refused credential or a 429 pause is raised; an accepted request resolves both.
 */
const podConditions = (conditions: Option.Option<AlertConditions>, operation: string, outcome: PodRequestOutcome) => {
  if (Option.isNone(conditions) || outcome._tag === "NoAnswer") return Effect.void
  const { status } = outcome
  if (refusing(status)) return conditions.value.raise(credentialsRefused("pod", status, operation))
  if (status === 429) {
    return conditions.value.raise(rateLimited(outcome.retryAfter === undefined ? undefined : Duration.toSeconds(outcome.retryAfter)))
  }
  if (status >= 200 && status < 300) {
    return Effect.zipRight(conditions.value.resolve("credentials:pod"), conditions.value.resolve("rate_limited:pod"))
  }
  return Effect.void
}

/** The POD request gate, with each request's outcome reported to the daemon's health (and its alert conditions). */
export const withPodHealth = <E, R>(gate: Layer.Layer<PodRequestGate, E, R>): Layer.Layer<PodRequestGate, E, R> =>
  Layer.effect(
    PodRequestGate,
    Effect.gen(function*() {
      const inner = yield* PodRequestGate
      const health = yield* Effect.serviceOption(DependencyHealth)
      const conditions = yield* Effect.serviceOption(AlertConditions)
      if (Option.isNone(health)) return inner
      return {
        around: inner.around,
        report: (info, outcome) =>
          Effect.zipRight(
            inner.report(info, outcome),
            outcome._tag === "NoAnswer" || unavailable(outcome.status)
              ? health.value.failed("pod", info.operation, describePodOutcome(outcome))
              : outcome.status === 429
              ? Effect.void // there, but pacing us: the budget's pause handles it
              : Effect.zipRight(
                health.value.succeeded("pod"),
                refusing(outcome.status)
                  ? health.value.refused("pod", info.operation, `HTTP ${outcome.status}`)
                  : health.value.accepted("pod")
              )
          ).pipe(Effect.zipRight(podConditions(conditions, info.operation, outcome)))
      }
    })
  ).pipe(Layer.provide(gate))

/** The surrounding HttpClient, with each request's outcome reported as the health of store `storeKey`. */
export const reportStoreHealth = (storeKey: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const health = yield* Effect.serviceOption(DependencyHealth)
    const conditions = yield* Effect.serviceOption(AlertConditions)
    if (Option.isNone(health)) return client
    const dependency = storeDependency(storeKey)
    // A refused credential is an alert (when the daemon has alert conditions); an accepted request resolves it.
    const credentials = (status: number, operation: string) =>
      Option.isNone(conditions)
        ? Effect.void
        : refusing(status)
        ? conditions.value.raise(credentialsRefused({ storeKey }, status, operation))
        : status >= 200 && status < 300
        ? conditions.value.resolve(`credentials:store:${storeKey}`, storeKey)
        : Effect.void
    return HttpClient.transform(client, (response, request) =>
      response.pipe(
        Effect.onExit((exit) => {
          if (Exit.isInterrupted(exit)) return Effect.void
          const operation = `${request.method} ${new URL(request.url).pathname}`
          if (Exit.isFailure(exit)) return health.value.failed(dependency, operation, noAnswer(exit.cause, request.url))
          const status = exit.value.status
          return (unavailable(status)
            ? health.value.failed(dependency, operation, `HTTP ${status}`)
            : Effect.zipRight(
              health.value.succeeded(dependency),
              refusing(status) ? health.value.refused(dependency, operation, `HTTP ${status}`) : health.value.accepted(dependency)
            )).pipe(Effect.zipRight(credentials(status, operation)))
        })
      ))
  })
