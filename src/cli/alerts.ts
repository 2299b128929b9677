/**
 * `podsync alerts test [--channel NAME]`: sends a test message through each configured alert
 * channel (or the one named) and says, channel by channel, whether it went and if not why, in
 * words without the channel's secrets. Exit 1 when a channel failed or none is configured.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Cause, Clock, Console, Effect, Exit, Layer, Option } from "effect"
import { AlertDispatch } from "../alerts/AlertDispatch.js"
import { AlertDispatchLive } from "../app/AlertsLive.js"
import type { AppConfig } from "../config/AppConfig.js"
import { CliFailure, configOption, withConfig } from "./AppRuntime.js"

const testAlert = (now: number, channel: string | undefined) => ({
  id: 0,
  kind: "test",
  storeKey: null,
  orderId: null,
  referenceId: null,
  reason: null,
  resolved: false,
  createdAt: new Date(now),
  data: {
    title: `podsync test alert${channel === undefined ? "" : ` for channel ${channel}`}`,
    detail: "sent by `podsync alerts test`: if you read this, alerts reach you here"
  }
})

const runTest = (config: AppConfig, only: Option.Option<string>) =>
  Effect.gen(function*() {
    const channels = config.alerts?.channels ?? []
    if (channels.length === 0) {
      return yield* new CliFailure({ message: 'no alert channel is configured: add an alerts: section (README, "Alerts")' })
    }
    const name = Option.getOrUndefined(only)
    if (name !== undefined && !channels.some((c) => c.name === name)) {
      return yield* new CliFailure({
        message: `no alert channel is named "${name}"; the channels are ${channels.map((c) => c.name).join(", ")}`
      })
    }
    const dispatch = yield* AlertDispatch
    const now = yield* Clock.currentTimeMillis
    const results = yield* dispatch.sendDirect([testAlert(now, name)], name ?? "*")
    let failed = 0
    for (const result of results) {
      const said = Exit.match(result.outcome, {
        onSuccess: () => "sent",
        onFailure: (cause) => {
          failed += 1
          return `FAILED: ${Option.match(Cause.failureOption(cause), { onNone: () => "an unexpected failure", onSome: (e) => e.reason })}`
        }
      })
      yield* Console.log(`${result.channel} (${result.kind} to ${result.target}): ${said}`)
    }
    if (failed > 0) return yield* new CliFailure({ message: `${failed} of ${results.length} alert channel(s) failed` })
  }).pipe(
    Effect.provide(AlertDispatchLive(config).pipe(Layer.provide(NodeHttpClient.layerUndici))),
    Effect.scoped
  )

const testCommand = Command.make(
  "test",
  {
    config: configOption,
    channel: Options.text("channel").pipe(
      Options.withDescription("send through this channel only (default: every channel)"),
      Options.optional
    )
  },
  ({ channel, config }) => withConfig(config, (app) => runTest(app, channel))
).pipe(Command.withDescription("Send a test message through each alert channel (or --channel NAME) and say what happened"))

export const alertsCommand = Command.make("alerts").pipe(
  Command.withDescription("Check the alert channels: podsync alerts test [--channel NAME]"),
  Command.withSubcommands([testCommand])
)
