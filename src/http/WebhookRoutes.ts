/**
 * The webhook receivers: `POST /webhooks/pod` and `POST /webhooks/<store key>`
 * (ARCHITECTURE.md, "HTTP surface of the daemon" and "Idempotency").
 *
 * Each delivery is read up to 1 MiB (413 beyond), its signature checked
 * before anything else (401 and nothing stored when it fails), then stored in
 * the inbox under its delivery key, in one commit with the deliveries that
 * arrived with it, and answered once that commit is done. A key seen before is
 * a retry or a duplicate: answered 200 and nothing else. A new delivery is
 * answered 200 while the pipeline is told in the background; a hint lost there
 * costs nothing, since the next scheduled pull or reconcile reads the same
 * state. More than the database commits is answered 503 with Retry-After.
 */
import { recordWebhookDelivery, type WebhookOutcome } from "../observability/WebhookMetrics.js"
import type { IncomingMessage } from "node:http"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Clock, Context, Data, Duration, Effect, Either, Layer, Option, type Redacted, Runtime, Stream } from "effect"
import { type AppConfig, WEBHOOK_INTAKE_DEFAULTS, type WebhookIntakeConfig } from "../config/AppConfig.js"
import { PipelineTriggers } from "../pipeline/PipelineTriggers.js"
import { isActedOn } from "../pod/PodWebhookEvents.js"
import { type VerifiedPodWebhook, verifyPodWebhook } from "../pod/PodWebhookSignature.js"
import { WebhookInboxRepo } from "../repos/WebhookInboxRepo.js"
import { StoreConnectors } from "../stores/StoreConnector.js"

/** Largest delivery body accepted, for every sender. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024

/** The inbox source of POD deliveries (store deliveries use their store key). */
export const POD_SOURCE = "pod"

export interface PodWebhookVerification {
  readonly signingKey: Redacted.Redacted<string>
  /** Expected `X-Connect-Client-Key`, when one is expected. */
  readonly clientKey?: Redacted.Redacted<string>
  /** The path the service signs, when a proxy rewrites the request's path. */
  readonly signedPath?: string
}

/**
 * How POD deliveries are verified, from `pod` (pure). The HMAC key is `pod.webhooks.signingKey`,
 * else the API client secret, as the service signs. X-Connect-Client-Key is checked against
 * `pod.webhooks.clientKey` when set; else, when the key is the client secret, against
 * `pod.clientKey` (the service sends the key of the credential that signed); a configuration with
 * its own signing key and no client key checks no client key, as before.
 */
export const podWebhookVerification = (
  pod: Pick<AppConfig["pod"], "clientKey" | "clientSecret" | "webhooks">
): Option.Option<PodWebhookVerification> => {
  const webhooks = pod.webhooks
  if (webhooks === undefined) return Option.none()
  const clientKey = webhooks.clientKey ?? (webhooks.signingKey === undefined ? pod.clientKey : undefined)
  return Option.some({
    signingKey: webhooks.signingKey ?? pod.clientSecret,
    ...(clientKey === undefined ? {} : { clientKey }),
    ...(webhooks.signedPath === undefined ? {} : { signedPath: webhooks.signedPath })
  })
}

/** The `pod.webhooks` settings the receiver needs; none when POD webhooks are not configured (deliveries get 404). */
export class PodWebhookSettings extends Context.Tag("podsync/PodWebhookSettings")<
  PodWebhookSettings,
  Option.Option<PodWebhookVerification>
>() {
  static readonly fromConfig = (pod: AppConfig["pod"]): Layer.Layer<PodWebhookSettings> =>
    Layer.succeed(PodWebhookSettings, podWebhookVerification(pod))
}

/** Each answer carries its outcome for the delivery counters of /metrics. */
const outcomes = new WeakMap<HttpServerResponse.HttpServerResponse, WebhookOutcome>()
const answer = (status: number, body: Readonly<Record<string, unknown>>, headers: Readonly<Record<string, string>> = {}) => {
  const response = HttpServerResponse.unsafeJson(body, { status, headers })
  const outcome: WebhookOutcome = status === 413 ? "too_large" : status === 503 ? "unavailable" : status >= 400 ?
    "rejected"
    : body.status === "duplicate"
    ? "duplicate"
    : body.ignored !== undefined
    ? "ignored"
    : "accepted"
  outcomes.set(response, outcome)
  return response
}

