/**
 * Where the POD service's and the stores' answers reach the daemon's health: every POD request's
 * outcome (through the request gate) and every store API request's (through the store's HTTP
 * client). No answer, a timeout or a 5xx marks the dependency down; any other answer (a 4xx
 * included: the service is there, the request was wrong) marks it up. Without `DependencyHealth`
 * (one-off CLI commands) nothing changes.
 */
import { HttpClient } from "@effect/platform"
import { Effect, Exit, Layer, Option } from "effect"
import { DependencyHealth, storeDependency } from "../observability/DependencyHealth.js"
import { PodRequestGate, type PodRequestOutcome } from "../pod/PodRequestGate.js"

/** Whether an answer says the dependency is not there (as opposed to a request it refused). */
const unavailable = (status: number) => status >= 500
/** Whether an answer refuses the credentials themselves. */
const refusing = (status: number) => status === 401 || status === 403

const describePodOutcome = (outcome: PodRequestOutcome) =>
  outcome._tag === "NoAnswer" ? `no answer (${outcome.reason})` : `HTTP ${outcome.status}`

/** The POD request gate, with each request's outcome reported to the daemon's health. */
export const withPodHealth = <E, R>(gate: Layer.Layer<PodRequestGate, E, R>): Layer.Layer<PodRequestGate, E, R> =>
  Layer.effect(
    PodRequestGate,
    Effect.gen(function*() {
      const inner = yield* PodRequestGate
      const health = yield* Effect.serviceOption(DependencyHealth)
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
          )
      }
    })
  ).pipe(Layer.provide(gate))

/** The surrounding HttpClient, with each request's outcome reported as the health of store `storeKey`. */
export const reportStoreHealth = (storeKey: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const health = yield* Effect.serviceOption(DependencyHealth)
    if (Option.isNone(health)) return client
    const dependency = storeDependency(storeKey)
    return HttpClient.transform(client, (response, request) =>
      response.pipe(
        Effect.onExit((exit) => {
          if (Exit.isInterrupted(exit)) return Effect.void
          const operation = `${request.method} ${new URL(request.url).pathname}`
          if (Exit.isFailure(exit)) return health.value.failed(dependency, operation, "no answer")
          const status = exit.value.status
          return unavailable(status)
            ? health.value.failed(dependency, operation, `HTTP ${status}`)
            : Effect.zipRight(
              health.value.succeeded(dependency),
              refusing(status) ? health.value.refused(dependency, operation, `HTTP ${status}`) : health.value.accepted(dependency)
            )
        })
      ))
  })
