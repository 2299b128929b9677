/**
 * The configured channels, built once, and sending a message past the outbox: `alerts test`,
 * and the database failing (the outbox lives in it). The outbox's sender (AlertSender.ts) sends
 * through the same channels.
 */
import { Clock, Effect, Exit } from "effect"
import type { AlertChannelConfig } from "../config/AlertsConfig.js"
import type { OutboxAlert } from "../repos/AlertsRepo.js"
import { type AlertChannel, type AlertSendError, makeAlertChannel } from "./AlertChannels.js"
import { messageOf } from "./AlertMessages.js"
import { type AlertRule, routeAlert } from "./AlertRules.js"

export interface DispatchSettings {
  readonly channels: ReadonlyArray<AlertChannelConfig>
  readonly rules?: ReadonlyArray<AlertRule> | undefined
  /** Where links to an order's story point. */
  readonly linkBase: string
}

/** A channel's result of a direct send. */
export interface DirectSend {
  readonly channel: string
  readonly kind: AlertChannel["kind"]
  readonly target: string
  /** Nothing routed to this channel: nothing was sent. */
  readonly skipped: boolean
  readonly outcome: Exit.Exit<void, AlertSendError>
}

export class AlertDispatch extends Effect.Service<AlertDispatch>()("podsync/AlertDispatch", {
  scoped: (settings: DispatchSettings) =>
    Effect.gen(function*() {
      const channels: ReadonlyArray<AlertChannel> = yield* Effect.forEach(settings.channels, makeAlertChannel)
      const names = channels.map((c) => c.name)
      const routeOf = (alert: OutboxAlert) => routeAlert(settings.rules, names, alert)

      /** Sends the alerts through the channels their rules name, or through `only` (every channel for "*"), as one message each. */
      const sendDirect = (alerts: ReadonlyArray<OutboxAlert>, only?: string) =>
        Effect.forEach(
          channels.filter((c) => only === undefined || only === "*" || c.name === only),
          (channel) =>
            Effect.gen(function*() {
              const routed = only !== undefined ? alerts : alerts.filter((a) => routeOf(a).includes(channel.name))
              const now = yield* Clock.currentTimeMillis
              const outcome = routed.length === 0
                ? Exit.void
                : yield* Effect.exit(channel.send(messageOf(routed, settings.linkBase), `${channel.name}-direct-${now}`))
              return {
                channel: channel.name,
                kind: channel.kind,
                target: channel.target,
                skipped: routed.length === 0,
                outcome
              } satisfies DirectSend
            }),
          { concurrency: "unbounded" }
        )

      return { channels, names, routeOf, linkBase: settings.linkBase, sendDirect }
    })
}) {}
