import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { ExternalApisLive } from "../app/CommandLive.js"
import { dbLayer } from "../app/DatabaseLive.js"
import { rehearsalSettingsOf } from "../app/RehearsalSettings.js"
import { storeSettingsOf } from "../app/StoresLive.js"
import type { AppConfig } from "../config/AppConfig.js"
import { migrateToLatest } from "../db/Migrator.js"
import { PlanningInputsReadOnly } from "../pipeline/PlanningInputs.js"
import { rehearseStore } from "../pipeline/Rehearse.js"
import { reportRehearsal, rehearsalSummary, type RehearsalSummary } from "../reporting/RehearsalReports.js"
import { formatSeconds } from "../reports/RehearsalFormats.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, storeNamed, UsageError, withConfig } from "./AppRuntime.js"

/** A rehearsal reads a month of orders and prices each: the daemon may take minutes to answer. */
const DAEMON_TIMEOUT = "30 minutes"
export const MAX_REHEARSAL_DAYS = 365

const Money = Schema.Struct({ currency: Schema.String, amount: Schema.String })
const Groups = Schema.Array(Schema.Struct({ reason: Schema.String, orders: Schema.Number }))
/** What the daemon answers POST /rehearse with: the part of the summary this command prints. */
const Answer = Schema.Struct({
  summary: Schema.Struct({
    storeKey: Schema.String,
    days: Schema.Number,
    counts: Schema.Struct({ orders: Schema.Number, drafted: Schema.Number, held: Schema.Number, skipped: Schema.Number }),
    held: Groups,
    skipped: Groups,
    toMap: Schema.Array(Schema.Struct({ sku: Schema.String, orders: Schema.Number, suggestion: Schema.String })),
    podCost: Schema.Array(Money),
    paid: Schema.Array(Money),
    margin: Schema.Array(Money),
    economyAsStandard: Schema.Number,
    warnings: Schema.Number,
    api: Schema.Struct({ quoteCalls: Schema.Number, coverageCalls: Schema.Number, budgetSeconds: Schema.Number, elapsedMs: Schema.Number }),
    files: Schema.Array(Schema.Struct({ path: Schema.String }))
  })
})
type Printable = typeof Answer.Type.summary

/** A daemon on the embedded database holds it alone: it runs the rehearsal. `None` when no daemon answers. */
const askDaemon = (app: AppConfig, store: string, days: number) =>
  askEmbeddedDaemon(
    app,
    HttpClientRequest.post(daemonUrl(app, `/rehearse?${new URLSearchParams({ store, days: String(days) })}`)),
    Answer,
    DAEMON_TIMEOUT
  ).pipe(Effect.map(Option.map((answer) => answer.summary)))

/**
 * Runs the rehearsal in this process. It writes nothing to the pipeline's tables: it reads the
 * mapping file and the mappings and catalog the daemon cached, and its POD and store calls go
 * through the budgets shared in the database (so a daemon on PostgreSQL is never overrun).
 */
export const rehearseHere = (app: AppConfig, store: string, days: number) =>
  Effect.zipRight(
    migrateToLatest,
    reportRehearsal(rehearseStore({ storeKey: store, days, budget: app.pod.rateLimit }), rehearsalSettingsOf(app))
  )
    .pipe(
      Effect.map(rehearsalSummary),
      Effect.provide(
        Layer.mergeAll(PlanningInputsReadOnly(app.stores.map(storeSettingsOf)), ExternalApisLive(app)).pipe(
          Layer.provideMerge(Layer.mergeAll(MappingsRepo.Default, CatalogRepo.Default)),
          Layer.provideMerge(NodeHttpClient.layerUndici),
          Layer.provideMerge(dbLayer(app))
        )
      ),
      Effect.catchTags({
        RehearsalStoreError: (error) => Effect.fail(new CliFailure({ message: error.message })),
        ReportFilesError: (error) => Effect.fail(new CliFailure({ message: error.message }))
      })
    )

const list = (amounts: ReadonlyArray<{ readonly currency: string; readonly amount: string }>) =>
  amounts.length === 0 ? "nothing" : amounts.map((m) => `${m.amount} ${m.currency}`).join(" + ")

/** What the command prints: the counts, the reasons, the money, the API use and the files. */
export const renderRehearsal = (s: Printable | RehearsalSummary, source: string): string => {
  const c = s.counts
  const groups = (g: ReadonlyArray<{ readonly reason: string; readonly orders: number }>) =>
    g.map((x) => `${x.reason} ${x.orders}`).join(", ")
  return [
    `${s.storeKey}, last ${s.days} day(s): ${c.orders} orders: ${c.drafted} would be drafted, ${c.held} held, ${c.skipped} skipped (${source})`,
    ...(s.held.length > 0 ? [`  held: ${groups(s.held)}`] : []),
    ...(s.skipped.length > 0 ? [`  skipped: ${groups(s.skipped)}`] : []),
    ...s.toMap.map((m) => `  to map: ${m.sku} (${m.orders} order(s)): ${m.suggestion}`),
    `  POD cost ${list(s.podCost)}; buyers paid ${list(s.paid)}; margin ${list(s.margin)}`,
    ...(s.economyAsStandard > 0 ? [`  ${s.economyAsStandard} Economy order(s) would be sent as Standard`] : []),
    ...(s.warnings > 0 ? [`  ${s.warnings} warning(s) the POD service would give (see the report)`] : []),
    `  ${s.api.quoteCalls} price quote(s), ${s.api.coverageCalls} coverage call(s): at least ${
      formatSeconds(s.api.budgetSeconds)
    } under the POD budget; took ${formatSeconds(Math.round(s.api.elapsedMs / 1000))}`,
    ...s.files.map((f) => `  ${f.path}`)
  ].join("\n")
}

/**
 * `podsync rehearse --store KEY [--days N]`: the store's orders of the last N days (default 30)
 * through today's mapping, catalog and shipping rules and the POD service's price quotes, without
 * writing anything at the store, at the POD service or in the pipeline's tables; the report is
 * written under reports.dir (HTML, CSV, JSON) and summed up here.
 */
export const rehearseCommand = Command.make(
  "rehearse",
  {
    config: configOption,
    store: Options.text("store").pipe(Options.withPseudoName("KEY"), Options.withDescription("the store to rehearse (its key)")),
    days: Options.integer("days").pipe(
      Options.withPseudoName("N"),
      Options.withDescription("how many days of orders to read (default 30)"),
      Options.withDefault(30)
    )
  },
  ({ config, days, store }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        yield* storeNamed(app, store)
        if (days < 1 || days > MAX_REHEARSAL_DAYS) {
          return yield* new UsageError({ message: `--days must be from 1 to ${MAX_REHEARSAL_DAYS}, got ${days}` })
        }
        const fromDaemon = yield* askDaemon(app, store, days)
        const summary = Option.isSome(fromDaemon) ? fromDaemon.value : yield* rehearseHere(app, store, days)
        yield* Console.log(renderRehearsal(summary, Option.isSome(fromDaemon) ? "run by the running daemon" : "run here"))
      }))
).pipe(Command.withDescription("Rehearse going live on a store's recent orders, writing nothing"))
