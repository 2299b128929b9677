import { isIP } from "node:net"
import { Schema } from "effect"
import { duplicateName, IntLike, optional as optionalWith, Secret, withDefault } from "./ConfigSchemas.js"

/** `console:` of the configuration file: the web console, who may log in, and a proxy that logs people in. */

/** `scrypt:<N>:<r>:<p>:<salt, base64>:<hash, base64>` (README "Console" says how to make one). */
export const PASSWORD_HASH_FORMAT = /^scrypt:\d+:\d+:\d+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/

const PasswordHash = Schema.Redacted(Schema.String.pipe(Schema.filter((s) =>
  PASSWORD_HASH_FORMAT.test(s) ||
  'expected scrypt:<N>:<r>:<p>:<salt>:<hash> (README, "Console", prints one for a password); the value is not shown'
)))

/** What a person may do in the console (README "Console", "A team"): look, act on orders and mappings, or everything. */
export const CONSOLE_ROLES = ["viewer", "operator", "admin"] as const
export const ConsoleRole = Schema.Literal(...CONSOLE_ROLES)
export type ConsoleRole = typeof ConsoleRole.Type

const UserName = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._@-]{1,64}$/, {
  message: () => "expected a user name of letters, digits and . _ @ - (at most 64)"
}))

/**
 * One person of the team, who logs in with a password of their own. Without passwordHash (its
 * variable unset) they cannot log in here; their role still holds when the trusted proxy names them.
 */
const ConsoleUser = Schema.Struct({
  name: UserName,
  role: ConsoleRole,
  passwordHash: optionalWith(PasswordHash)
})

/**
 * Who may use the console and how long a login lasts. With neither passwordHash nor token (their
 * variables unset) nobody can log in: the console then counts as having no auth.
 */
const ConsoleAuth = Schema.Struct({
  /** The name a login goes by: recorded as the actor of every action taken in the console. */
  user: withDefault(UserName, () => "seller"),
  /** The password of `user`, who is an admin (the one login of a configuration before `users`). */
  passwordHash: optionalWith(PasswordHash),
  /** Typed in the password field by anyone: logs in as `user`, an admin. */
  token: optionalWith(Secret),
  /** The team: each person with a role and a password of their own. */
  users: optionalWith(Schema.Array(ConsoleUser)),
  /** Signs the session cookies; absent: a random one per start (logins end when the daemon restarts). */
  sessionSecret: optionalWith(Secret),
  sessionHours: withDefault(IntLike.pipe(Schema.between(1, 720)), () => 12)
}).pipe(Schema.filter((auth) =>
  duplicateName(auth.users ?? [], (u) => u.name, ["users"], "name", "user name") ??
    // `user` logs in with passwordHash or token as an admin: a team member of that name would be two people.
    (auth.passwordHash === undefined && auth.token === undefined ? undefined : (() => {
      const index = (auth.users ?? []).findIndex((u) => u.name === auth.user)
      return index < 0 ? undefined : {
        path: ["users", index, "name"],
        message: `"${auth.user}" is also console.auth.user (who logs in with passwordHash or token): give one of them another name`
      }
    })())
))

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
    from: withDefault(Schema.Array(ProxyAddress), () => ["127.0.0.1", "::1"]),
    /** A header with the person's groups, comma-separated (oauth2-proxy's X-Forwarded-Groups, Authelia's Remote-Groups); default X-Forwarded-Groups. */
    groupsHeader: optionalWith(
      Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]{1,64}$/, { message: () => "expected a header name, e.g. X-Forwarded-Groups" }))
    ),
    /** The role of a user name, or of a group written `group:<name>`; a person with several gets the highest. */
    roles: optionalWith(Schema.Record({ key: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)), value: ConsoleRole })),
    /** The role of anyone `roles` does not name. Absent: viewer when `roles` names anyone, else admin (as before roles). */
    defaultRole: optionalWith(ConsoleRole)
  }))
})
export type ConsoleConfig = typeof ConsoleSection.Type
