import { Schema } from "effect"
import { eventPatternProblem } from "../domain/Alert.js"
import { duplicateName, IntLike, NumberLike, optional, Secret, Url, withDefault } from "./ConfigSchemas.js"

/**
 * `alerts:` (ARCHITECTURE.md "Configuration"; README "Alerts"): where alerts go (channels), which
 * go where (rules), how they are grouped (digest, quiet hours), and when a condition of the
 * daemon is worth an alert (thresholds). Optional: without it nothing is sent, and the outbox
 * still records what would have been.
 */

// A URL that carries a token (a Slack incoming webhook): checked like a URL, never printed.
const SecretUrl = Schema.Redacted(Schema.NonEmptyTrimmedString.pipe(
  Schema.filter((s) => URL.canParse(s)),
  Schema.annotations({ message: () => ({ message: "expected an absolute URL such as https://host/path", override: true }) })
))

const Name = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9-]*$/, { message: () => "expected lower-case letters, digits and dashes ([a-z0-9-]+)" })
)

const Address = Schema.NonEmptyTrimmedString.pipe(
  Schema.filter((s) => /^[^\s@<>]+@[^\s@<>]+$/.test(s) || /<[^\s@<>]+@[^\s@<>]+>$/.test(s) || `expected an email address, got "${s}"`)
)

/** A list of addresses, or one text of them separated by commas (as one environment variable gives them). */
const Recipients = Schema.transform(Schema.Union(Schema.Array(Schema.String), Schema.String), Schema.Array(Address), {
  strict: true,
  decode: (given) =>
    typeof given === "string" ? given.split(",").map((address) => address.trim()).filter((address) => address !== "") : given,
  encode: (addresses) => addresses
}).pipe(Schema.filter((addresses) => addresses.length > 0 || "expected at least one address"))

/** A Slack incoming webhook, or anything that takes Slack's `{"text": …}` (Mattermost, Rocket.Chat, Discord's /slack). */
const SlackChannel = Schema.Struct({ url: SecretUrl })

/**
 * Email over SMTP. `tls`: `starttls` (upgrade on port 587, required), `implicit` (TLS from the
 * first byte, port 465), `none` (a relay on this machine or a test server).
 */
const EmailChannel = Schema.Struct({
  host: Schema.NonEmptyTrimmedString,
  port: withDefault(IntLike.pipe(Schema.between(1, 65535)), () => 587),
  tls: withDefault(Schema.Literal("starttls", "implicit", "none"), () => "starttls" as const),
  user: optional(Secret),
  password: optional(Secret),
  from: Address,
  to: Recipients
})

/** A JSON POST signed with HMAC-SHA256 (README "Alerts": the headers and how to check them). */
const WebhookChannel = Schema.Struct({ url: Url, secret: Secret })

const ChannelFields = Schema.Struct({
  name: Name,
  slack: optional(SlackChannel),
  email: optional(EmailChannel),
  webhook: optional(WebhookChannel),
  timeoutSeconds: withDefault(NumberLike.pipe(Schema.between(1, 120)), () => 10)
})

const KINDS = ["slack", "email", "webhook"] as const

export const AlertChannelConfig = ChannelFields.pipe(
  Schema.filter((channel) => {
    const present = KINDS.filter((kind) => channel[kind] !== undefined)
    return present.length === 1 ||
      (present.length === 0
        ? `channel "${channel.name}" needs one of slack, email, webhook`
        : `channel "${channel.name}" has ${present.join(" and ")}: give one kind per channel (make two channels)`)
  })
)
export type AlertChannelConfig = typeof AlertChannelConfig.Type

const EventPattern = Schema.String.pipe(Schema.filter((pattern) => eventPatternProblem(pattern) ?? true))

/** Which alerts go to which channels: every listed event (of the listed stores) to every listed channel. */
const Rule = Schema.Struct({
  events: withDefault(Schema.Array(EventPattern), () => ["*"]),
  stores: optional(Schema.Array(Schema.NonEmptyTrimmedString)),
  channels: optional(Schema.Array(Name))
})

const Clock = Schema.String.pipe(Schema.pattern(/^([01]\d|2[0-3]):[0-5]\d$/, { message: () => "expected HH:MM (24-hour)" }))

const TimeZone = Schema.NonEmptyTrimmedString.pipe(Schema.filter((zone) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return true
  } catch {
    return `unknown time zone "${zone}" (an IANA name such as Europe/Paris)`
  }
}))

const Thresholds = Schema.Struct({
  storeUnreachableMinutes: withDefault(NumberLike.pipe(Schema.between(0, 1440)), () => 15),
  podUnreachableMinutes: withDefault(NumberLike.pipe(Schema.between(0, 1440)), () => 10),
  noProgressMinutes: withDefault(NumberLike.pipe(Schema.between(1, 1440)), () => 30),
  databaseFailingMinutes: withDefault(NumberLike.pipe(Schema.between(0, 1440)), () => 5)
})
const THRESHOLD_DEFAULTS = { storeUnreachableMinutes: 15, podUnreachableMinutes: 10, noProgressMinutes: 30, databaseFailingMinutes: 5 }

export const AlertsConfig = Schema.Struct({
  channels: Schema.Array(AlertChannelConfig),
  /** Absent: every alert to every channel. */
  rules: optional(Schema.Array(Rule)),
  /** The first alert goes at once; what follows within this many minutes of a send goes as one message then. 0: each at once. */
  digestMinutes: withDefault(NumberLike.pipe(Schema.between(0, 1440)), () => 15),
  /** Alerts wait until `to` (except refused credentials, which stop everything). */
  quietHours: optional(
    Schema.Struct({ from: optional(Clock), to: optional(Clock), timezone: withDefault(TimeZone, () => "UTC") }).pipe(
      // Both or neither: neither (their variables unset) is no quiet hours.
      Schema.filter((quiet) =>
        (quiet.from === undefined) === (quiet.to === undefined) ||
        { path: [quiet.from === undefined ? "from" : "to"], message: "give both from and to (or neither: no quiet hours)" }
      )
    )
  ),
  thresholds: withDefault(Thresholds, () => THRESHOLD_DEFAULTS),
  /** A failed send is retried this many times in all, waiting firstDelaySeconds, then twice as long each time; then it is failed. */
  retry: withDefault(
    Schema.Struct({
      attempts: withDefault(IntLike.pipe(Schema.between(1, 20)), () => 6),
      firstDelaySeconds: withDefault(NumberLike.pipe(Schema.between(0, 3600)), () => 30)
    }),
    () => ({ attempts: 6, firstDelaySeconds: 30 })
  ),
  /** After the day's report is written, a short summary of it goes to the channels as an alert (report.summary). */
  dailySummary: withDefault(Schema.Boolean, () => false),
  /** Where a person opens podsync (links to an order's story); default: the server's own address. */
  linkBaseUrl: optional(Url)
}).pipe(
  Schema.filter((alerts) => {
    const duplicate = duplicateName(alerts.channels, (c) => c.name, ["channels"], "name", "channel name")
    return duplicate ?? true
  })
)
export type AlertsConfig = typeof AlertsConfig.Type
