/**
 * Where the POD service's and the stores' answers reach the daemon's health: every POD request's
 * outcome (through the request gate) and every store API request's (through the store's HTTP
 * client). No answer, a timeout or a 5xx marks the dependency down; any other answer (a 4xx
 * included: the service is there, the request was wrong) marks it up. Without `DependencyHealth`
 * (one-off CLI commands) nothing changes.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Cause, Duration, Effect, Exit, Layer, Option } from "effect"
import { AlertConditions, credentialsRefused, rateLimited } from "../alerts/AlertConditions.js"
import { connectionRefusal } from "../domain/ConnectionFailure.js"
import { DependencyHealth, storeDependency } from "../observability/DependencyHealth.js"
import { PodRequestGate, type PodRequestOutcome } from "../pod/PodRequestGate.js"
import type { CredentialRefusal } from "../stores/StoreConnector.js"

/** Whether an answer says the dependency is not there (as opposed to a request it refused). */
const unavailable = (status: number) => status >= 500

/**
 * A store that answers but refuses every request until its owner settles with the platform:
 * 402 (Shopify: the shop is frozen, its bill unpaid) or 423 (locked). An outage of the store,
 * said with the platform's own words from the body (`{"errors": "…"}`).
 */
const storeWithheld = (status: number) => status === 402 || status === 423

const STORE_UNAVAILABLE_WORDS: Readonly<Record<number, string>> = {
  402: "Payment Required: the shop is frozen until its owner pays the platform's bill",
  423: "Locked: the platform has locked the shop until its owner settles it with the platform's support"
}

/** What a 402 or 423 said, for the outage's log line, /status and the alert. */
const storeUnavailableMessage = (status: number, body: string) => {
  const said = /"errors"\s*:\s*"([^"]{1,200})"/.exec(body)?.[1]
  return `HTTP ${status} ${STORE_UNAVAILABLE_WORDS[status] ?? ""}${said === undefined ? "" : ` ("${said}")`}`
}
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

/**
 * A 401/403 answer, and whether it refuses the store's credentials as `refusesCredentials` reads it
 * (its body read here, so the answer handed on is rebuilt from the text; only these answers are).
 */
const refusalOf = (
  response: HttpClientResponse.HttpClientResponse,
  refusesCredentials: CredentialRefusal | undefined
): Effect.Effect<{ readonly response: HttpClientResponse.HttpClientResponse; readonly credentials: boolean }> => {
  if (!refusing(response.status)) return Effect.succeed({ response, credentials: false })
  if (refusesCredentials === undefined) return Effect.succeed({ response, credentials: true })
  const { request, status, headers } = response
  return Effect.map(Effect.orElseSucceed(response.text, () => ""), (body) => ({
    response: HttpClientResponse.fromWeb(request, new Response(body, { status, headers })),
    credentials: refusesCredentials({ method: request.method, path: new URL(request.url).pathname, status, body })
  }))
}

/**
 * The surrounding HttpClient, with each request's outcome reported as the health of store
 * `storeKey`; `refusesCredentials` tells the platform's 401/403 answers that refuse one request only.
 */
export const reportStoreHealth = (storeKey: string, refusesCredentials?: CredentialRefusal) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const health = yield* Effect.serviceOption(DependencyHealth)
    const conditions = yield* Effect.serviceOption(AlertConditions)
    if (Option.isNone(health)) return client
    const dependency = storeDependency(storeKey)
    // A refused credential is an alert (when the daemon has alert conditions); an accepted request resolves it.
    const credentials = (status: number, refused: boolean, operation: string) =>
      Option.isNone(conditions)
        ? Effect.void
        : refused
        ? conditions.value.raise(credentialsRefused({ storeKey }, status, operation))
        : status >= 200 && status < 300
        ? conditions.value.resolve(`credentials:store:${storeKey}`, storeKey)
        : Effect.void
    return HttpClient.transform(client, (response, request) =>
      response.pipe(
        Effect.flatMap((answer) => refusalOf(answer, refusesCredentials)),
        Effect.onExit((exit) => {
          if (Exit.isInterrupted(exit)) return Effect.void
          const operation = `${request.method} ${new URL(request.url).pathname}`
          if (Exit.isFailure(exit)) return health.value.failed(dependency, operation, noAnswer(exit.cause, request.url))
          const { response: answer, credentials: refused } = exit.value
          const status = answer.status
          if (storeWithheld(status)) {
            // The body is small and read once (the client keeps it for the connector, which reads it too).
            return Effect.flatMap(
              Effect.orElseSucceed(answer.text, () => ""),
              (body) => health.value.failed(dependency, operation, storeUnavailableMessage(status, body))
            )
          }
          return (unavailable(status)
            ? health.value.failed(dependency, operation, `HTTP ${status}`)
            : Effect.zipRight(
              health.value.succeeded(dependency),
              refused ? health.value.refused(dependency, operation, `HTTP ${status}`) : health.value.accepted(dependency)
            )).pipe(Effect.zipRight(credentials(status, refused, operation)))
        }),
        Effect.map(({ response }) => response)
      ))
  })
