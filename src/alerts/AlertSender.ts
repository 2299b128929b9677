/**
 * Sends the outbox: routes new alerts to their channels (rules), then for each channel, while
 * holding its lease (so of several replicas one sends on it at a time), decides with the digest
 * what goes now, sends it as one message, and marks it sent; a failed send is retried with
 * backoff, then failed for good and shown in /status and the report. A replica killed between
 * a transition and the send leaves the alert in the outbox for whoever runs next; one killed
 * while sending leaves the channel's lease to expire (on PostgreSQL: its session's end and one send's
 * timeout, SessionTie), and the message may then go twice: its
 * id (the webhook's X-Podsync-Delivery, the email's Message-ID) stays the same so a receiver
 * can drop the repeat.
 */
import { Cause, Clock, Duration, Effect, Exit, Layer, Option, Queue, Schedule } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { Db } from "../db/Db.js"
import { SessionTie } from "../db/SessionTie.js"
import { logFailure, watchDatabase } from "../observability/DependencyHealth.js"
import { AlertsRepo, type PendingDelivery } from "../repos/AlertsRepo.js"
import { Replica } from "../schedule/ReplicaIdentity.js"
import type { AlertChannel, AlertSendError } from "./AlertChannels.js"
import { AlertDispatch, type DispatchSettings } from "./AlertDispatch.js"
import { messageOf } from "./AlertMessages.js"
import { decideSend, type DigestSettings, retryAt } from "./Digest.js"

export interface AlertSettings extends DispatchSettings {
  readonly digest: DigestSettings
  readonly retry: { readonly attempts: number; readonly firstDelayMs: number }
}

/** Quiet hours as configured: none unless both ends are given (their variables unset in the example: off). */
const quietHoursOf = (quiet: NonNullable<AppConfig["alerts"]>["quietHours"]) =>
  quiet?.from === undefined || quiet.to === undefined ? undefined : { from: quiet.from, to: quiet.to, timezone: quiet.timezone }

