import { Command } from "@effect/cli"
import { NodeHttpClient } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { resolveConfigPath } from "../config/loadConfig.js"
import { liveLookupFor, lintAgainstCatalog } from "../mapping/CatalogCheck.js"
import { describeIssues, type ParsedMappingFile, readMappingFile } from "../mapping/MappingFile.js"
import { PodClient } from "../pod/PodClient.js"
import { PodRequestGate } from "../pod/PodRequestGate.js"
import { CliFailure, configOption, loadAppConfig } from "./AppRuntime.js"

// A lint, not a daemon: do not wait long for an API that is not there.
const CHECK_TIMEOUT_MS = 5_000

/** Every store's mapping file: syntax and row issues by file:line. Returns the files that parsed, and the error count. */
const lintMappingFiles = (app: AppConfig) =>
  Effect.gen(function*() {
    let errors = 0
    const parsed: Array<ParsedMappingFile> = []
    for (const store of app.stores) {
      const read = yield* Effect.either(readMappingFile(store.mappings))
      if (read._tag === "Left") {
        errors++
        yield* Console.log(`${store.key}: ${read.left.message}`)
        continue
      }
      parsed.push(read.right)
      const issues = describeIssues(read.right)
      errors += issues.length
      for (const issue of issues) yield* Console.log(issue)
      yield* Console.log(`${store.key}: ${store.mappings}: ${read.right.table.rows.length} rows${issues.length > 0 ? `, ${issues.length} issue(s)` : " OK"}`)
    }
    return { parsed, errors }
  })

/** Each mapped POD variant against the live catalog; an unreachable API is said and skipped. */
const lintAgainstLiveCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>) =>
  Effect.gen(function*() {
    const { lookup, variants } = yield* liveLookupFor(files.map((f) => f.table))
    let errors = 0
    for (const file of files) {
      for (const problem of lintAgainstCatalog(file.file, file.table, lookup)) {
        if (problem.severity === "error") errors++
        yield* Console.log(`${problem.severity === "warning" ? "warning: " : ""}${problem.text}`)
      }
    }
    yield* Console.log(`Catalog: ${variants} mapped POD variant(s) checked against ${app.pod.baseUrl}${errors > 0 ? `, ${errors} problem(s)` : " OK"}`)
    return errors
  }).pipe(
    Effect.catchTag("PodTransportError", (error) =>
      Effect.as(Console.log(`Catalog: the POD API at ${app.pod.baseUrl} is not reachable (${error.reason}): mapped variants not checked against the catalog`), 0)),
    Effect.catchTag("PodUnauthorizedError", () =>
      Effect.as(Console.log(`Catalog: the POD API at ${app.pod.baseUrl} refused the configured credentials (401): check pod.clientKey and pod.clientSecret`), 1)),
    Effect.catchAll((error) =>
      Effect.as(Console.log(`Catalog: the POD API at ${app.pod.baseUrl} failed (${error.message}): mapped variants not checked against the catalog`), 1)),
    Effect.provide(
      PodClient.Default({
        baseUrl: app.pod.baseUrl,
        clientKey: app.pod.clientKey,
        clientSecret: app.pod.clientSecret,
        authHeaders: app.pod.authHeaders,
        timeoutMs: CHECK_TIMEOUT_MS
      }).pipe(Layer.provide(NodeHttpClient.layerUndici), Layer.provide(PodRequestGate.passThrough))
    )
  )

/**
 * `podsync check`: validates the configuration, lints every store's mapping
 * file, and checks the mapped POD variants against the live catalog when the
 * API answers. Exits non-zero on any error.
 */
export const checkCommand = Command.make("check", { config: configOption }, ({ config }) =>
  Effect.gen(function*() {
    const file = resolveConfigPath(config)
    const app = yield* loadAppConfig(config)
    const stores = app.stores.map((s) => `${s.key} (${s.platform})`).join(", ") || "none"
    const database = app.database.url ? "PostgreSQL" : `embedded, under ${app.dataDir}`
    yield* Console.log(`OK: ${file} is valid. Stores: ${stores}. Database: ${database}.`)
    const mappings = yield* lintMappingFiles(app)
    const mapped = mappings.parsed.some((f) => f.table.rows.some((r) => r.pod !== undefined && !r.ignore))
    const catalog = mapped ? yield* lintAgainstLiveCatalog(app, mappings.parsed) : 0
    if (!mapped) yield* Console.log("Catalog: no mapped POD variants to check")
    const errors = mappings.errors + catalog
    if (errors > 0) {
      return yield* new CliFailure({ message: `${errors} problem(s) in the mapping files (listed above): fix them, then run podsync check again` })
    }
  })
).pipe(Command.withDescription("Validate the configuration, the mapping files, and the mapped POD variants"))
