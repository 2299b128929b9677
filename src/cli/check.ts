import * as path from "node:path"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Console, Data, Effect, Either, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import type { StoreConfig } from "../config/StoreConfig.js"
import { resolveConfigPath } from "../config/loadConfig.js"
import { connectionRefusal } from "../domain/ConnectionFailure.js"
import { describeCatalogProblem, liveLookupFor, lintAgainstCatalog } from "../pipeline/CatalogCheck.js"
import { errorsOf } from "../mapping/MappingCsv.js"
import { describeIssues, type ParsedMappingFile, readMappingFile } from "../pipeline/MappingFile.js"
import { type AuthHeaderPair, authHeadersSetting, describeAuthHeaders, otherPublishedAuthHeaders } from "../pod/AuthHeaders.js"
import { PodClient } from "../pod/PodClient.js"
import type { PodError } from "../pod/PodErrors.js"
import type { PodRequestGate } from "../pod/PodRequestGate.js"
import { ABSENT_ORDER_ID, type AccessFinding, StoreConnectors } from "../stores/StoreConnector.js"
import { type StoreError, StoreUnavailableError } from "../stores/StoreErrors.js"
import { CheckBudgetsLive } from "../app/CheckBudgets.js"
import { podClientConfig } from "../app/PodLive.js"
import { CliFailure, configOption, withConfig } from "./AppRuntime.js"

// A lint, not a daemon: do not wait long for an API that is not there.
const CHECK_TIMEOUT_MS = 5_000

