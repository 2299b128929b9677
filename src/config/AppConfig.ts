import { ParseResult, Schema } from "effect"
import { validateDetailed } from "node-cron"
import { AlertsConfig } from "./AlertsConfig.js"
import { ConsoleSection } from "./ConsoleConfig.js"
import { StoreConfig } from "./StoreConfig.js"
import { duplicateName, IntLike, NumberLike, optional as optionalWith, Secret, Url, withDefault } from "./ConfigSchemas.js"

/**
 * The configuration file (contract: ARCHITECTURE.md "Configuration"), decoded
 * as a whole by this one Schema. Unknown keys are errors, so a typo is named
 * instead of silently ignored. Secrets decode to Redacted.
 */

const CronExpression = Schema.String.pipe(
  Schema.filter((expression) => {
    const result = validateDetailed(expression)
    return result.valid ||
      `invalid cron expression "${expression}": ${result.errors.map((e) => e.message).join("; ") || "unrecognised"}`
  })
)

const LogLevel = Schema.Literal("trace", "debug", "info", "warning", "error", "none")
/** auto: readable lines on a terminal, JSON lines otherwise (a file, a pipe, a log collector). */
const LogFormat = Schema.Literal("auto", "text", "json")

const RateLimit = Schema.Struct({
  requests: withDefault(IntLike.pipe(Schema.positive()), () => 100),
  windowSeconds: withDefault(NumberLike.pipe(Schema.positive()), () => 10),
  blockSeconds: withDefault(NumberLike.pipe(Schema.positive()), () => 60),
  headroom: withDefault(NumberLike.pipe(Schema.between(0, 0.5)), () => 0.05)
})

/** An exchange rate: one unit of a currency in the base currency, a positive decimal with at most nine decimals, kept as exact text. */
const ExchangeRate = Schema.transformOrFail(Schema.Union(Schema.Number, Schema.String), Schema.String, {
  strict: true,
  decode: (value, _, ast) => {
    const text = typeof value === "number" ? String(value) : value.trim()
    return /^\d+(\.\d{1,9})?$/.test(text) && /[1-9]/.test(text)
      ? ParseResult.succeed(text)
      : ParseResult.fail(
        new ParseResult.Type(
          ast,
          value,
          `expected a positive decimal with at most 9 decimals (one unit in the base currency), got ${JSON.stringify(value)}`
        )
      )
  },
  encode: ParseResult.succeed
})

const CURRENCY_CODE = /^[A-Z]{3}$/
const currencyMessage = "expected an ISO 4217 currency code such as USD, EUR, JPY"
const CurrencyCode = Schema.String.pipe(Schema.pattern(CURRENCY_CODE, { message: () => currencyMessage }))

/**
 * `reports.exchangeRates`: the rates the report converts amounts at, so that one margin covers
 * the orders of every currency. `rates.EUR: 1.08` reads "one EUR is 1.08 of the base currency".
 * The currencies are checked here rather than as the record's key schema, so that a wrong one is
 * named with its path and what to write instead.
 */
const ExchangeRates = Schema.Struct({
  base: CurrencyCode,
  rates: withDefault(Schema.Record({ key: Schema.String, value: ExchangeRate }), () => ({}))
}).pipe(Schema.filter((table) => {
  const wrong = Object.keys(table.rates).find((currency) => !CURRENCY_CODE.test(currency))
  if (wrong !== undefined) return { path: ["rates", wrong], message: `${currencyMessage}; got "${wrong}"` }
  const own = table.rates[table.base]
  return own === undefined || Number(own) === 1 ||
    { path: ["rates", table.base], message: `${table.base} is the base currency: its rate is 1 (leave it out)` }
}))

const WebhookTopic = Schema.String.pipe(Schema.startsWith("TOPIC_"))

/** 127.0.0.0/8, ::1, localhost: an address only this machine reaches. */
const isLoopbackHost = (hostname: string) =>
  hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname)

/**
 * Where the POD service delivers webhooks: it delivers to public HTTPS addresses only, so a plain
 * http:// address is refused unless it is this machine's own (a local trial against the simulator).
 */
const PublicWebhookUrl = Url.pipe(Schema.filter((s) => {
  const url = new URL(s)
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return true
  return `expected a public https:// URL (the POD service delivers webhooks over HTTPS only; http:// only to this machine, ` +
    `127.0.0.1 or localhost, for a trial), got "${s}": put podsync behind a reverse proxy with a certificate (deploy/README.md)`
}))

/**
 * `pod.webhooks`. The service signs deliveries with the API client secret and sends the API client
 * key as X-Connect-Client-Key (there is no separate webhook credential), so both default to
 * `pod.clientSecret` / `pod.clientKey`; `signingKey` and `clientKey` remain as overrides for the
 * configurations written when the signing key was thought to be a separate credential.
 */
