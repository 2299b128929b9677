import * as fs from "node:fs/promises"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Console, Effect, Layer, Option, Schema } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { migrateToLatest } from "../db/Migrator.js"
import { sameRows } from "../domain/MappingCells.js"
import { chooseTable, describeIssues, readMappingFile } from "../pipeline/MappingFile.js"
import { suggestDraft } from "../pipeline/SuggestDraft.js"
import { PodLive } from "../app/PodLive.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, withConfig } from "./AppRuntime.js"
import { dbLayer } from "../app/DatabaseLive.js"

const Report = Schema.Struct({
  storeKey: Schema.String,
  file: Schema.String,
  outcome: Schema.Literal("loaded", "partial", "kept_previous", "unchanged", "unreadable"),
  rows: Schema.Number,
  issues: Schema.Array(Schema.String)
})
type Report = typeof Report.Type
const Suggestion = Schema.Struct({
  csv: Schema.String,
  rows: Schema.Number,
  matched: Schema.Number,
  unmatched: Schema.Array(Schema.String),
  notes: Schema.Array(Schema.String),
  orderLines: Schema.Number,
  fileRows: Schema.Number,
  catalog: Schema.Literal("cache", "live")
})

const storeOption = (description: string) => Options.text("store").pipe(Options.withPseudoName("KEY"), Options.withDescription(description))

const storeNamed = (app: AppConfig, k: string) => {
  const store = app.stores.find((s) => s.key === k)
  return store !== undefined
    ? Effect.succeed(store)
    : Effect.fail(
      new CliFailure({ message: `no store "${k}" in the configuration (stores: ${app.stores.map((s) => s.key).join(", ") || "none"})` })
    )
}

const storesOf = (app: AppConfig, key: Option.Option<string>) =>
  Option.match(key, {
    onNone: () => Effect.succeed(app.stores),
    onSome: (k) => Effect.map(storeNamed(app, k), (store) => [store])
  })

/** Loads files straight into the database; held orders of a changed store become due, for the daemon to re-plan. */
const loadIntoDatabase = (stores: AppConfig["stores"]) =>
  Effect.gen(function*() {
    yield* migrateToLatest
    const repo = yield* MappingsRepo
    const orders = yield* OrdersRepo
    return yield* Effect.forEach(stores, (store) =>
      Effect.gen(function*() {
        const read = yield* Effect.either(readMappingFile(store.mappings))
        const stored = yield* repo.load(store.key)
        const previous = stored !== undefined && stored.sourceFile === store.mappings ? stored.table : undefined
        if (read._tag === "Left") {
          return {
            storeKey: store.key,
            file: store.mappings,
            outcome: "unreadable",
            rows: previous?.rows.length ?? 0,
            issues: [read.left.message]
          } satisfies Report
        }
        const { outcome, table } = chooseTable(read.right, previous)
        const changed = previous === undefined || !sameRows(previous, table)
        if (changed) {
          yield* repo.replace(store.key, store.mappings, table)
          yield* orders.wake(["held"], store.key)
        }
        return {
          storeKey: store.key,
          file: store.mappings,
          outcome: changed ? outcome : outcome === "loaded" ? "unchanged" : outcome,
          rows: table.rows.length,
          issues: describeIssues(read.right)
        } satisfies Report
      }))
  })

const describeReport = (r: Report) => {
  switch (r.outcome) {
    case "loaded":
      return `${r.storeKey}: loaded ${r.rows} rows from ${r.file}`
    case "unchanged":
      return `${r.storeKey}: ${r.file} is already loaded (${r.rows} rows)`
    case "partial":
      return `${r.storeKey}: loaded the ${r.rows} valid rows of ${r.file}; the ${r.issues.length} issue(s) above are left out`
    case "kept_previous":
      return `${r.storeKey}: ${r.file} has ${r.issues.length} issue(s): the previous ${r.rows} rows stay loaded until it is fixed`
    case "unreadable":
      return `${r.storeKey}: ${r.file} could not be read: the previous ${r.rows} rows stay loaded`
  }
}