/** 503 with Retry-After: more arrives than the database commits (counted as `busy`). */
const busyAnswer = (retryAfterSeconds: number, detail: string) => {
  const response = HttpServerResponse.unsafeJson({ error: "busy", detail }, {
    status: 503,
    headers: { "retry-after": String(retryAfterSeconds) }
  })
  outcomes.set(response, "busy")
  return response
}

/** Counts the outcome of one delivery to `source` (a store key, or "pod"). */
const counted =
  <RS>(source: Effect.Effect<string, never, RS>) => <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.tap(handler, (response) => Effect.flatMap(source, (name) => recordWebhookDelivery(name, outcomes.get(response) ?? "accepted")))

const tooLarge = answer(413, { error: "payload_too_large", detail: `webhook bodies are limited to ${MAX_WEBHOOK_BODY_BYTES} bytes` })

const unreadable = () => answer(400, { error: "unreadable_body", detail: "the request body could not be read" })

/**
 * The raw body, or the answer to give when it is too large or cannot be read.
 * A declared Content-Length over the limit is refused before reading; a
 * chunked body is read to its end but kept only up to the limit, so the
 * sender gets a clean 413 instead of a reset connection. Read from node's
 * request directly where there is one (the daemon's server): at thousands of
 * deliveries a second, a stream per request is most of the garbage.
 */
const readBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const declared = Number(request.headers["content-length"] ?? Number.NaN)
  if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BODY_BYTES) return Either.left(tooLarge)
  const message = Either.try(() => NodeHttpServerRequest.toIncomingMessage(request))
  if (Either.isRight(message)) return yield* readIncoming(message.right)
  return yield* request.stream.pipe(
    Stream.runFold({ kept: [] as Array<Uint8Array>, size: 0 }, (read, chunk) => {
      if (read.size + chunk.length <= MAX_WEBHOOK_BODY_BYTES) read.kept.push(chunk)
      read.size += chunk.length
      return read
    }),
    Effect.map(({ kept, size }) =>
      size > MAX_WEBHOOK_BODY_BYTES ? Either.left(tooLarge) : Either.right(new Uint8Array(Buffer.concat(kept)))
    ),
    Effect.catchAll(() => Effect.succeed(Either.left(unreadable())))
  )
})

const readIncoming = (message: IncomingMessage) =>
  Effect.async<Either.Either<Uint8Array, HttpServerResponse.HttpServerResponse>>((resume) => {
    const kept: Array<Buffer> = []
    let size = 0
    let done = false
    const finish = (result: Either.Either<Uint8Array, HttpServerResponse.HttpServerResponse>) => {
      if (done) return
      done = true
      resume(Effect.succeed(result))
    }
    message.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_WEBHOOK_BODY_BYTES) kept.push(chunk)
    })
    message.once("end", () => finish(size > MAX_WEBHOOK_BODY_BYTES ? Either.left(tooLarge) : Either.right(Buffer.concat(kept))))
    message.once("error", () => done || finish(Either.left(unreadable())))
    message.once("close", () => done || finish(Either.left(unreadable())))
  })

/** The request's path as sent (before any router prefix was stripped), without the query. */
const requestPath = Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.originalUrl.split("?")[0] ?? "/")

/** How the receivers take deliveries in: `webhooks:` of the config, absent in tests that do not care. */
export class WebhookIntakeSettings extends Context.Tag("podsync/WebhookIntakeSettings")<
  WebhookIntakeSettings,
  Pick<WebhookIntakeConfig, "maxWaiting" | "maxWaitSeconds">
>() {
  static readonly fromConfig = (webhooks: WebhookIntakeConfig): Layer.Layer<WebhookIntakeSettings> =>
    Layer.succeed(WebhookIntakeSettings, { maxWaiting: webhooks.maxWaiting, maxWaitSeconds: webhooks.maxWaitSeconds })
}

const intakeSettings = Effect.map(
  Effect.serviceOption(WebhookIntakeSettings),
  Option.getOrElse(() => ({ maxWaiting: WEBHOOK_INTAKE_DEFAULTS.maxWaiting, maxWaitSeconds: WEBHOOK_INTAKE_DEFAULTS.maxWaitSeconds }))
)