const PodWebhooks = Schema.Struct({
  publicUrl: PublicWebhookUrl,
  signingKey: Schema.optionalWith(Secret, { exact: true }),
  clientKey: Schema.optionalWith(Secret, { exact: true }),
  signedPath: Schema.optionalWith(Schema.String.pipe(Schema.startsWith("/")), { exact: true }),
  topics: withDefault(Schema.Array(WebhookTopic), () => [
    "TOPIC_TRACKING_ORDER_UPDATED",
    "TOPIC_ORDER_COMPLETED",
    "TOPIC_ORDER_CANCELLED",
    "TOPIC_ORDER_ON_HOLD",
    "TOPIC_SHIPPING_ADDRESS_VERIFIED",
    "TOPIC_SHIPPING_ADDRESS_UNVERIFIED",
    "TOPIC_PRODUCT_OUT_OF_STOCK"
  ]),
  version: withDefault(Schema.Literal("VERSION_V1", "VERSION_V3"), () => "VERSION_V3" as const)
})

export const PodConfig = Schema.Struct({
  baseUrl: Url,
  clientKey: Secret,
  clientSecret: Secret,
  authHeaders: withDefault(
    Schema.Struct({ key: Schema.NonEmptyTrimmedString, secret: Schema.NonEmptyTrimmedString }),
    () => ({ key: "X-Gearment-Client-Key", secret: "X-Gearment-Client-Secret" })
  ),
  rateLimit: withDefault(RateLimit, () => ({ requests: 100, windowSeconds: 10, blockSeconds: 60, headroom: 0.05 })),
  timeoutMs: withDefault(IntLike.pipe(Schema.between(100, 300_000)), () => 30_000),
  webhooks: Schema.optionalWith(PodWebhooks, { exact: true }),
  /**
   * A fulfilled order is read again every `everyHours` for `forDays`, in case the service ships
   * another box later and no webhook says so (one call per followed order per look); forDays 0: never.
   */
  laterPackages: withDefault(
    Schema.Struct({
      everyHours: withDefault(NumberLike.pipe(Schema.positive()), () => 24),
      forDays: withDefault(NumberLike.pipe(Schema.between(0, 90)), () => 7)
    }),
    () => ({ everyHours: 24, forDays: 7 })
  )
})

/** The reconcile's looks for later boxes, in milliseconds, as the config says them. */
export const laterPackageLooks = (pod: { readonly laterPackages: { readonly everyHours: number; readonly forDays: number } }) => ({
  everyMs: Math.round(pod.laterPackages.everyHours * 3_600_000),
  forMs: Math.round(pod.laterPackages.forDays * 86_400_000)
})

/** The defaults of `webhooks:` (README "Configuration"). */
export const WEBHOOK_INTAKE_DEFAULTS = { retentionDays: 7, maxWaiting: 2000, maxWaitSeconds: 4 } as const

/**
 * `webhooks:`, how the receivers take deliveries in (both store and POD). A delivery is answered
 * once its row is committed; deliveries arriving together share a commit. Beyond what the
 * database commits, a delivery is answered 503 with Retry-After (its sender retries) instead of
 * queueing without bound: when `maxWaiting` deliveries already wait for a commit, or when its
 * own wait passes `maxWaitSeconds`. Delivery keys are remembered `retentionDays`.
 */
const WebhookIntake = Schema.Struct({
  retentionDays: withDefault(IntLike.pipe(Schema.between(1, 365)), () => WEBHOOK_INTAKE_DEFAULTS.retentionDays),
  maxWaiting: withDefault(IntLike.pipe(Schema.between(1, 100_000)), () => WEBHOOK_INTAKE_DEFAULTS.maxWaiting),
  maxWaitSeconds: withDefault(NumberLike.pipe(Schema.between(0.1, 60)), () => WEBHOOK_INTAKE_DEFAULTS.maxWaitSeconds)
})
export type WebhookIntakeConfig = typeof WebhookIntake.Type

