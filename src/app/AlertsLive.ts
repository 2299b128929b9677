/**
 * Alerts in the daemon: the sender's loop over the outbox and the watch of the daemon's
 * conditions, on the configured channels. Without an `alerts:` section the outbox is still
 * written (the transitions do it) but nothing is sent.
 */
import { type Duration, Layer } from "effect"
import { ConditionWatchLive } from "../alerts/AlertConditions.js"
import { AlertDispatch } from "../alerts/AlertDispatch.js"
import { AlertSender, AlertSenderLoopLive, alertSettingsOf } from "../alerts/AlertSender.js"
import type { AppConfig } from "../config/AppConfig.js"
import { Replica } from "../schedule/ReplicaIdentity.js"

export interface AlertsOptions {
  readonly owner?: string
  /** How often the sender looks for alerts other replicas wrote (default 2 s). */
  readonly poll?: Duration.DurationInput
  /** How often the conditions are watched (default 15 s). */
  readonly watch?: Duration.DurationInput
}

/** The configured channels (for the daemon and `alerts test`; needs an HTTP client). */
export const AlertDispatchLive = (config: AppConfig) => AlertDispatch.Default(alertSettingsOf(config))

/** The outbox's sender over the configured channels (the channels merged out, for the conditions' watch). */
export const AlertSenderLive = (config: AppConfig, owner?: string) =>
  AlertSender.Default(alertSettingsOf(config)).pipe(Layer.provide(Replica.layer(owner)), Layer.provideMerge(AlertDispatchLive(config)))

/** The sender's loop and the conditions' watch; both idle when no channel is configured. */
export const AlertsLive = (config: AppConfig, options: AlertsOptions = {}) =>
  config.alerts === undefined || config.alerts.channels.length === 0
    ? Layer.empty
    : Layer.mergeAll(AlertSenderLoopLive(options.poll), ConditionWatchLive(config.alerts.thresholds, options.watch))
      .pipe(Layer.provide(AlertSenderLive(config, options.owner)))