/** Every store's mapping file: syntax and row issues by file:line. Returns the files that parsed, and the error count. */
const lintMappingFiles = (app: AppConfig) =>
  Effect.gen(function*() {
    let errors = 0
    const parsed: Array<ParsedMappingFile> = []
    // A file shared by several stores is one file: checked and reported once, naming its stores.
    const byFile = new Map<string, Array<AppConfig["stores"][number]>>()
    for (const store of app.stores) byFile.set(path.resolve(store.mappings), [...(byFile.get(path.resolve(store.mappings)) ?? []), store])
    for (const stores of byFile.values()) {
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

type Lookup = Effect.Effect.Success<ReturnType<typeof liveLookupFor>>

/** What the catalog check found: its problems, and whether the credentials' header names are the trouble. */
interface CatalogOutcome {
  readonly errors: number
  /** Mapped variants the catalog does not have or has discontinued: problems of the mapping files. */
  readonly catalogProblems?: number
  /** What could not be verified (the service did not answer): said, and the exit code says it (3). */
  readonly unverified?: string
  /** `switch`: another published header pair works (set it); `wrong`: no pair does (the credentials are wrong). */
  readonly authHeaders?: { readonly _tag: "switch"; readonly pair: AuthHeaderPair } | { readonly _tag: "wrong" }
}

/** A POD client with these header names; every client of one check shares the budget's gate provided around it. */
const clientFor = (app: AppConfig, authHeaders: AuthHeaderPair) =>
  PodClient.Default(podClientConfig(app.pod, { authHeaders, timeoutMs: CHECK_TIMEOUT_MS })).pipe(Layer.provide(NodeHttpClient.layerUndici))

const readCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>, authHeaders: AuthHeaderPair) =>
  Effect.either(Effect.provide(liveLookupFor(files.map((f) => f.table)), clientFor(app, authHeaders)))

/** One cheap authenticated read (a draft lookup by a reference no order has): do the service and the credentials answer? */
const readOnce = (app: AppConfig, authHeaders: AuthHeaderPair) =>
  Effect.either(
    Effect.provide(Effect.flatMap(PodClient, (pod) => pod.findDraftsByReferenceId("podsync-check")), clientFor(app, authHeaders))
  )

/**
 * What the POD check asks with a pair of header names: the service's refusal, or how to report
 * its answer (answering the number of problems found in it).
 */
type PodAsk = (authHeaders: AuthHeaderPair) => Effect.Effect<Either.Either<Effect.Effect<number>, PodError>, never, PodRequestGate>

/** Prints each mapped row's problem against the catalog; answers the error count. */
const reportCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>, { lookup, variants }: Lookup) =>
  Effect.gen(function*() {
    let errors = 0
    for (const file of files) {
      for (const problem of lintAgainstCatalog(file.file, file.table, lookup)) {
        if (problem.severity === "error") errors++
        yield* Console.log(describeCatalogProblem(problem))
      }
    }
    yield* Console.log(
      `Catalog: ${variants} mapped POD variant(s) checked against ${app.pod.baseUrl}${errors > 0 ? `, ${errors} problem(s)` : " OK"}`
    )
    return errors
  })

/**
 * The POD service and podsync's credentials, with one read through the shared budget: each mapped
 * POD variant against the live catalog, or, with none mapped, one cheap lookup. A service that does
 * not answer is said as not verified. A 401 may only mean the service wants the other published
 * header names (the published texts disagree): the same read is tried with them, through the same
 * client and gate, to say exactly what to set.
 */
const verifyPod = (app: AppConfig, ask: PodAsk, what: string) =>
  Effect.gen(function*() {
    const at = `the POD API at ${app.pod.baseUrl}`
    const configured = yield* ask(app.pod.authHeaders)
    if (configured._tag === "Right") return { errors: 0, catalogProblems: yield* configured.right } satisfies CatalogOutcome
    const error = configured.left
    switch (error._tag) {
      case "PodTransportError":
      case "PodServerError":
      case "PodRateLimitedError": {
        const reason = error._tag === "PodTransportError" ? error.reason : error.message
        yield* Console.log(`POD: NOT VERIFIED: ${at} did not answer (${reason}): the credentials and ${what} are not checked`)
        return { errors: 0, unverified: `${at} (did not answer)` } satisfies CatalogOutcome
      }
      case "PodUnauthorizedError":
        break
      case "PodForbiddenError":
        yield* Console.log(
          `POD: ${at} refused the credentials (403): the key is not allowed this API. Check POD_CLIENT_KEY and POD_CLIENT_SECRET`
        )
        return { errors: 1, authHeaders: { _tag: "wrong" } } satisfies CatalogOutcome
      default:
        yield* Console.log(`POD: ${at} failed (${error.message}): ${what} not checked`)
        return { errors: 1 } satisfies CatalogOutcome
    }
    const refused = describeAuthHeaders(app.pod.authHeaders)
    const tried = [refused]
    for (const pair of otherPublishedAuthHeaders(app.pod.authHeaders)) {
      const other = yield* ask(pair)
      if (other._tag === "Right") {
        yield* Console.log(
          `POD: ${at} refused the credentials sent as ${refused} (401) but accepts them as ${describeAuthHeaders(pair)}. ` +
            `Set this in the configuration:\n  ${authHeadersSetting(pair)}`
        )
        const catalogProblems = yield* other.right
        return { errors: 1, catalogProblems, authHeaders: { _tag: "switch", pair } } satisfies CatalogOutcome
      }
      tried.push(describeAuthHeaders(pair))
      if (other.left._tag !== "PodUnauthorizedError") {
        yield* Console.log(
          `POD: ${at} refused ${refused} (401); trying ${
            describeAuthHeaders(pair)
          } failed too (${other.left._tag}), so it is not known whether those header names would work`
        )
        return { errors: 1 } satisfies CatalogOutcome
      }
    }
    yield* Console.log(
      `POD: ${at} refused the credentials (401) under every published header pair (${tried.join(", ")}): ` +
        `the credentials themselves are wrong. Check pod.clientKey and pod.clientSecret (POD_CLIENT_KEY, POD_CLIENT_SECRET)`
    )
    return { errors: 1, authHeaders: { _tag: "wrong" } } satisfies CatalogOutcome
  })

// A store that does not answer within this is not verified (the connectors retry reads on their own).
const STORE_CHECK_TIMEOUT = "10 seconds"

/** Where a store's credentials are in the configuration, to say what to fix. */
const credentialKeys = (store: StoreConfig, index: number) => {
  const at = `stores[${index}].${store.platform}`
  switch (store.platform) {
    case "shopify":
      return store.shopify.accessToken !== undefined
        ? `${at}.accessToken (and ${at}.shop)`
        : `${at}.clientId and ${at}.clientSecret (and ${at}.shop; the app installed on it)`
    case "woocommerce":
      return `${at}.consumerKey and ${at}.consumerSecret`
    case "etsy":
      return `${at}.keystring, ${at}.sharedSecret and ${at}.refreshToken`
    case "jsonfeed":
      return `${at}.token`
  }
}

/**
 * Fails as soon as the store's address refuses a connection or has no host: the read would only
 * retry until the check's timeout and then say less. Any answer at all leaves the read to decide.
 */
const refusedAt = (storeKey: string, address: string) =>
  Effect.tryPromise(() => fetch(address, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(5_000) })).pipe(
    Effect.map((response) => response.body?.cancel()),
    Effect.flatMap(() => Effect.never),
    Effect.catchAll((failure) => {
      const refusal = connectionRefusal(failure.error)
      return refusal === undefined ? Effect.never : Effect.fail(
        new StoreUnavailableError({ storeKey, operation: "getOrder", ambiguous: false, detail: `${refusal} at ${address}` })
      )
    })
  )

const FINDING_WORDS: Readonly<Record<AccessFinding["severity"], string>> = { error: "", warning: "warning: ", note: "note: " }

/** What a store's connector says its access lacks (a few reads), within the check's patience. */
const accessOf = (storeKey: string, findings: Effect.Effect<ReadonlyArray<AccessFinding>, StoreError>) =>
  findings.pipe(
    Effect.timeoutFail({
      duration: STORE_CHECK_TIMEOUT,
      onTimeout: () =>
        new StoreUnavailableError({ storeKey, operation: "access", ambiguous: false, detail: `no answer within ${STORE_CHECK_TIMEOUT}` })
    }),
    Effect.either
  )

