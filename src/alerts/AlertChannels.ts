/**
 * The channels an alert goes out on: a Slack-compatible incoming webhook, email over SMTP
 * (nodemailer), and a generic webhook whose JSON body is signed with HMAC-SHA256. Each is built
 * once from its configuration; `send` either delivers the message or fails with what went wrong
 * in words that never contain the channel's secrets (a Slack URL is a token; so is an SMTP
 * password): a status, a timeout, a refused connection.
 */
import { createHmac } from "node:crypto"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Data, Duration, Effect, Redacted, type Scope } from "effect"
import nodemailer from "nodemailer"
import type { AlertChannelConfig } from "../config/AlertsConfig.js"
import type { AlertMessage } from "./AlertMessages.js"

export class AlertSendError extends Data.TaggedError("AlertSendError")<{
  readonly channel: string
  /** What went wrong, safe to log and show (no URL, no credential). */
  readonly reason: string
}> {
  override get message() {
    return `alert channel ${this.channel}: ${this.reason}`
  }
}

export type ChannelKind = "slack" | "email" | "webhook"

export interface AlertChannel {
  readonly name: string
  readonly kind: ChannelKind
  /** Where it goes, as a person may see it (host only: a webhook URL's path can be a token). */
  readonly target: string
  readonly send: (message: AlertMessage, messageId: string) => Effect.Effect<void, AlertSendError>
}

/** The header of the generic webhook that carries the signature: `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export const SIGNATURE_HEADER = "x-podsync-signature"
/** Unix seconds at signing; a receiver refuses a timestamp more than 5 minutes from its clock (replays). */
export const TIMESTAMP_HEADER = "x-podsync-timestamp"
/** The message's id: the same on a retry of the same message, so a receiver can drop a repeat. */
export const DELIVERY_HEADER = "x-podsync-delivery"

