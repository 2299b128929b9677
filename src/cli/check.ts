import { Command } from "@effect/cli"
import { NodeHttpClient } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { resolveConfigPath } from "../config/loadConfig.js"
import { liveLookupFor, lintAgainstCatalog } from "../pipeline/CatalogCheck.js"
import { describeIssues, type ParsedMappingFile, readMappingFile } from "../pipeline/MappingFile.js"
import { type AuthHeaderPair, authHeadersSetting, describeAuthHeaders, otherPublishedAuthHeaders } from "../pod/AuthHeaders.js"
import { PodClient } from "../pod/PodClient.js"
import { migrateToLatest } from "../db/Migrator.js"
import { PodGateLive, podClientConfig, RateBudgetLive } from "../app/PodLive.js"
import { CliFailure, configOption, loadAppConfig } from "./AppRuntime.js"
import { dbLayer } from "../app/DatabaseLive.js"

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
      yield* Console.log(
        `${store.key}: ${store.mappings}: ${read.right.table.rows.length} rows${issues.length > 0 ? `, ${issues.length} issue(s)` : " OK"}`
      )
    }
    return { parsed, errors }
  })

type Lookup = Effect.Effect.Success<ReturnType<typeof liveLookupFor>>

/** What the catalog check found: its problems, and whether the credentials' header names are the trouble. */
interface CatalogOutcome {
  readonly errors: number
  /** `switch`: another published header pair works (set it); `wrong`: no pair does (the credentials are wrong). */
  readonly authHeaders?: { readonly _tag: "switch"; readonly pair: AuthHeaderPair } | { readonly _tag: "wrong" }
}

/** A POD client with these header names; every client of one check shares the budget's gate provided around it. */
const clientFor = (app: AppConfig, authHeaders: AuthHeaderPair) =>
  PodClient.Default(podClientConfig(app.pod, { authHeaders, timeoutMs: CHECK_TIMEOUT_MS })).pipe(Layer.provide(NodeHttpClient.layerUndici))

/**
 * The shared rate budget, as the daemon spends it: the check's requests take slots in the same
 * ledger, so a check run beside a daemon cannot push the credential over its limit.
 */
const budgetFor = (app: AppConfig) =>
  PodGateLive.pipe(Layer.provide(RateBudgetLive(app.pod)), Layer.provide(Layer.effectDiscard(migrateToLatest)), Layer.provide(dbLayer(app)))

const readCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>, authHeaders: AuthHeaderPair) =>
  Effect.either(Effect.provide(liveLookupFor(files.map((f) => f.table)), clientFor(app, authHeaders)))

/** Prints each mapped row's problem against the catalog; answers the error count. */
const reportCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>, { lookup, variants }: Lookup) =>
  Effect.gen(function*() {
    let errors = 0
    for (const file of files) {
      for (const problem of lintAgainstCatalog(file.file, file.table, lookup)) {
        if (problem.severity === "error") errors++
        yield* Console.log(`${problem.severity === "warning" ? "warning: " : ""}${problem.text}`)
      }
    }
    yield* Console.log(
      `Catalog: ${variants} mapped POD variant(s) checked against ${app.pod.baseUrl}${errors > 0 ? `, ${errors} problem(s)` : " OK"}`
    )
    return errors
  })

/**
 * Each mapped POD variant against the live catalog; an unreachable API is said and skipped. A 401
 * may only mean the service wants the other published header names (the published texts disagree):
 * the same read is tried with them, through the same client and gate, to say exactly what to set.
 */
const lintAgainstLiveCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>) =>
  Effect.gen(function*() {
    const at = `the POD API at ${app.pod.baseUrl}`
    const configured = yield* readCatalog(app, files, app.pod.authHeaders)
    if (configured._tag === "Right") return { errors: yield* reportCatalog(app, files, configured.right) } satisfies CatalogOutcome
    const error = configured.left
    switch (error._tag) {
      case "PodTransportError":
        yield* Console.log(`Catalog: ${at} is not reachable (${error.reason}): mapped variants not checked against the catalog`)
        return { errors: 0 } satisfies CatalogOutcome
      case "PodUnauthorizedError":
        break
      default:
        yield* Console.log(`Catalog: ${at} failed (${error.message}): mapped variants not checked against the catalog`)
        return { errors: 1 } satisfies CatalogOutcome
    }
    const refused = describeAuthHeaders(app.pod.authHeaders)
    const tried = [refused]
    for (const pair of otherPublishedAuthHeaders(app.pod.authHeaders)) {
      const other = yield* readCatalog(app, files, pair)
      if (other._tag === "Right") {
        yield* Console.log(
          `Catalog: ${at} refused the credentials sent as ${refused} (401) but accepts them as ${describeAuthHeaders(pair)}. ` +
            `Set this in the configuration:\n  ${authHeadersSetting(pair)}`
        )
        const errors = yield* reportCatalog(app, files, other.right)
        return { errors: errors + 1, authHeaders: { _tag: "switch", pair } } satisfies CatalogOutcome
      }
      tried.push(describeAuthHeaders(pair))
      if (other.left._tag !== "PodUnauthorizedError") {
        yield* Console.log(
          `Catalog: ${at} refused ${refused} (401); trying ${
            describeAuthHeaders(pair)
          } failed too (${other.left._tag}), so it is not known whether those header names would work`
        )
        return { errors: 1 } satisfies CatalogOutcome
      }
    }
    yield* Console.log(
      `Catalog: ${at} refused the credentials (401) under every published header pair (${tried.join(", ")}): ` +
        `the credentials themselves are wrong. Check pod.clientKey and pod.clientSecret (POD_CLIENT_KEY, POD_CLIENT_SECRET)`
    )
    return { errors: 1, authHeaders: { _tag: "wrong" } } satisfies CatalogOutcome
  }).pipe(
    Effect.provide(budgetFor(app)),
    Effect.catchTags({
      DataDirLockedError: () =>
        Effect.as(
          Console.log(
            "Catalog: not checked here: a running daemon holds the embedded database and the POD rate budget; it checks the catalog on its own schedule"
          ),
          { errors: 0 } satisfies CatalogOutcome
        ),
      // Like an unreachable POD API: said, and not an error of the configuration (a check often runs
      // before the database is up, e.g. while building an image).
      DbError: (error) =>
        Effect.as(
          Console.log(
            `Catalog: not checked: the database that holds the POD rate budget is not reachable (${error.message}); mapped variants not checked against the catalog`
          ),
          { errors: 0 } satisfies CatalogOutcome
        )
    })
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
    const catalog: CatalogOutcome = mapped ? yield* lintAgainstLiveCatalog(app, mappings.parsed) : { errors: 0 }
    if (!mapped) yield* Console.log("Catalog: no mapped POD variants to check")
    switch (catalog.authHeaders?._tag) {
      case "switch":
        return yield* new CliFailure({
          message: `the POD service takes podsync's credentials under other header names: set ${
            authHeadersSetting(catalog.authHeaders.pair)
          } in ${file}, then run podsync check again`
        })
      case "wrong":
        return yield* new CliFailure({
          message: "the POD service refuses podsync's credentials: fix pod.clientKey and pod.clientSecret, then run podsync check again"
        })
      default:
        break
    }
    const errors = mappings.errors + catalog.errors
    if (errors > 0) {
      return yield* new CliFailure({
        message: `${errors} problem(s) in the mapping files (listed above): fix them, then run podsync check again`
      })
    }
  })).pipe(Command.withDescription("Validate the configuration, the mapping files, and the mapped POD variants"))