/** The sender's settings from `alerts:` (none: no channel, the outbox is only recorded). */
export const alertSettingsOf = (config: AppConfig): AlertSettings => {
  const alerts = config.alerts
  const host = config.server.host === "0.0.0.0" || config.server.host === "::" ? "127.0.0.1" : config.server.host
  return {
    channels: alerts?.channels ?? [],
    rules: alerts?.rules,
    digest: { groupMs: (alerts?.digestMinutes ?? 15) * 60_000, quietHours: quietHoursOf(alerts?.quietHours) },
    retry: { attempts: alerts?.retry.attempts ?? 6, firstDelayMs: (alerts?.retry.firstDelaySeconds ?? 30) * 1000 },
    linkBase: alerts?.linkBaseUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${config.server.port}`
  }
}

/** What one channel did in one pass. */
export interface ChannelPass {
  readonly channel: string
  /** Deliveries sent in this pass (one message). */
  readonly sent: number
  /** Deliveries whose attempt failed in this pass; `gaveUp` of them are failed for good. */
  readonly failed: number
  readonly gaveUp: number
  /** When this channel has something to do next, if it waits (the digest, a retry, quiet hours). */
  readonly nextAt: number | null
  /** Another replica holds the channel. */
  readonly busy: boolean
}

export interface SenderPass {
  readonly routed: number
  readonly channels: ReadonlyArray<ChannelPass>
}

export class AlertSender extends Effect.Service<AlertSender>()("podsync/AlertSender", {
  scoped: (settings: AlertSettings) =>
    Effect.gen(function*() {
      const repo = yield* AlertsRepo
      const owner = yield* Replica
      const { channels, routeOf } = yield* AlertDispatch
      const wake = yield* Queue.sliding<void>(1)
      // A send holds its channel well past its own timeout: a replica killed mid-send frees it after this,
      // or, its lease tied to its database session (PostgreSQL, SessionTie), one send's timeout after that
      // session is seen gone.
      const sendMs = Math.max(0, ...settings.channels.map((c) => c.timeoutSeconds)) * 1000
      const leaseMs = Math.max(sendMs * 2 + 10_000, 20_000)
      const tie = Option.getOrElse(yield* Effect.serviceOption(SessionTie), () => SessionTie.untied)

      const failedAttempt = (channel: AlertChannel, deliveries: ReadonlyArray<PendingDelivery>, error: AlertSendError, now: number) =>
        Effect.gen(function*() {
          const byRetry = new Map<number | null, Array<number>>()
          for (const d of deliveries) {
            const at = retryAt(d.attempts + 1, now, settings.retry)
            byRetry.set(at, [...(byRetry.get(at) ?? []), d.deliveryId])
          }
          for (const [at, ids] of byRetry) yield* repo.markAttemptFailed(ids, error.reason, at === null ? null : new Date(at))
          const gaveUp = byRetry.get(null)?.length ?? 0
          const annotations = { channel: channel.name, alerts: deliveries.length, reason: error.reason }
          yield* gaveUp > 0
            ? Effect.logError(
              `alert channel ${channel.name} failed ${settings.retry.attempts} times: ${gaveUp} alert(s) marked failed (podsync status lists them)`
            ).pipe(Effect.annotateLogs(annotations))
            : Effect.logWarning(`alert channel ${channel.name} failed (${error.reason}); retrying with backoff`).pipe(
              Effect.annotateLogs(annotations)
            )
          return gaveUp
        })

      const sendOn = (channel: AlertChannel): Effect.Effect<ChannelPass, unknown> =>
        Effect.gen(function*() {
          const idle = { channel: channel.name, sent: 0, failed: 0, gaveUp: 0, nextAt: null, busy: false }
          const taken = yield* repo.takeChannel(channel.name, owner, leaseMs, yield* tie.tied, sendMs)
          if (taken === undefined) return { ...idle, busy: true }
          return yield* Effect.gen(function*() {
            const pending = yield* repo.pendingOn(channel.name)
            const now = yield* Clock.currentTimeMillis
            const decision = decideSend(pending, taken.lastSentAt?.getTime() ?? null, now, settings.digest)
            if (decision._tag === "Idle") return idle
            if (decision._tag === "Wait") return { ...idle, nextAt: decision.until }
            const deliveries = decision.deliveries
            const ids = deliveries.map((d) => d.deliveryId)
            // The same deliveries on the same attempt make the same id: a repeat after a crash can be recognised.
            const messageId = `${channel.name}-${ids[0]}-${ids.length}-${deliveries[0]?.attempts ?? 0}`
            const message = messageOf(deliveries.map((d) => d.alert), settings.linkBase)
            const sent = yield* Effect.exit(channel.send(message, messageId))
            if (Exit.isSuccess(sent)) {
              yield* repo.markSent(channel.name, ids, messageId)
              yield* Effect.logInfo(`alert sent on ${channel.name}: ${message.subject.replace(/^podsync: /, "")}`).pipe(
                Effect.annotateLogs({ channel: channel.name, alerts: ids.length, messageId })
              )
              return { ...idle, sent: ids.length, nextAt: pending.length > ids.length ? now : null }
            }
            const error = Cause.failureOption(sent.cause)
            if (Option.isNone(error)) return yield* Effect.failCause(sent.cause)
            const gaveUp = yield* failedAttempt(channel, deliveries, error.value, now)
            return { ...idle, failed: ids.length, gaveUp, nextAt: now }
          }).pipe(Effect.ensuring(repo.releaseChannel(channel.name, owner).pipe(Effect.ignore)))
        })

      /** One pass: route what is new, then let each channel send what the digest says is due. */
      const runOnce: Effect.Effect<SenderPass, unknown> = Effect.gen(function*() {
        const routed = yield* repo.routeUnrouted(routeOf)
        const passes = yield* Effect.forEach(channels, sendOn, { concurrency: "unbounded" })
        return { routed, channels: passes }
      })

      return {
        runOnce,
        /** Something was written to the outbox here: look at once instead of at the next poll. */
        kick: Queue.offer(wake, undefined).pipe(Effect.asVoid),
        channels: channels.map((c) => ({ name: c.name, kind: c.kind, target: c.target })),
        /** The loop's wait: a kick, the next due time, or the poll, whichever comes first. */
        waitFor: (nextAt: number | null, poll: Duration.Duration) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const until = nextAt === null ? Duration.toMillis(poll) : Math.min(Duration.toMillis(poll), Math.max(0, nextAt - now))
            yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(Duration.millis(until)))
          })
      }
    }),
  dependencies: [AlertsRepo.Default]
}) {}

/** Gives back channel leases a killed predecessor left, on a database this process holds alone. */
const releaseStaleChannels = Effect.gen(function*() {
  if ((yield* Db).dialect !== "pglite") return
  yield* watchDatabase("releasing a previous run's alert channels", (yield* AlertsRepo).releaseAllChannels).pipe(Effect.ignore)
})

/** The sender's loop: a pass, then wait for a kick, the digest's next time or the poll; failures are logged and retried. */
export const AlertSenderLoopLive = (poll: Duration.DurationInput = "2 seconds") =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const sender = yield* AlertSender
    if (sender.channels.length === 0) return
    yield* releaseStaleChannels
    const every = Duration.decode(poll)
    const pass = watchDatabase("sending alerts", sender.runOnce).pipe(
      Effect.map((p) => {
        const next = p.channels.map((c) => c.nextAt).filter((n): n is number => n !== null)
        return next.length === 0 ? null : Math.min(...next)
      }),
      Effect.catchAllCause((cause) => Effect.as(logFailure("sending alerts failed; retrying at the next turn", cause), null))
    )
    yield* pass.pipe(
      Effect.flatMap((nextAt) => sender.waitFor(nextAt, every)),
      Effect.repeat(Schedule.forever),
      Effect.forkScoped
    )
  }))