/** The generic webhook's signature over `<timestamp>.<body>` (README "Alerts"). */
export const signAlertBody = (secret: string, timestamp: string, body: string): string =>
  `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : "(invalid URL)")

/** A failure of a request as words without the URL (the platform's errors print it, token and all). */
const requestFailure = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "_tag" in error) {
    if (error._tag === "TimeoutException") return "no answer in time"
    if (error._tag === "ResponseError" && "response" in error) {
      const status = (error as { readonly response: { readonly status: number } }).response.status
      return `HTTP ${status}`
    }
    if (error._tag === "RequestError") {
      const cause = "cause" in error ? (error as { readonly cause: unknown }).cause : undefined
      const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
      const inner = typeof cause === "object" && cause !== null && "cause" in cause
        ? (cause as { readonly cause: unknown }).cause
        : undefined
      const innerCode = typeof inner === "object" && inner !== null && "code" in inner ? String(inner.code) : undefined
      return `no connection (${innerCode ?? code ?? "transport error"})`
    }
  }
  return "the request failed"
}

const postJson = (
  client: HttpClient.HttpClient,
  channel: string,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeout: Duration.Duration
) =>
  client.execute(
    HttpClientRequest.post(url).pipe(HttpClientRequest.setHeaders(headers), HttpClientRequest.bodyText(body, "application/json"))
  )
    .pipe(
      Effect.flatMap((response) =>
        response.status >= 200 && response.status < 300
          ? Effect.void
          : Effect.fail(new AlertSendError({ channel, reason: `HTTP ${response.status}` }))
      ),
      Effect.scoped,
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => new AlertSendError({ channel, reason: `no answer within ${Duration.format(timeout)}` })
      }),
      Effect.catchIf(
        (e): e is Exclude<typeof e, AlertSendError> => !(e instanceof AlertSendError),
        (e) => Effect.fail(new AlertSendError({ channel, reason: requestFailure(e) }))
      )
    )

/** Slack's incoming webhooks (and the chat tools that copy them) take `{"text": …}`; links and bullets render. */
const slackChannel = (name: string, url: Redacted.Redacted<string>, timeout: Duration.Duration) =>
  Effect.map(HttpClient.HttpClient, (client): AlertChannel => ({
    name,
    kind: "slack",
    target: hostOf(Redacted.value(url)),
    send: (message) => postJson(client, name, Redacted.value(url), JSON.stringify({ text: message.text }), {}, timeout)
  }))

const webhookChannel = (name: string, url: string, secret: Redacted.Redacted<string>, timeout: Duration.Duration) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    return {
      name,
      kind: "webhook",
      target: hostOf(url),
      send: (message, messageId) =>
        Effect.gen(function*() {
          const timestamp = String(Math.floor((yield* Effect.clockWith((c) => c.currentTimeMillis)) / 1000))
          const body = JSON.stringify({ id: messageId, subject: message.subject, text: message.text, alerts: message.alerts })
          yield* postJson(client, name, url, body, {
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: signAlertBody(Redacted.value(secret), timestamp, body),
            [DELIVERY_HEADER]: messageId
          }, timeout)
        })
    } satisfies AlertChannel as AlertChannel
  })

type EmailConfig = NonNullable<AlertChannelConfig["email"]>

/** What an SMTP failure says, without the credentials (nodemailer's messages name the command and the server's answer). */
const smtpFailure = (error: unknown): string => {
  const e = error as { readonly code?: unknown; readonly responseCode?: unknown; readonly message?: unknown }
  const code = typeof e.code === "string" ? e.code : undefined
  if (typeof e.responseCode === "number") return `SMTP ${e.responseCode}${code === undefined ? "" : ` (${code})`}`
  if (code === "ETIMEDOUT") return "no answer in time (SMTP)"
  if (code === "ECONNECTION" || code === "ESOCKET") return `no connection (SMTP ${code})`
  if (code === "EAUTH") return "the SMTP server refused the user and password"
  return `SMTP failure${code === undefined ? "" : ` (${code})`}`
}

const emailChannel = (name: string, email: EmailConfig, timeout: Duration.Duration) =>
  Effect.gen(function*() {
    const ms = Duration.toMillis(timeout)
    const auth = email.user !== undefined && email.password !== undefined
      ? { user: Redacted.value(email.user), pass: Redacted.value(email.password) }
      : undefined
    const transport = yield* Effect.acquireRelease(
      Effect.sync(() =>
        nodemailer.createTransport({
          host: email.host,
          port: email.port,
          secure: email.tls === "implicit",
          requireTLS: email.tls === "starttls",
          ignoreTLS: email.tls === "none",
          ...(auth === undefined ? {} : { auth }),
          connectionTimeout: ms,
          greetingTimeout: ms,
          socketTimeout: ms,
          logger: false
        })
      ),
      (t) => Effect.sync(() => t.close())
    )
    return {
      name,
      kind: "email",
      // Whom it mails, and through which server: `alerts test` and /status show both.
      target: `${email.to.join(", ")} via ${email.host}:${email.port}`,
      send: (message, messageId) =>
        Effect.tryPromise({
          try: () =>
            transport.sendMail({
              from: email.from,
              to: [...email.to],
              subject: message.subject,
              text: message.text,
              messageId: `<${messageId}@podsync>`
            }),
          catch: (error) => new AlertSendError({ channel: name, reason: smtpFailure(error) })
        }).pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new AlertSendError({ channel: name, reason: `no answer within ${Duration.format(timeout)} (SMTP)` })
          }),
          Effect.asVoid
        )
    } satisfies AlertChannel as AlertChannel
  })

/** The channel a configuration entry describes (needs an HttpClient; an email channel's transport is closed with the scope). */
export const makeAlertChannel = (
  config: AlertChannelConfig
): Effect.Effect<AlertChannel, never, HttpClient.HttpClient | Scope.Scope> => {
  const timeout = Duration.seconds(config.timeoutSeconds)
  if (config.slack !== undefined) return slackChannel(config.name, config.slack.url, timeout)
  if (config.webhook !== undefined) return webhookChannel(config.name, config.webhook.url, config.webhook.secret, timeout)
  if (config.email !== undefined) return emailChannel(config.name, config.email, timeout)
  return Effect.dieMessage(`alert channel ${config.name} has no kind (the configuration schema requires one)`)
}