/** A delivery waited `maxWaitSeconds` for its commit: the database is slow or stalled. */
class CommitTooSlowError extends Data.TaggedError("CommitTooSlowError")<{ readonly seconds: number }> {}

/**
 * Stores the delivery and answers once its row is committed (with the deliveries that arrived
 * with it: WebhookInboxRepo.record). A new one starts `followUp` in the background.
 *
 * The follow-up is started by the commit itself, not by the request's fiber, so a sender that
 * hangs up, or is answered 503 after waiting too long, cannot leave a committed delivery whose
 * follow-up never started. Above what the database commits the sender is answered 503 with Retry-After: at once
 * when the inbox already has `maxWaiting` deliveries waiting (the queue is full: about a second
 * of commits), after `maxWaitSeconds` when its commit is that late (the database is slow or
 * stalled); a 503'd delivery that is committed after all is a duplicate when the sender retries.
 */
const acceptOnce = (
  source: string,
  deliveryId: string,
  topic: string | undefined,
  payload: unknown,
  followUp: Effect.Effect<void>,
  /** Why nothing is to be done with it: stored and answered 200 all the same, so the sender stops. */
  ignored?: string
) =>
  Effect.gen(function*() {
    const inbox = yield* WebhookInboxRepo
    const intake = yield* intakeSettings
    const runtime = yield* Effect.runtime<never>()
    const startFollowUp = () =>
      Runtime.runFork(runtime)(followUp.pipe(
        Effect.zipRight(inbox.markProcessed(source, deliveryId)),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("a webhook's follow-up failed; the next scheduled run catches up", Cause.pretty(cause))
        ),
        Effect.annotateLogs({ source, topic })
      ))
    const outcome = yield* inbox.record({ source, deliveryId, topic, payload }, {
      maxWaiting: intake.maxWaiting,
      onStored: (stored) => stored === "new" && startFollowUp()
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.seconds(intake.maxWaitSeconds),
        onTimeout: () => new CommitTooSlowError({ seconds: intake.maxWaitSeconds })
      })
    )
    if (outcome === "duplicate") {
      yield* Effect.logDebug("webhook delivery already received; ignored").pipe(Effect.annotateLogs({ source, topic }))
      return answer(200, { status: "duplicate" })
    }
    return answer(200, ignored === undefined ? { status: "accepted" } : { status: "accepted", ignored })
  }).pipe(
    Effect.catchTags({
      InboxBusyError: (busy) =>
        Effect.as(
          Effect.logWarning("webhook deliveries arrive faster than they are stored; answered 503 (the sender retries)").pipe(
            Effect.annotateLogs({ source, waiting: busy.waiting })
          ),
          busyAnswer(1, `${busy.waiting} deliveries are waiting to be stored; retry in a second`)
        ),
      CommitTooSlowError: (slow) =>
        Effect.as(
          Effect.logWarning(`a webhook delivery was not committed within ${slow.seconds} s; answered 503 (the sender retries)`)
            .pipe(Effect.annotateLogs({ source })),
          busyAnswer(Math.ceil(slow.seconds), "the database is slow to store deliveries; retry later")
        ),
      DbError: (error) =>
        Effect.logError("could not store a webhook delivery; the sender will retry", error.message).pipe(
          Effect.as(answer(503, { error: "unavailable", detail: "the delivery could not be stored; retry later" }, { "retry-after": "5" }))
        )
    })
  )

