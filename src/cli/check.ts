import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Console, Data, Effect, Layer, Option } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import { resolveConfigPath } from "../config/loadConfig.js"
import { errorsOf } from "../mapping/MappingCsv.js"
import { describeIssues, type ParsedMappingFile, readMappingFile } from "../pipeline/MappingFile.js"
import { authHeadersSetting } from "../pod/AuthHeaders.js"
import { CheckBudgetsLive } from "../app/CheckBudgets.js"
import { mappingFilesOf, mapsAnyVariant, verifyServices } from "../app/ServiceCheck.js"
import { ServicesVerdict } from "../http/CheckRoutes.js"
import { askEmbeddedDaemon, CliFailure, configOption, daemonUrl, withConfig } from "./AppRuntime.js"

/** Every store's mapping file: syntax and row issues by file:line. Returns the files that parsed, and the error count. */
const lintMappingFiles = (app: AppConfig) =>
  Effect.gen(function*() {
    let errors = 0
    const parsed: Array<ParsedMappingFile> = []
    // A file shared by several stores is one file: checked and reported once, naming its stores.
    for (const stores of mappingFilesOf(app)) {
      const file = stores[0]?.mappings ?? ""
      const keys = stores.map((s) => s.key).join(", ")
      const read = yield* Effect.either(readMappingFile(file))
      if (read._tag === "Left") {
        errors++
        yield* Console.log(`${keys}: ${read.left.message}`)
        continue
      }
      parsed.push(read.right)
      const issues = describeIssues(read.right)
      const problems = errorsOf(read.right.issues).length
      errors += problems
      for (const issue of issues) yield* Console.log(issue)
      yield* Console.log(`${keys}: ${file}: ${read.right.table.rows.length} rows${problems > 0 ? `, ${problems} issue(s)` : " OK"}`)
    }
    return { parsed, errors }
  })

/** Said when the services could not be asked: nothing found wrong, and what was not verified. */
const notVerified = (line: string, what: string): Effect.Effect<ServicesVerdict> =>
  Effect.as(Console.log(line), { lines: [line], errors: 0, catalogProblems: 0, unverified: [what] })

/**
 * While a daemon holds the embedded database it holds the budgets too: it runs the same
 * verification through them (POST /check) and answers the lines to say. `None` when no daemon
 * answers on the configured address (another command holds the folder).
 */
const verifyInDaemon = (app: AppConfig) =>
  Effect.gen(function*() {
    const answered = yield* askEmbeddedDaemon(app, HttpClientRequest.post(daemonUrl(app, "/check")), ServicesVerdict, "60 seconds")
    if (Option.isSome(answered)) yield* Effect.forEach(answered.value.lines, (line) => Console.log(line), { discard: true })
    return answered
  })

/**
 * The POD service (one read) and every store (one read each), through the budgets the daemon
 * spends where its database exists (the check's requests take their share in the same ledgers, so
 * a check run beside a daemon on PostgreSQL cannot push a credential over its limit), else through
 * budgets in memory: the check creates, migrates and writes no database (see CheckBudgetsLive).
 * A daemon holding the embedded database is asked to run the same verification through its own.
 */
const verifyHereOrInDaemon = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>) =>
  verifyServices(app, files, (line) => Console.log(line)).pipe(
    Effect.map((verdict): ServicesVerdict => verdict),
    Effect.provide(CheckBudgetsLive(app).pipe(Layer.provide(NodeHttpClient.layerUndici))),
    Effect.catchTags({
      DataDirLockedError: () =>
        Effect.flatMap(verifyInDaemon(app), (answered) =>
          Option.isSome(answered) ? Effect.succeed(answered.value) : notVerified(
            "POD and stores: NOT VERIFIED here: another podsync process holds the embedded database and the API budgets, " +
              `and no daemon answers at ${daemonUrl(app, "")} to verify them through its budgets`,
            "the POD API and the stores (another process holds the budgets)"
          )),
      // Said, not an error of the configuration (a check often runs before the database is up).
      DbError: (error) =>
        notVerified(
          `POD and stores: NOT VERIFIED: the database that holds the API budgets is not reachable (${error.message}); the credentials and ${
            mapsAnyVariant(files) ? "the mapped variants" : "nothing else"
          } are not checked`,
          "the POD API and the stores (the database holding their budgets did not answer)"
        )
    })
  )

/** Everything podsync could check was right, but something did not answer: not verified. Exit code 3. */
export class NotVerifiedError extends Data.TaggedError("NotVerifiedError")<{ readonly what: ReadonlyArray<string> }> {
  readonly exitCode = 3
  override get message(): string {
    return `not verified: ${this.what.join("; ")}. Everything else checked is OK; run podsync check again when they answer`
  }
}

const unverifiedOk = Options.boolean("unverified-ok").pipe(
  Options.withDescription("exit 0 when nothing is wrong but a service did not answer (a unit that checks before every start)")
)

/**
 * `podsync check`: validates the configuration and every store's mapping file, then asks the POD
 * service (the mapped variants against its live catalog, or one cheap read) and every store (one
 * cheap read) whether podsync's credentials work. Exit 0: all verified; 1: something is wrong (said
 * above, with what to fix); 3: nothing wrong, but a service did not answer, so its credentials are
 * not verified (0 with --unverified-ok).
 */
export const checkCommand = Command.make(
  "check",
  { config: configOption, unverifiedOk },
  ({ config, unverifiedOk }) => withConfig(config, (app) => check(resolveConfigPath(config), app, unverifiedOk))
).pipe(
  Command.withDescription("Validate the configuration and the mapping files, and verify the POD and store credentials with one read each")
)

const check = (file: string, app: AppConfig, unverifiedOk: boolean) =>
  Effect.gen(function*() {
    const stores = app.stores.map((s) => `${s.key} (${s.platform})`).join(", ") || "none"
    const database = app.database.url ? "PostgreSQL" : `embedded, under ${app.dataDir}`
    yield* Console.log(`OK: ${file} is valid. Stores: ${stores}. Database: ${database}.`)
    const mappings = yield* lintMappingFiles(app)
    if (!mapsAnyVariant(mappings.parsed)) yield* Console.log("Catalog: no mapped POD variants to check")
    const services = yield* verifyHereOrInDaemon(app, mappings.parsed)
    switch (services.authHeaders?._tag) {
      case "switch":
        return yield* new CliFailure({
          message: `the POD service takes podsync's credentials under other header names: set ${
            authHeadersSetting(services.authHeaders.pair)
          } in ${file}, then run podsync check again`
        })
      case "wrong":
        return yield* new CliFailure({
          message: "the POD service refuses podsync's credentials: fix pod.clientKey and pod.clientSecret, then run podsync check again"
        })
      default:
        break
    }
    const inFiles = mappings.errors + services.catalogProblems
    if (inFiles > 0 || services.errors > 0) {
      const parts = [
        ...(inFiles > 0 ? [`${inFiles} in the mapping files`] : []),
        ...(services.errors > 0 ? [`${services.errors} with the POD service or the stores`] : [])
      ]
      return yield* new CliFailure({ message: `problems: ${parts.join(", ")} (listed above): fix them, then run podsync check again` })
    }
    if (services.unverified.length > 0 && !unverifiedOk) return yield* new NotVerifiedError({ what: services.unverified })
  })