const loadCommand = Command.make(
  "load",
  { config: configOption, store: storeOption("load only this store's file (default: every store)").pipe(Options.optional) },
  ({ config, store }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const stores = yield* storesOf(app, store)
        const fromDaemon = yield* askEmbeddedDaemon(
          app,
          HttpClientRequest.post(daemonUrl(app, "/mappings/reload")).pipe(
            HttpClientRequest.setUrlParams(Option.match(store, { onNone: () => ({}), onSome: (k) => ({ store: k }) }))
          ),
          Schema.Struct({ reports: Schema.Array(Report) }),
          "60 seconds"
        )
        const reports = Option.isSome(fromDaemon)
          ? fromDaemon.value.reports
          : yield* loadIntoDatabase(stores).pipe(
            Effect.provide(Layer.mergeAll(MappingsRepo.Default, OrdersRepo.Default).pipe(Layer.provideMerge(dbLayer(app))))
          )
        for (const report of reports) {
          for (const issue of report.issues) yield* Console.error(issue)
          yield* Console.log(describeReport(report))
        }
        if (Option.isSome(fromDaemon)) yield* Console.log("(loaded by the running daemon)")
        // A warning (a duplicate row) is said, and the file still loads whole.
        const failing = reports.filter((r) => r.issues.some((issue) => !issue.startsWith("warning: ")))
        if (failing.length > 0) {
          return yield* new CliFailure({
            message: `${failing.map((r) => r.file).join(", ")}: fix the issues listed above, then run podsync mappings load again`
          })
        }
      }))
).pipe(Command.withDescription("Validate the stores' mapping files and load them (a running daemon reloads them itself)"))

const suggestCommand = Command.make(
  "suggest",
  {
    config: configOption,
    store: storeOption("the store to draft a mapping table for"),
    out: Options.text("out").pipe(
      Options.withPseudoName("FILE"),
      Options.withDescription("write the draft CSV to this file (default: standard output)"),
      Options.optional
    )
  },
  ({ config, out, store }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const target = yield* storeNamed(app, store)
        const fromDaemon = yield* askEmbeddedDaemon(
          app,
          HttpClientRequest.get(daemonUrl(app, "/mappings/suggest")).pipe(HttpClientRequest.setUrlParams({ store })),
          Suggestion,
          "60 seconds"
        )
        const draft = Option.isSome(fromDaemon) ?
          fromDaemon.value :
          yield* Effect.zipRight(migrateToLatest, suggestDraft(target.key, target.mappings)).pipe(
            Effect.provide(
              Layer.mergeAll(MappingsRepo.Default, CatalogRepo.Default, PodLive(app.pod).pipe(Layer.provide(NodeHttpClient.layerUndici)))
                .pipe(Layer.provideMerge(dbLayer(app)))
            ),
            Effect.catchTags({
              MappingFileError: (error) => Effect.fail(new CliFailure({ message: error.message })),
              PodTransportError: (error) =>
                Effect.fail(
                  new CliFailure({
                    message:
                      `the catalog cache is empty and the POD API at ${app.pod.baseUrl} is not reachable (${error.reason}): start the daemon once, or check pod.baseUrl`
                  })
                )
            })
          )
        if (Option.isSome(out)) yield* Effect.promise(() => fs.writeFile(out.value, draft.csv))
        else yield* Console.log(draft.csv.trimEnd())
        const from = [
          draft.fileRows > 0 ? `${draft.fileRows} rows of ${target.mappings}` : undefined,
          draft.orderLines > 0 ? `${draft.orderLines} lines of recent orders` : undefined
        ].filter(Boolean).join(" and ") || "nothing (no orders and no mapping rows yet)"
        yield* Console.error(
          `${target.key}: ${draft.rows} rows from ${from}; ${draft.matched} matched to the POD catalog (${draft.catalog}), ${draft.unmatched.length} left without a POD variant` +
            (Option.isSome(out) ? `; written to ${out.value}` : "")
        )
        for (const line of draft.unmatched) yield* Console.error(`unmatched: ${line}`)
        for (const line of draft.notes) yield* Console.error(`check: ${line}`)
      }))
).pipe(Command.withDescription("Write a draft mapping CSV from catalog matches on SKU, colour and size"))

/** `podsync mappings load|suggest`. */
export const mappingsCommand = Command.make("mappings").pipe(
  Command.withDescription("Load or draft the stores' variant-matching tables"),
  Command.withSubcommands([loadCommand, suggestCommand])
)