/** `POST /webhooks/:storeKey`: verified by that store's connector. */
const storeWebhook = Effect.gen(function*() {
  const { storeKey } = yield* HttpRouter.params
  const connector = storeKey === undefined ? undefined : (yield* StoreConnectors).get(storeKey)
  if (storeKey === undefined || connector === undefined) {
    return answer(404, { error: "unknown_store", detail: "no store is configured under this key" })
  }
  const body = yield* readBody
  if (Either.isLeft(body)) return body.left
  const request = yield* HttpServerRequest.HttpServerRequest
  const verdict = connector.verifyWebhook({ headers: request.headers, rawBody: body.right })
  if (Either.isLeft(verdict)) {
    const { reason, detail } = verdict.left
    yield* Effect.logWarning("store webhook rejected").pipe(Effect.annotateLogs({ storeKey, reason, detail }))
    return answer(reason === "malformed_body" ? 400 : 401, { error: reason, detail })
  }
  const webhook = verdict.right
  // The connector knows its platform's test deliveries and replay bound; the check needs the clock, which it is given.
  const admission = connector.admitWebhook(webhook, yield* Clock.currentTimeMillis)
  if (admission._tag === "Ignore") return answer(200, { ignored: admission.reason })
  if (admission._tag === "Refuse") return answer(401, { error: admission.error, detail: admission.detail })
  const triggers = yield* PipelineTriggers
  return yield* acceptOnce(
    storeKey,
    webhook.dedupKey,
    webhook.topic,
    webhook.payload,
    triggers.storeChanged(storeKey, webhook.storeOrderId)
  )
})

/** A V1 body carries the API client key (`api_key`), which podsync holds as a secret: it is not stored. */
const withoutApiKey = (payload: unknown): unknown =>
  typeof payload === "object" && payload !== null && !Array.isArray(payload) && "api_key" in payload
    ? { ...payload, api_key: "(redacted)" }
    : payload

/** What to do with a verified POD delivery: tell the pipeline, or why there is nothing to tell it. */
const podFollowUp = (
  webhook: VerifiedPodWebhook,
  triggers: PipelineTriggers["Type"]
): { readonly followUp: Effect.Effect<void>; readonly ignored?: string } => {
  const nothing = (ignored: string, message: string) => ({ followUp: Effect.logInfo(message), ignored })
  if (webhook.payload === undefined) return nothing("not_json", "POD webhook body is not JSON; stored, nothing to follow up")
  // Variant events and types podsync does not know: recorded, never refused, not acted on.
  if (!isActedOn(webhook.event)) {
    return nothing("event_not_acted_on", `POD webhook of type ${webhook.topic ?? "(none)"} is not one podsync acts on; stored`)
  }
  if (webhook.podOrderId === undefined && webhook.referenceId === undefined) {
    return nothing("no_order", "POD webhook names no order; stored, nothing to follow up")
  }
  const { nonce: _nonce, timestampMillis: _at, payload: _payload, ...hint } = webhook
  return { followUp: triggers.podOrderChanged(hint) }
}

/** `POST /webhooks/pod`: signed with the API client secret (or the configured key); a nonce is accepted once. */
const podWebhook = Effect.gen(function*() {
  const settings = yield* PodWebhookSettings
  if (Option.isNone(settings)) {
    return answer(404, { error: "not_configured", detail: "POD webhooks are not configured (pod.webhooks)" })
  }
  const body = yield* readBody
  if (Either.isLeft(body)) return body.left
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = settings.value.signedPath ?? (yield* requestPath)
  const now = yield* Clock.currentTimeMillis
  const verdict = verifyPodWebhook(settings.value, { path, headers: request.headers, rawBody: body.right }, now)
  if (Either.isLeft(verdict)) {
    const { reason, detail } = verdict.left
    yield* Effect.logWarning("POD webhook rejected").pipe(Effect.annotateLogs({ reason, detail }))
    return answer(401, { error: reason, detail })
  }
  const webhook = verdict.right
  const triggers = yield* PipelineTriggers
  const payload = webhook.payload === undefined
    ? { unreadable: Buffer.from(body.right).toString("utf8").slice(0, 8192) }
    : withoutApiKey(webhook.payload)
  const { followUp, ignored } = podFollowUp(webhook, triggers)
  return yield* acceptOnce(POD_SOURCE, webhook.nonce, webhook.topic, payload, followUp, ignored)
})

/**
 * Both receivers. `/webhooks/pod` is matched before `/webhooks/:storeKey`,
 * so "pod" cannot be a store key.
 */
export const WebhookRoutes = HttpRouter.empty.pipe(
  HttpRouter.post("/webhooks/pod", counted(Effect.succeed(POD_SOURCE))(podWebhook)),
  HttpRouter.post(
    "/webhooks/:storeKey",
    counted(Effect.map(HttpRouter.params, (p) => p.storeKey ?? "unknown").pipe(Effect.orElseSucceed(() => "unknown")))(storeWebhook)
  )
)