export const AppConfig = Schema.Struct({
  database: withDefault(
    Schema.Struct({
      url: Schema.optionalWith(
        Schema.Redacted(Schema.String.pipe(Schema.pattern(/^postgres(ql)?:\/\//, { message: () => "expected a postgres:// URL" }))),
        { exact: true }
      )
    }),
    () => ({})
  ),
  dataDir: withDefault(Schema.NonEmptyTrimmedString, () => "./data"),
  log: withDefault(
    Schema.Struct({ level: withDefault(LogLevel, () => "info" as const), format: withDefault(LogFormat, () => "auto" as const) }),
    () => ({ level: "info" as const, format: "auto" as const })
  ),
  /** Traces of the daemon's work to an OpenTelemetry collector (OTLP over HTTP); absent, and no OTEL_EXPORTER_OTLP_ENDPOINT: none sent. */
  tracing: withDefault(
    Schema.Struct({
      /** The collector's OTLP/HTTP base address (traces go to <address>/v1/traces), as OTEL_EXPORTER_OTLP_ENDPOINT. */
      otlpEndpoint: Schema.optionalWith(Url, { exact: true })
    }),
    () => ({})
  ),
  server: withDefault(
    Schema.Struct({
      host: withDefault(Schema.NonEmptyTrimmedString, () => "127.0.0.1"),
      port: withDefault(IntLike.pipe(Schema.between(0, 65535)), () => 8080),
      /** /readyz answers 503 once a store has failed (unreachable, or refusing its credentials) this long; absent: never. */
      unreadyAfterStoreFailsMinutes: Schema.optionalWith(IntLike.pipe(Schema.between(1, 10_080)), { exact: true })
    }),
    () => ({ host: "127.0.0.1", port: 8080 })
  ),
  console: withDefault(ConsoleSection, () => ({ enabled: true })),
  webhooks: withDefault(WebhookIntake, () => ({ ...WEBHOOK_INTAKE_DEFAULTS })),
  pod: PodConfig,
  stores: Schema.Array(StoreConfig),
  schedules: withDefault(
    Schema.Struct({
      pull: withDefault(CronExpression, () => "*/2 * * * *"),
      reconcile: withDefault(CronExpression, () => "*/5 * * * *"),
      catalog: withDefault(CronExpression, () => "0 */6 * * *"),
      report: withDefault(CronExpression, () => "0 6 * * *")
    }),
    () => ({ pull: "*/2 * * * *", reconcile: "*/5 * * * *", catalog: "0 */6 * * *", report: "0 6 * * *" })
  ),
  reports: withDefault(
    Schema.Struct({
      storeNames: withDefault(Schema.Record({ key: Schema.String, value: Schema.NonEmptyTrimmedString }), () => ({})),
      exchangeRates: optionalWith(ExchangeRates),
      dir: withDefault(Schema.NonEmptyTrimmedString, () => "./reports"),
      formats: withDefault(Schema.Array(Schema.Literal("html", "csv", "json")), () => ["html", "csv", "json"] as const),
      timezone: withDefault(Schema.NonEmptyTrimmedString, () => "UTC"),
      noDraftAfterMinutes: withDefault(IntLike.pipe(Schema.between(1, 10_080)), () => 30),
      notCheckedOutAfterHours: withDefault(IntLike.pipe(Schema.between(1, 720)), () => 24)
    }),
    () => ({
      storeNames: {},
      dir: "./reports",
      formats: ["html", "csv", "json"] as const,
      timezone: "UTC",
      noDraftAfterMinutes: 30,
      notCheckedOutAfterHours: 24
    })
  ),
  alerts: Schema.optionalWith(AlertsConfig, { exact: true }),
  /**
   * `dryRun`: the whole pipeline runs on live orders (pulls, planning, holds, look-ups: reads) but
   * nothing is sent that changes anything at the POD service or a store: what would be sent is
   * recorded in each order's story once (`podsync start --dry-run` turns it on too). `leaseSeconds`:
   * see below.
   */
  pipeline: withDefault(
    Schema.Struct({
      dryRun: withDefault(Schema.Boolean, () => false),
      /**
       * How long a claim on an order lasts without a heartbeat (renewed every quarter of it). On
       * PostgreSQL a killed replica's claims are free the moment its session ends; this is how long
       * they wait where they cannot be tied to a session (the embedded database, a transaction pooler).
       */
      leaseSeconds: withDefault(IntLike.pipe(Schema.between(4, 3_600)), () => 60)
    }),
    () => ({ dryRun: false, leaseSeconds: 60 })
  )
}).pipe(
  Schema.filter((config) => {
    const duplicate = duplicateName(config.stores, (s) => s.key, ["stores"], "key", "store key")
    if (duplicate !== undefined) return duplicate
    const seen = new Set(config.stores.map((s) => s.key))
    const channels = new Set((config.alerts?.channels ?? []).map((c) => c.name))
    // A store (or an alert channel) taken out but still named elsewhere: every such place, each saying both places to edit.
    const missing = (key: string, where: string) =>
      `no store "${key}" under stores: (the stores are ${[...seen].join(", ") || "none"}): ` +
      `take it out of ${where} too, or put the store back under stores:`
    const dangling = [
      ...Object.keys(config.reports.storeNames).filter((key) => !seen.has(key)).map((key) => ({
        path: ["reports", "storeNames", key],
        message: `${missing(key, "reports.storeNames")} (names go by store key)`
      })),
      ...(config.alerts?.rules ?? []).flatMap((rule, index) => [
        ...(rule.stores ?? []).flatMap((key, at) =>
          seen.has(key) ? [] : [{ path: ["alerts", "rules", index, "stores", at], message: missing(key, "this rule") }]
        ),
        ...(rule.channels ?? []).flatMap((name, at) =>
          channels.has(name) ? [] : [{
            path: ["alerts", "rules", index, "channels", at],
            message: `no channel "${name}" under alerts.channels (the channels are ${[...channels].join(", ") || "none"}): ` +
              "take it out of this rule too, or put the channel back under alerts.channels"
          }]
        )
      ])
    ]
    return dangling.length === 0 || dangling
  })
)
export type AppConfig = typeof AppConfig.Type
