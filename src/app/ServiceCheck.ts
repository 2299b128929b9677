/**
 * The POD service and the stores, as `podsync check` verifies them: one read each through the
 * budgets provided (the check's own, or a running daemon's: POST /check), every finding said
 * through `say` in the same words wherever it runs.
 */
import * as path from "node:path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Either, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import type { StoreConfig } from "../config/StoreConfig.js"
import { connectionRefusal } from "../domain/ConnectionFailure.js"
import { describeCatalogProblem, liveLookupFor, lintAgainstCatalog } from "../pipeline/CatalogCheck.js"
import { type ParsedMappingFile, readMappingFile } from "../pipeline/MappingFile.js"
import { type AuthHeaderPair, authHeadersSetting, describeAuthHeaders, otherPublishedAuthHeaders } from "../pod/AuthHeaders.js"
import { PodClient } from "../pod/PodClient.js"
import type { PodError } from "../pod/PodErrors.js"
import type { PodRequestGate } from "../pod/PodRequestGate.js"
import { ABSENT_ORDER_ID, type AccessFinding, StoreConnectors } from "../stores/StoreConnector.js"
import { type StoreError, StoreUnavailableError } from "../stores/StoreErrors.js"
import { DaemonCheck, type ServicesVerdict } from "../http/CheckRoutes.js"
import { withPodRequestMetrics } from "../observability/PodRequestMetrics.js"
import { podClientConfig } from "./PodLive.js"
import { RateBudgetGateLive } from "./RateBudgetGate.js"

/** Where a finding is said: the terminal (`Console.log`), or the lines a daemon answers. */
export type Say = (line: string) => Effect.Effect<void>

// A lint, not a daemon: do not wait long for an API that is not there.
const CHECK_TIMEOUT_MS = 5_000

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
const reportCatalog = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>, { lookup, variants }: Lookup, say: Say) =>
  Effect.gen(function*() {
    let errors = 0
    for (const file of files) {
      for (const problem of lintAgainstCatalog(file.file, file.table, lookup)) {
        if (problem.severity === "error") errors++
        yield* say(describeCatalogProblem(problem))
      }
    }
    yield* say(
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
const verifyPod = (app: AppConfig, ask: PodAsk, what: string, say: Say) =>
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
        yield* say(`POD: NOT VERIFIED: ${at} did not answer (${reason}): the credentials and ${what} are not checked`)
        return { errors: 0, unverified: `${at} (did not answer)` } satisfies CatalogOutcome
      }
      case "PodUnauthorizedError":
        break
      case "PodForbiddenError":
        yield* say(
          `POD: ${at} refused the credentials (403): the key is not allowed this API. Check POD_CLIENT_KEY and POD_CLIENT_SECRET`
        )
        return { errors: 1, authHeaders: { _tag: "wrong" } } satisfies CatalogOutcome
      default:
        yield* say(`POD: ${at} failed (${error.message}): ${what} not checked`)
        return { errors: 1 } satisfies CatalogOutcome
    }
    const refused = describeAuthHeaders(app.pod.authHeaders)
    const tried = [refused]
    for (const pair of otherPublishedAuthHeaders(app.pod.authHeaders)) {
      const other = yield* ask(pair)
      if (other._tag === "Right") {
        yield* say(
          `POD: ${at} refused the credentials sent as ${refused} (401) but accepts them as ${describeAuthHeaders(pair)}. ` +
            `Set this in the configuration:\n  ${authHeadersSetting(pair)}`
        )
        const catalogProblems = yield* other.right
        return { errors: 1, catalogProblems, authHeaders: { _tag: "switch", pair } } satisfies CatalogOutcome
      }
      tried.push(describeAuthHeaders(pair))
      if (other.left._tag !== "PodUnauthorizedError") {
        yield* say(
          `POD: ${at} refused ${refused} (401); trying ${
            describeAuthHeaders(pair)
          } failed too (${other.left._tag}), so it is not known whether those header names would work`
        )
        return { errors: 1 } satisfies CatalogOutcome
      }
    }
    yield* say(
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
const verifyStores = (app: AppConfig, say: Say) =>
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
          yield* say(`${name}: credentials accepted`)
          const connector = connectors.get(store.key)
          if (connector?.checkAccess === undefined) return
          const found = yield* accessOf(store.key, connector.checkAccess())
          if (found._tag === "Left" && found.left._tag === "StoreUnavailableError") {
            unverified.push(`store ${store.key}'s access (did not answer)`)
            return yield* say(`${name}: NOT VERIFIED: what the app may read could not be read (${found.left.detail})`)
          }
          if (found._tag === "Left") {
            errors++
            return yield* say(`${name}: reading what the app may read failed: ${found.left.message}`)
          }
          for (const finding of found.right) {
            if (finding.severity === "error") errors++
            yield* say(`${name}: ${FINDING_WORDS[finding.severity]}${finding.message}`)
          }
          if (found.right.length === 0) yield* say(`${name}: the app has every access podsync needs`)
          return
        }
        const error = read.left
        switch (error._tag) {
          case "StoreAuthError":
            errors++
            return yield* say(`${name}: refused the credentials (HTTP ${error.status}): check ${credentialKeys(store, index)}`)
          case "StoreUnavailableError":
            unverified.push(`store ${store.key} (did not answer)`)
            return yield* say(`${name}: NOT VERIFIED: did not answer (${error.detail}): its credentials are not checked`)
          default:
            errors++
            return yield* say(`${name}: answered with an error podsync cannot work with: ${error.message}`)
        }
      }), { discard: true })
    return { errors, unverified }
  })

