import { isIP } from "node:net"
import { Schema } from "effect"
import { IntLike, optional as optionalWith, Secret, withDefault } from "./ConfigSchemas.js"

/** `console:` of the configuration file: the web console, who may log in, and a proxy that logs people in. */

/** `scrypt:<N>:<r>:<p>:<salt, base64>:<hash, base64>` (README "Console" says how to make one). */
export const PASSWORD_HASH_FORMAT = /^scrypt:\d+:\d+:\d+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/

const PasswordHash = Schema.Redacted(Schema.String.pipe(Schema.filter((s) =>
  PASSWORD_HASH_FORMAT.test(s) ||
  'expected scrypt:<N>:<r>:<p>:<salt>:<hash> (README, "Console", prints one for a password); the value is not shown'
)))

/**
 * Who may use the console and how long a login lasts. With neither passwordHash nor token (their
 * variables unset) nobody can log in: the console then counts as having no auth.
 */
const ConsoleAuth = Schema.Struct({
  /** The name a login goes by: recorded as the actor of every action taken in the console. */
  user: withDefault(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._@-]{1,64}$/)), () => "seller"),
  passwordHash: optionalWith(PasswordHash),
  token: optionalWith(Secret),
  /** Signs the session cookies; absent: a random one per start (logins end when the daemon restarts). */
  sessionSecret: optionalWith(Secret),
  sessionHours: withDefault(IntLike.pipe(Schema.between(1, 720)), () => 12)
})

/** An IP address or a CIDR network (`10.0.0.2`, `172.16.0.0/12`, `::1`). */
const ProxyAddress = Schema.NonEmptyTrimmedString.pipe(Schema.filter((entry) => {
  const [base = "", bits, ...rest] = entry.split("/")
  const family = isIP(base)
  const max = family === 6 ? 128 : 32
  return (family !== 0 && rest.length === 0 && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max))) ||
    `expected an IP address or a CIDR network (10.0.0.2, 172.16.0.0/12); got "${entry}"`
}))

/** The web console at /console (README "Console"). */
export const ConsoleSection = Schema.Struct({
  /** false turns it off; true (the default) serves it on a loopback host, and elsewhere only with auth. */
  enabled: withDefault(Schema.Boolean, () => true),
  auth: optionalWith(ConsoleAuth),
  /** An order's page at the POD service, `{id}` standing for its POD order (or draft) id: "open at the POD service" links. */
  podOrderUrl: optionalWith(
    Schema.String.pipe(Schema.filter((url) =>
      url === "" || (URL.canParse(url.replaceAll("{id}", "x")) && url.includes("{id}")) ||
      `expected a URL with {id} where the POD order id goes (https://seller.pod.example/orders/{id}); got "${url}"`
    ))
  ),
  /**
   * A reverse proxy that authenticates people (Caddy's forward_auth, nginx's auth_request, oauth2-proxy):
   * a request from one of `from` carrying `userHeader` is that user, with no podsync login. Counts as auth.
   */
  proxy: optionalWith(Schema.Struct({
    userHeader: withDefault(
      Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]{1,64}$/, { message: () => "expected a header name, e.g. X-Forwarded-User" })),
      () => "X-Forwarded-User"
    ),
    /** The proxy's addresses as podsync sees them, or networks (CIDR); a header from anywhere else is ignored. */
    from: withDefault(Schema.Array(ProxyAddress), () => ["127.0.0.1", "::1"])
  }))
})
export type ConsoleConfig = typeof ConsoleSection.Type
