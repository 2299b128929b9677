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
 *
 * The receiver is node's request listener itself, not a route of the Effect router: at
 * thousands of deliveries a second, a fiber, a router match and a response object per request
 * were half the daemon's CPU (issue #22). Its checks are pure functions and its wait is the
 * inbox's group commit, so nothing on this path needs a fiber; the follow-up and the log lines
 * still run on the daemon's runtime.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Cause, Context, Effect, Either, Layer, Option, type Redacted, Runtime } from "effect"
import { type AppConfig, WEBHOOK_INTAKE_DEFAULTS, type WebhookIntakeConfig } from "../config/AppConfig.js"
import { type WebhookOutcome, WebhookMetrics } from "../observability/WebhookMetrics.js"
import { PipelineTriggers } from "../pipeline/PipelineTriggers.js"
import { isActedOn } from "../pod/PodWebhookEvents.js"
import { type VerifiedPodWebhook, verifyPodWebhook } from "../pod/PodWebhookSignature.js"
import { InboxBusyError, WebhookInboxRepo } from "../repos/WebhookInboxRepo.js"
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

/** One answer of the receivers: status, JSON body, headers, and the outcome /metrics counts. */
interface Answer {
  readonly status: number
  readonly body: Readonly<Record<string, unknown>>
  readonly headers?: Readonly<Record<string, string>>
  readonly outcome: WebhookOutcome
}

const answer = (status: number, body: Readonly<Record<string, unknown>>, headers?: Readonly<Record<string, string>>): Answer => ({
  status,
  body,
  ...(headers === undefined ? {} : { headers }),
  outcome: status === 413
    ? "too_large"
    : status === 503
    ? "unavailable"
    : status >= 400
    ? "rejected"
    : body.status === "duplicate"
    ? "duplicate"
    : body.ignored !== undefined
    ? "ignored"
    : "accepted"
})

/** What a failure said, for a log line (a DbError says which statement failed and why). */
const failureText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** 503 with Retry-After: more arrives than the database commits (counted as `busy`). */
const busyAnswer = (retryAfterSeconds: number, detail: string): Answer => ({
  status: 503,
  body: { error: "busy", detail },
  headers: { "retry-after": String(retryAfterSeconds) },
  outcome: "busy"
})

const tooLarge = answer(413, { error: "payload_too_large", detail: `webhook bodies are limited to ${MAX_WEBHOOK_BODY_BYTES} bytes` })

const unreadable = answer(400, { error: "unreadable_body", detail: "the request body could not be read" })

/**
 * The raw body, or the answer to give when it is too large or cannot be read.
 * A declared Content-Length over the limit is refused before reading; a
 * chunked body is read to its end but kept only up to the limit, so the
 * sender gets a clean 413 instead of a reset connection.
 */
const readBody = (request: IncomingMessage): Promise<Uint8Array | Answer> => {
  const declared = Number(request.headers["content-length"] ?? Number.NaN)
  if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BODY_BYTES) return Promise.resolve(tooLarge)
  return new Promise((resolve) => {
    const kept: Array<Buffer> = []
    let size = 0
    let done = false
    const finish = (result: Uint8Array | Answer) => {
      if (done) return
      done = true
      resolve(result)
    }
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_WEBHOOK_BODY_BYTES) kept.push(chunk)
    })
    request.once("end", () => finish(size > MAX_WEBHOOK_BODY_BYTES ? tooLarge : Buffer.concat(kept)))
    request.once("error", () => finish(unreadable))
    request.once("close", () => finish(unreadable))
  })
}

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

/** node's request listener for webhook deliveries. */
export type WebhookListener = (request: IncomingMessage, response: ServerResponse) => void

/** Whether a request is a delivery for the receiver: a POST under /webhooks/ (anything else is the router's). */
export const isWebhookDelivery = (request: IncomingMessage): boolean =>
  request.method === "POST" && request.url !== undefined && request.url.startsWith("/webhooks/")

/** The receiver of a path under /webhooks/: "pod", or a store key; none for a deeper or empty path. */
const receiverOf = (path: string): string | undefined => {
  const name = path.slice("/webhooks/".length)
  if (name === "" || name.includes("/")) return undefined
  try {
    return decodeURIComponent(name)
  } catch {
    return undefined
  }
}

