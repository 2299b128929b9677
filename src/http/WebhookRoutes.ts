/**
 * The webhook receivers: `POST /webhooks/pod` and `POST /webhooks/<store key>`
 * (ARCHITECTURE.md, "HTTP surface of the daemon" and "Idempotency").
 *
 * Each delivery is read up to 1 MiB (413 beyond), its signature checked
 * before anything else (401 and nothing stored when it fails), then stored in
 * the inbox under its delivery key. A key seen before is a retry or a
 * duplicate: answered 200 and nothing else. A new delivery is answered 200 at
 * once while the pipeline is told in the background; a hint lost there costs
 * nothing, since the next scheduled pull or reconcile reads the same state.
 */
import { recordWebhookDelivery, type WebhookOutcome } from "../observability/WebhookMetrics.js"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Context, Effect, Either, Layer, Option, type Redacted, Stream } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
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
const answer = (status: number, body: Readonly<Record<string, unknown>>) => {
  const response = HttpServerResponse.unsafeJson(body, { status })
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

/** Counts the outcome of one delivery to `source` (a store key, or "pod"). */
const counted =
  <RS>(source: Effect.Effect<string, never, RS>) => <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.tap(handler, (response) => Effect.flatMap(source, (name) => recordWebhookDelivery(name, outcomes.get(response) ?? "accepted")))

const tooLarge = answer(413, { error: "payload_too_large", detail: `webhook bodies are limited to ${MAX_WEBHOOK_BODY_BYTES} bytes` })

/**
 * The raw body, or the answer to give when it is too large or cannot be read.
 * A declared Content-Length over the limit is refused before reading; a
 * chunked body is read to its end but kept only up to the limit, so the
 * sender gets a clean 413 instead of a reset connection.
 */
const readBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const declared = Number(request.headers["content-length"] ?? Number.NaN)
  if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BODY_BYTES) return Either.left(tooLarge)
  return yield* request.stream.pipe(
    Stream.runFold({ kept: [] as ReadonlyArray<Uint8Array>, size: 0 }, ({ kept, size }, chunk) => ({
      kept: size + chunk.length <= MAX_WEBHOOK_BODY_BYTES ? [...kept, chunk] : kept,
      size: size + chunk.length
    })),
    Effect.map(({ kept, size }) =>
      size > MAX_WEBHOOK_BODY_BYTES ? Either.left(tooLarge) : Either.right(new Uint8Array(Buffer.concat(kept)))
    ),
    Effect.catchAll(() =>
      Effect.succeed(Either.left(answer(400, { error: "unreadable_body", detail: "the request body could not be read" })))
    )
  )
})

/** The request's path as sent (before any router prefix was stripped), without the query. */
const requestPath = Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.originalUrl.split("?")[0] ?? "/")

/**
 * Stores the delivery; a new one starts `followUp` in the background.
 * Uninterruptible, so a client hanging up cannot leave a stored delivery
 * whose follow-up never started.
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
    const outcome = yield* inbox.record({ source, deliveryId, topic, payload })
    if (outcome === "duplicate") {
      yield* Effect.logInfo("webhook delivery already received; ignored").pipe(Effect.annotateLogs({ source, topic }))
      return answer(200, { status: "duplicate" })
    }
    yield* followUp.pipe(
      Effect.zipRight(inbox.markProcessed(source, deliveryId)),
      Effect.catchAllCause((cause) =>
        Effect.logWarning("a webhook's follow-up failed; the next scheduled run catches up", Cause.pretty(cause))
      ),
      Effect.annotateLogs({ source, topic }),
      Effect.interruptible,
      Effect.forkDaemon
    )
    return answer(200, ignored === undefined ? { status: "accepted" } : { status: "accepted", ignored })
  }).pipe(
    Effect.uninterruptible,
    Effect.catchTag("DbError", (error) =>
      Effect.logError("could not store a webhook delivery; the sender will retry", error.message).pipe(
        Effect.as(answer(503, { error: "unavailable", detail: "the delivery could not be stored; retry later" }))
      ))
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
