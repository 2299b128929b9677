/**
 * Alerts in the daemon: the sender's loop over the outbox and the watch of the daemon's
 * conditions, on the configured channels. Without an `alerts:` section the outbox is still
 * written (the transitions do it) but nothing is sent.
 */
import { Clock, type Duration, Effect, Layer, Schedule } from "effect"
import { logFailure, watchDatabase } from "../observability/DependencyHealth.js"
import { AlertsRepo } from "../repos/AlertsRepo.js"
import { ConditionWatchLive } from "../alerts/AlertConditions.js"
import { AlertDispatch } from "../alerts/AlertDispatch.js"
import { AlertSender, AlertSenderLoopLive, alertSettingsOf } from "../alerts/AlertSender.js"
import type { AppConfig } from "../config/AppConfig.js"

export interface AlertsOptions {
  /** How often the sender looks for alerts other replicas wrote (default 2 s). */
  readonly poll?: Duration.DurationInput
  /** How often the conditions are watched (default 15 s). */
  readonly watch?: Duration.DurationInput
}

/** The configured channels (for the daemon and `alerts test`; needs an HTTP client). */
export const AlertDispatchLive = (config: AppConfig) => AlertDispatch.Default(alertSettingsOf(config))

/**
 * The outbox's sender over the configured channels (the channels merged out, for the conditions' watch),
 * as the replica `Replica` names, its channel leases tied to that replica's session where a SessionTie is given.
 */
export const AlertSenderLive = (config: AppConfig) =>
  AlertSender.Default(alertSettingsOf(config)).pipe(Layer.provideMerge(AlertDispatchLive(config)))

/** How long the outbox keeps an alert once it is done with (sent, failed, or routed nowhere). */
const KEEP_DAYS = 30

/**
 * Forgets done alerts after 30 days, hourly (with or without channels: the transitions write the
 * outbox either way). Every replica may run it: the delete is idempotent.
 */
const OutboxPruneLive = Layer.scopedDiscard(Effect.gen(function*() {
  const repo = yield* AlertsRepo
  const prune = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const pruned = yield* watchDatabase("pruning the alert outbox", repo.pruneBefore(new Date(now - KEEP_DAYS * 86_400_000)))
    if (pruned > 0) yield* Effect.logInfo(`forgot ${pruned} alert(s) older than ${KEEP_DAYS} days`)
  }).pipe(Effect.catchAllCause((cause) => logFailure("pruning the alert outbox failed; it runs again within the hour", cause)))
  yield* prune.pipe(Effect.delay("1 minute"), Effect.repeat(Schedule.spaced("1 hour")), Effect.forkScoped)
}))

/** The sender's loop and the conditions' watch (idle when no channel is configured), and the outbox's pruning. */
export const AlertsLive = (config: AppConfig, options: AlertsOptions = {}) =>
  config.alerts === undefined || config.alerts.channels.length === 0
    ? OutboxPruneLive
    : Layer.mergeAll(
      AlertSenderLoopLive(options.poll),
      ConditionWatchLive(
        { ...config.alerts.thresholds, notCheckedOutAfterHours: config.reports.notCheckedOutAfterHours },
        options.watch
      ),
      OutboxPruneLive
    )
      .pipe(Layer.provide(AlertSenderLive(config)))
