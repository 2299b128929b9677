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
import { rewriteMappingFile } from "../pipeline/MappingEdit.js"
import { type Addition, mergeSuggestions } from "../mapping/MappingMerge.js"
import { type MappingColumn } from "../domain/MappingCells.js"
import { MAPPING_COLUMNS } from "../domain/MappingTable.js"
import { PodLive } from "../app/PodLive.js"
import { CatalogRepo } from "../repos/CatalogRepo.js"
import { MappingsRepo } from "../repos/MappingsRepo.js"
import { OrdersRepo } from "../repos/OrdersRepo.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, storeNamed, withConfig } from "./AppRuntime.js"
import { dbLayer } from "../app/DatabaseLive.js"

const Report = Schema.Struct({
  storeKey: Schema.String,
  file: Schema.String,
  outcome: Schema.Literal("loaded", "partial", "kept_previous", "unchanged", "unreadable"),
  rows: Schema.Number,
  issues: Schema.Array(Schema.String)
})
type Report = typeof Report.Type
const Cells = Schema.Struct(
  Object.fromEntries(MAPPING_COLUMNS.map((c) => [c, Schema.String])) as Record<MappingColumn, typeof Schema.String>
)
const Suggestion = Schema.Struct({
  csv: Schema.String,
  rows: Schema.Number,
  commented: Schema.Number,
  additions: Schema.Array(Schema.Struct({ cells: Cells, note: Schema.String, complete: Schema.Boolean })),
  matched: Schema.Number,
  unmatched: Schema.Array(Schema.String),
  notes: Schema.Array(Schema.String),
  orderLines: Schema.Number,
  fileRows: Schema.Number,
  catalog: Schema.Literal("cache", "live")
})

const storeOption = (description: string) => Options.text("store").pipe(Options.withPseudoName("KEY"), Options.withDescription(description))

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

/** Loads the stores' files now: the running daemon reloads them, else they go straight into the database. */
const loadNow = (app: AppConfig, store: Option.Option<string>) =>
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
    return { fromDaemon: Option.isSome(fromDaemon), reports }
  })

const loadCommand = Command.make(
  "load",
  { config: configOption, store: storeOption("load only this store's file (default: every store)").pipe(Options.optional) },
  ({ config, store }) =>
    withConfig(config, (app) =>
      Effect.gen(function*() {
        const { fromDaemon, reports } = yield* loadNow(app, store)
        for (const report of reports) {
          for (const issue of report.issues) yield* Console.error(issue)
          yield* Console.log(describeReport(report))
        }
        if (fromDaemon) yield* Console.log("(loaded by the running daemon)")
        // A warning (a duplicate row) is said, and the file still loads whole.
        const failing = reports.filter((r) => r.issues.some((issue) => !issue.startsWith("warning: ")))
        if (failing.length > 0) {
          return yield* new CliFailure({
            message: `${failing.map((r) => r.file).join(", ")}: fix the issues listed above, then run podsync mappings load again`
          })
        }
      }))
).pipe(Command.withDescription("Validate the stores' mapping files and load them (a running daemon reloads them itself)"))

/** `--merge`: the suggested rows added to the store's file (a refusal writes nothing), then the file loaded. */
const mergeInto = (app: AppConfig, store: AppConfig["stores"][number], additions: ReadonlyArray<Addition>) =>
  Effect.gen(function*() {
    const file = store.mappings
    const before = yield* Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
      Effect.catchAll((error) =>
        (error.error as { code?: string }).code === "ENOENT"
          ? Effect.succeed("")
          : Effect.fail(new CliFailure({ message: `cannot read ${file}: ${String(error.error)}` }))
      )
    )
    const merged = mergeSuggestions(before, additions)
    if (merged.text === before) {
      yield* Console.error(`${store.key}: nothing to add to ${file}: it maps every line the draft has`)
      return
    }
    const backup = yield* rewriteMappingFile(file, before, merged.text, "podsync mappings suggest --merge").pipe(
      Effect.mapError((error) => new CliFailure({ message: error.message }))
    )
    yield* Console.error(
      `${store.key}: added ${merged.added} row(s) to ${file}, and ${merged.commented} row(s) to complete as comments (previous version in ${backup})`
    )
    const { fromDaemon, reports } = yield* loadNow(app, Option.some(store.key))
    for (const report of reports) yield* Console.error(describeReport(report) + (fromDaemon ? " (by the running daemon)" : ""))
  })

const suggestCommand = Command.make(
  "suggest",
  {
    config: configOption,
    store: storeOption("the store to draft a mapping table for"),
    out: Options.text("out").pipe(
      Options.withPseudoName("FILE"),
      Options.withDescription("write the draft CSV to this file (default: standard output)"),
      Options.optional
    ),
    merge: Options.boolean("merge").pipe(
      Options.withDescription("add the suggested rows to the store's own mapping file (checked, written atomically) and load it")
    )
  },
  ({ config, merge, out, store }) =>
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
        else if (!merge) yield* Console.log(draft.csv.trimEnd())
        const from = [
          draft.fileRows > 0 ? `${draft.fileRows} rows of ${target.mappings}` : undefined,
          draft.orderLines > 0 ? `${draft.orderLines} lines of recent orders` : undefined
        ].filter(Boolean).join(" and ") || "nothing (no orders and no mapping rows yet)"
        yield* Console.error(
          `${target.key}: ${draft.rows} rows from ${from}; ${draft.matched} matched to the POD catalog (${draft.catalog}), ${draft.unmatched.length} left without a POD variant, ${draft.commented} written commented out for a person to complete` +
            (Option.isSome(out) ? `; written to ${out.value}` : "")
        )
        for (const line of draft.unmatched) yield* Console.error(`unmatched: ${line}`)
        for (const line of draft.notes) yield* Console.error(`check: ${line}`)
        if (merge) yield* mergeInto(app, target, draft.additions)
      }))
).pipe(Command.withDescription("Write a draft mapping CSV from catalog matches on SKU, colour and size"))

/** `podsync mappings load|suggest`. */
export const mappingsCommand = Command.make("mappings").pipe(
  Command.withDescription("Load or draft the stores' variant-matching tables"),
  Command.withSubcommands([loadCommand, suggestCommand])
)