/**
 * Both receivers as node's request listener, over the daemon's services: `POST /webhooks/pod`
 * and `POST /webhooks/<store key>` ("pod" cannot be a store key). Every answer is counted in
 * /metrics by source and outcome when `WebhookMetrics` is there (the daemon).
 */
export const webhookReceiver = Effect.gen(function*() {
  const connectors = yield* StoreConnectors
  const triggers = yield* PipelineTriggers
  const inbox = yield* WebhookInboxRepo
  const podSettings = yield* PodWebhookSettings
  const intake = yield* intakeSettings
  const metrics = yield* Effect.serviceOption(WebhookMetrics)
  const clock = yield* Effect.clock
  const run = Runtime.runFork(yield* Effect.runtime<never>())
  const log = (line: Effect.Effect<void>): void => {
    run(line)
  }

  /**
   * Stores the delivery and answers once its row is committed (with the deliveries that arrived
   * with it: WebhookInboxRepo.submit). A new one starts `followUp` in the background.
   *
   * The follow-up is started by the commit itself, not by the request, so a sender that hangs
   * up, or is answered 503 after waiting too long, cannot leave a committed delivery whose
   * follow-up never started. Above what the database commits the sender is answered 503 with
   * Retry-After: at once when the inbox already has `maxWaiting` deliveries waiting (the queue is
   * full: about a second of commits), after `maxWaitSeconds` when its commit is that late (the
   * database is slow or stalled); a 503'd delivery that is committed after all is a duplicate
   * when the sender retries.
   */
  const acceptOnce = async (
    source: string,
    deliveryId: string,
    topic: string | undefined,
    payload: unknown,
    followUp: Effect.Effect<void>,
    /** Why nothing is to be done with it: stored and answered 200 all the same, so the sender stops. */
    ignored?: string
  ): Promise<Answer> => {
    // The "processed" mark is not waited for: the follow-up's fiber ends once the pipeline is told.
    const markProcessed = () =>
      inbox.submitProcessed(source, deliveryId, new Date(clock.unsafeCurrentTimeMillis())).catch((error: unknown) =>
        log(
          Effect.logWarning("a webhook delivery could not be marked processed", failureText(error))
            .pipe(Effect.annotateLogs({ source, topic }))
        )
      )
    const startFollowUp = () =>
      log(followUp.pipe(
        Effect.matchCauseEffect({
          onSuccess: () => Effect.sync(markProcessed),
          onFailure: (cause) => Effect.logWarning("a webhook's follow-up failed; the next scheduled run catches up", Cause.pretty(cause))
        }),
        Effect.annotateLogs({ source, topic })
      ))
    const stored = inbox.submit({ source, deliveryId, topic, payload }, new Date(clock.unsafeCurrentTimeMillis()), {
      maxWaiting: intake.maxWaiting,
      onStored: (outcome) => outcome === "new" && startFollowUp()
    })
    if (stored instanceof InboxBusyError) {
      log(
        Effect.logWarning("webhook deliveries arrive faster than they are stored; answered 503 (the sender retries)").pipe(
          Effect.annotateLogs({ source, waiting: stored.waiting })
        )
      )
      return busyAnswer(1, `${stored.waiting} deliveries are waiting to be stored; retry in a second`)
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const tooSlow = new Promise<"too slow">((resolve) => {
      timer = setTimeout(() => resolve("too slow"), intake.maxWaitSeconds * 1000)
    })
    try {
      const outcome = await Promise.race([stored, tooSlow])
      if (outcome === "too slow") {
        log(
          Effect.logWarning(`a webhook delivery was not committed within ${intake.maxWaitSeconds} s; answered 503 (the sender retries)`)
            .pipe(Effect.annotateLogs({ source }))
        )
        return busyAnswer(Math.ceil(intake.maxWaitSeconds), "the database is slow to store deliveries; retry later")
      }
      if (outcome === "duplicate") return answer(200, { status: "duplicate" })
      return answer(200, ignored === undefined ? { status: "accepted" } : { status: "accepted", ignored })
    } catch (error) {
      log(Effect.logError(
        "could not store a webhook delivery; the sender will retry",
        failureText(error)
      ))
      return answer(503, { error: "unavailable", detail: "the delivery could not be stored; retry later" }, { "retry-after": "5" })
    } finally {
      clearTimeout(timer)
    }
  }

  /** `POST /webhooks/<store key>`: verified by that store's connector. */
  const storeDelivery = async (storeKey: string, request: IncomingMessage): Promise<Answer> => {
    const connector = connectors.get(storeKey)
    if (connector === undefined) return answer(404, { error: "unknown_store", detail: "no store is configured under this key" })
    const body = await readBody(request)
    if (!(body instanceof Uint8Array)) return body
    const verdict = connector.verifyWebhook({ headers: request.headers, rawBody: body })
    if (Either.isLeft(verdict)) {
      const { reason, detail } = verdict.left
      // A wrong signing key refuses every delivery: said once (and in /status) until one verifies, not per delivery.
      const first = reason !== "bad_signature" || Option.isNone(metrics) ||
        metrics.value.badSignature(storeKey, detail, clock.unsafeCurrentTimeMillis())
      const line = first
        ? Effect.logWarning(reason === "bad_signature" ? `store ${storeKey}'s webhooks are refused: ${detail}` : "store webhook rejected")
        : Effect.logDebug("store webhook rejected")
      log(line.pipe(Effect.annotateLogs({ storeKey, reason, detail })))
      return answer(reason === "malformed_body" ? 400 : 401, { error: reason, detail })
    }
    if (Option.isSome(metrics)) metrics.value.signatureVerified(storeKey)
    const webhook = verdict.right
    // The connector knows its platform's test deliveries and replay bound; the check needs the clock, which it is given.
    const admission = connector.admitWebhook(webhook, clock.unsafeCurrentTimeMillis())
    if (admission._tag === "Ignore") return answer(200, { ignored: admission.reason })
    if (admission._tag === "Refuse") return answer(401, { error: admission.error, detail: admission.detail })
    return acceptOnce(
      storeKey,
      webhook.dedupKey,
      webhook.topic,
      webhook.payload,
      triggers.storeChanged(storeKey, webhook.storeOrderId)
    )
  }

  /** `POST /webhooks/pod`: signed with the API client secret (or the configured key); a nonce is accepted once. */
  const podDelivery = async (path: string, request: IncomingMessage): Promise<Answer> => {
    if (Option.isNone(podSettings)) {
      return answer(404, { error: "not_configured", detail: "POD webhooks are not configured (pod.webhooks)" })
    }
    const body = await readBody(request)
    if (!(body instanceof Uint8Array)) return body
    const signedPath = podSettings.value.signedPath ?? path
    const verdict = verifyPodWebhook(
      podSettings.value,
      { path: signedPath, headers: request.headers, rawBody: body },
      clock.unsafeCurrentTimeMillis()
    )
    if (Either.isLeft(verdict)) {
      const { reason, detail } = verdict.left
      log(Effect.logWarning("POD webhook rejected").pipe(Effect.annotateLogs({ reason, detail })))
      return answer(401, { error: reason, detail })
    }
    const webhook = verdict.right
    const payload = webhook.payload === undefined
      ? { unreadable: Buffer.from(body).toString("utf8").slice(0, 8192) }
      : withoutApiKey(webhook.payload)
    const { followUp, ignored } = podFollowUp(webhook, triggers)
    return acceptOnce(POD_SOURCE, webhook.nonce, webhook.topic, payload, followUp, ignored)
  }

  const send = (response: ServerResponse, given: Answer, source?: string) => {
    if (source !== undefined && Option.isSome(metrics)) metrics.value.count(source, given.outcome)
    const text = JSON.stringify(given.body)
    response.writeHead(given.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...given.headers
    })
    response.end(text)
  }

  const listener: WebhookListener = (request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/"
    const receiver = receiverOf(path)
    if (receiver === undefined) {
      return send(response, answer(404, { error: "not_found", detail: "no webhook receiver at this path" }))
    }
    const handled = receiver === POD_SOURCE ? podDelivery(path, request) : storeDelivery(receiver, request)
    handled.then(
      (given) => send(response, given, receiver),
      (defect: unknown) => {
        log(Effect.logError("a webhook delivery could not be handled", String(defect)))
        send(response, answer(500, { error: "internal", detail: "the delivery could not be handled; retry later" }), receiver)
      }
    )
  }
  return listener
})
