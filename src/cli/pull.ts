import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Console, Effect, Option, Schema } from "effect"
import { CommandLive } from "../app/CommandLive.js"
import { type AppConfig, laterPackageLooks } from "../config/AppConfig.js"
import { pullStore } from "../pipeline/PullStage.js"
import { reconcileAll } from "../pipeline/ReconcileStage.js"
import { askDaemon, askEmbeddedDaemon, configCommand, configOption, daemonUrl, storeNamed, withConfig } from "./AppRuntime.js"

const Accepted = Schema.Struct({ accepted: Schema.Unknown })

/**
 * Asks a running daemon to do it: on the embedded database the daemon holds it alone (a refusal is
 * said as it is), on PostgreSQL one on this machine's loopback is asked first. Whether one took it.
 */
const handedToDaemon = (app: AppConfig, path: string) =>
  app.database.url === undefined
    ? Effect.map(askEmbeddedDaemon(app, HttpClientRequest.post(daemonUrl(app, path)), Accepted, "10 seconds"), Option.isSome)
    : askDaemon(app, "POST", path, Accepted).pipe(Effect.as(true), Effect.orElseSucceed(() => false))

const storeOption = Options.text("store").pipe(
  Options.withPseudoName("KEY"),
  Options.withDescription("only this store (its key; default: every store)"),
  Options.optional
)

/** `podsync pull [--store KEY]`: pull new and changed orders now (through the running daemon when there is one). */
export const pullCommand = Command.make(
  "pull",
  { config: configOption, store: storeOption },
  ({ config, store }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const keys = store._tag === "Some" ? [(yield* storeNamed(app, store.value)).key] : app.stores.map((s) => s.key)
        const viaDaemon = yield* handedToDaemon(app, store._tag === "Some" ? `/pull?store=${encodeURIComponent(store.value)}` : "/pull")
        if (viaDaemon) return yield* Console.log(`The running daemon is pulling ${keys.join(", ")}; podsync status shows the result.`)
        // No daemon: this process opens the database (only now: a daemon on the embedded one holds it).
        yield* Effect.forEach(keys, (key) =>
          Effect.flatMap(pullStore(key), (result) =>
            Console.log(
              `${key}: ${result.inserted} new, ${result.changed} changed, ${result.unreadable} unreadable (${result.pages} pages)`
            ))).pipe(Effect.provide(CommandLive(app)))
      }))
).pipe(Command.withDescription("Pull new and changed store orders now"))

/** `podsync reconcile`: follow every order with a draft at the POD service now. */
export const reconcileCommand = configCommand("reconcile", (app) =>
  Effect.gen(function*() {
    const viaDaemon = yield* handedToDaemon(app, "/reconcile")
    if (viaDaemon) return yield* Console.log("The running daemon is reconciling; podsync status shows the result.")
    const totals = yield* reconcileAll("cli", laterPackageLooks(app.pod)).pipe(Effect.provide(CommandLive(app)))
    const conditions = totals.conditionsHeld + totals.conditionsCleared === 0
      ? ""
      : ` ${totals.conditionsHeld} held for an address or stock problem at the POD service, ${totals.conditionsCleared} let go.`
    const later = totals.laterPackagesFound === 0 ? "" : ` ${totals.laterPackagesFound} fulfilled order(s) shipped another package.`
    yield* Console.log(`Followed ${totals.followed} orders with ${totals.requests} requests; ${totals.moved} moved.${conditions}${later}`)
  })).pipe(Command.withDescription("Follow drafts and orders at the POD service now"))