/** Whether any store's mapping file maps a POD variant (else the POD check is one cheap read). */
export const mapsAnyVariant = (files: ReadonlyArray<ParsedMappingFile>) =>
  files.some((f) => f.table.rows.some((r) => r.pod !== undefined && !r.ignore))

/**
 * The POD service (its live catalog against the mapped variants, or one cheap read) and every
 * store, through the `PodRequestGate` and `StoreConnectors` provided: what was found, and every
 * line said on the way (also through `say`).
 */
export const verifyServices = (app: AppConfig, files: ReadonlyArray<ParsedMappingFile>, say: Say) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const sayAndKeep: Say = (line) => Effect.zipRight(Effect.sync(() => void lines.push(line)), say(line))
    const mapped = mapsAnyVariant(files)
    const ask: PodAsk = mapped
      ? (pair) => Effect.map(readCatalog(app, files, pair), Either.map((lookup) => reportCatalog(app, files, lookup, sayAndKeep)))
      : (pair) =>
        Effect.map(
          readOnce(app, pair),
          Either.map(() => Effect.as(sayAndKeep(`POD: the API at ${app.pod.baseUrl} accepts the credentials`), 0))
        )
    const what = mapped ? "the mapped variants" : "nothing else"
    const [pod, stores] = yield* Effect.all([verifyPod(app, ask, what, sayAndKeep), verifyStores(app, sayAndKeep)])
    return {
      lines,
      errors: pod.errors + stores.errors,
      catalogProblems: pod.catalogProblems ?? 0,
      ...(pod.authHeaders === undefined ? {} : { authHeaders: pod.authHeaders }),
      unverified: [...(pod.unverified === undefined ? [] : [pod.unverified]), ...stores.unverified]
    } satisfies ServicesVerdict
  })

/** Each mapping file the stores name, once (several stores may share one), with the stores that name it. */
export const mappingFilesOf = (app: AppConfig) => {
  const byFile = new Map<string, Array<StoreConfig>>()
  for (const store of app.stores) byFile.set(path.resolve(store.mappings), [...(byFile.get(path.resolve(store.mappings)) ?? []), store])
  return [...byFile.values()]
}

/**
 * `podsync check`'s verification inside the daemon (POST /check): the same reads through the
 * daemon's own budget and store connectors, so a check while the daemon holds the embedded
 * database spends from the ledgers the daemon spends from. The POD gate counts its requests in
 * /metrics but does not report to the daemon's health and alerts: the check's tries of other
 * header names are refused on purpose.
 */
export const DaemonCheckLive = (app: AppConfig) =>
  Layer.scoped(
    DaemonCheck,
    Effect.gen(function*() {
      const gate = yield* Layer.build(withPodRequestMetrics(RateBudgetGateLive))
      const connectors = yield* StoreConnectors
      const readFiles = Effect.forEach(mappingFilesOf(app), (stores) => Effect.either(readMappingFile(stores[0]?.mappings ?? "")))
      return {
        verify: readFiles.pipe(
          Effect.map((reads) => reads.flatMap((read) => read._tag === "Right" ? [read.right] : [])),
          Effect.flatMap((files) => verifyServices(app, files, () => Effect.void)),
          Effect.withSpan("ServiceCheck.verifyInDaemon"),
          Effect.provide(gate),
          Effect.provideService(StoreConnectors, connectors)
        )
      }
    })
  )