/** Each store's credentials, with one cheap read (an order that does not exist) through its connector and the shared store budget. */
const verifyStores = (app: AppConfig) =>
  Effect.gen(function*() {
    const connectors = yield* StoreConnectors
    let errors = 0
    const unverified: Array<string> = []
    // Asked all at once (each store has its own budget), said in the configuration's order.
    const reads = yield* Effect.forEach(app.stores, (store) => {
      const connector = connectors.get(store.key)
      return connector === undefined ? Effect.succeed(undefined) : connector.getOrder(ABSENT_ORDER_ID).pipe(
        Effect.raceFirst(refusedAt(store.key, connector.apiAddress)),
        Effect.timeoutFail({
          duration: STORE_CHECK_TIMEOUT,
          onTimeout: () =>
            new StoreUnavailableError({
              storeKey: store.key,
              operation: "getOrder",
              ambiguous: false,
              detail: `no answer within ${STORE_CHECK_TIMEOUT}`
            })
        }),
        Effect.either
      )
    }, { concurrency: "unbounded" })
    yield* Effect.forEach(app.stores, (store, index) =>
      Effect.gen(function*() {
        const name = `Store ${store.key} (${store.platform})`
        const read = reads[index]
        if (read === undefined) return
        if (read._tag === "Right") {
          yield* Console.log(`${name}: credentials accepted`)
          const connector = connectors.get(store.key)
          if (connector?.checkAccess === undefined) return
          const found = yield* accessOf(store.key, connector.checkAccess())
          if (found._tag === "Left" && found.left._tag === "StoreUnavailableError") {
            unverified.push(`store ${store.key}'s access (did not answer)`)
            return yield* Console.log(`${name}: NOT VERIFIED: what the app may read could not be read (${found.left.detail})`)
          }
          if (found._tag === "Left") {
            errors++
            return yield* Console.log(`${name}: reading what the app may read failed: ${found.left.message}`)
          }
          for (const finding of found.right) {
            if (finding.severity === "error") errors++
            yield* Console.log(`${name}: ${FINDING_WORDS[finding.severity]}${finding.message}`)
          }
          if (found.right.length === 0) yield* Console.log(`${name}: the app has every access podsync needs`)
          return
        }
        const error = read.left
        switch (error._tag) {
          case "StoreAuthError":
            errors++
            return yield* Console.log(`${name}: refused the credentials (HTTP ${error.status}): check ${credentialKeys(store, index)}`)
          case "StoreUnavailableError":
            unverified.push(`store ${store.key} (did not answer)`)
            return yield* Console.log(`${name}: NOT VERIFIED: did not answer (${error.detail}): its credentials are not checked`)
          default:
            errors++
            return yield* Console.log(`${name}: answered with an error podsync cannot work with: ${error.message}`)
        }
      }), { discard: true })
    return { errors, unverified }
  })

/**
 * The POD service (one read) and every store (one read each), through the budgets the daemon
 * spends where its database exists (the check's requests take their share in the same ledgers, so
 * a check run beside a daemon on PostgreSQL cannot push a credential over its limit), else through
 * budgets in memory: the check creates, migrates and writes no database (see CheckBudgetsLive).
 */
const verifyServices = (app: AppConfig, ask: PodAsk, what: string) =>
  Effect.all([verifyPod(app, ask, what), verifyStores(app)]).pipe(
    Effect.map(([pod, stores]) => ({
      errors: pod.errors + stores.errors,
      catalogProblems: pod.catalogProblems ?? 0,
      authHeaders: pod.authHeaders,
      unverified: [...(pod.unverified === undefined ? [] : [pod.unverified]), ...stores.unverified]
    })),
    Effect.provide(CheckBudgetsLive(app).pipe(Layer.provide(NodeHttpClient.layerUndici))),
    Effect.catchTags({
      DataDirLockedError: () =>
        Effect.as(
          Console.log(
            "POD and stores: NOT VERIFIED here: a running daemon holds the embedded database and the API budgets (it is using the credentials: podsync status says how)"
          ),
          {
            errors: 0,
            catalogProblems: 0,
            authHeaders: undefined,
            unverified: ["the POD API and the stores (a running daemon holds the budgets)"]
          }
        ),
      // Said, not an error of the configuration (a check often runs before the database is up).
      DbError: (error) =>
        Effect.as(
          Console.log(
            `POD and stores: NOT VERIFIED: the database that holds the API budgets is not reachable (${error.message}); the credentials and ${what} are not checked`
          ),
          {
            errors: 0,
            catalogProblems: 0,
            authHeaders: undefined,
            unverified: ["the POD API and the stores (the database holding their budgets did not answer)"]
          }
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
    const mapped = mappings.parsed.some((f) => f.table.rows.some((r) => r.pod !== undefined && !r.ignore))
    if (!mapped) yield* Console.log("Catalog: no mapped POD variants to check")
    const ask: PodAsk = mapped
      ? (pair) => Effect.map(readCatalog(app, mappings.parsed, pair), Either.map((lookup) => reportCatalog(app, mappings.parsed, lookup)))
      : (pair) =>
        Effect.map(
          readOnce(app, pair),
          Either.map(() => Effect.as(Console.log(`POD: the API at ${app.pod.baseUrl} accepts the credentials`), 0))
        )
    const services = yield* verifyServices(app, ask, mapped ? "the mapped variants" : "nothing else")
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
