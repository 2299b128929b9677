import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { BlockList, isIP, isIPv6 } from "node:net"
import { Redacted } from "effect"
import type { ConsoleConfig, ConsoleRole } from "../config/ConsoleConfig.js"
import { defaultProxyRole, groupsOf, proxyRoleOf } from "./ConsoleRoles.js"

export { hashPassword, passwordMatches } from "../config/PasswordHash.js"

/**
 * Who may reach the console, decided once from the configuration (pure), and the cryptography
 * its logins use: scrypt password hashes, HMAC-signed session cookies and CSRF tokens.
 */

/** An address as the socket reports it, IPv4-mapped IPv6 written as IPv4 (`::ffff:10.0.0.2` → `10.0.0.2`). */
export const addressOf = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1")

/** Whether `address` is one of `from`: addresses, or networks written as CIDR (`172.16.0.0/12`, a compose network). */
const fromProxy = (from: ReadonlyArray<string>, address: string): boolean =>
  isIP(address) !== 0 && blockListOf(from).check(address, isIPv6(address) ? "ipv6" : "ipv4")

// Made once per configured list, not at every request.
const blockLists = new WeakMap<ReadonlyArray<string>, BlockList>()
const blockListOf = (from: ReadonlyArray<string>): BlockList => {
  const known = blockLists.get(from)
  if (known !== undefined) return known
  const list = new BlockList()
  for (const entry of from) {
    const [base = "", bits] = entry.split("/")
    const family = isIPv6(base) ? "ipv6" : "ipv4"
    if (bits === undefined) list.addAddress(base, family)
    else list.addSubnet(base, Number(bits), family)
  }
  blockLists.set(from, list)
  return list
}

/**
 * The person a trusted proxy names: only on a request whose socket is one of the proxy's
 * addresses; anyone else's header is ignored, so it cannot be forged past the proxy.
 */
export const proxyUserOf = (
  proxy: Pick<ProxyTrust, "userHeader" | "from"> | undefined,
  remoteAddress: string | undefined,
  headers: Readonly<Record<string, string | undefined>>
): string | undefined => {
  if (proxy === undefined || remoteAddress === undefined || !fromProxy(proxy.from, addressOf(remoteAddress))) return undefined
  const user = headers[proxy.userHeader]?.trim()
  return user === undefined || user === "" || user.length > 128 ? undefined : user
}

export const isLoopbackHost = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** The groups a trusted proxy says the person is in (on a request `proxyUserOf` accepts). */
export const proxyGroupsOf = (proxy: ProxyTrust, headers: Readonly<Record<string, string | undefined>>) =>
  groupsOf(headers[proxy.groupsHeader])

/** One person of the team (console.auth.users). */
export interface TeamMember {
  readonly name: string
  readonly role: ConsoleRole
  /** Absent: not a login here; the role of the person the proxy names so. */
  readonly passwordHash?: Redacted.Redacted<string> | undefined
}

export interface LoginAuth {
  /** Who logs in with passwordHash or token: an admin. */
  readonly user: string
  readonly passwordHash: Redacted.Redacted<string> | undefined
  readonly token: Redacted.Redacted<string> | undefined
  readonly users?: ReadonlyArray<TeamMember> | undefined
  readonly sessionHours: number
}

/** A reverse proxy trusted to say who the person is (console.proxy). */
export interface ProxyTrust {
  /** Lower-case, as Node gives request headers. */
  readonly userHeader: string
  readonly groupsHeader: string
  readonly from: ReadonlyArray<string>
  readonly roles: Readonly<Record<string, ConsoleRole>>
  readonly defaultRole: ConsoleRole
}

export type ConsoleAccess =
  /** Not served: why, for the log. */
  | { readonly _tag: "Off"; readonly why: string }
  /** A loopback host without auth: whoever can reach it is on this machine (as for /status); no login. */
  | { readonly _tag: "Local" }
  /** A login (password or token), or a trusted proxy's user header, or both. */
  | { readonly _tag: "Login"; readonly auth: LoginAuth; readonly proxy?: ProxyTrust | undefined }

export const consoleAccessOf = (serverHost: string, config: ConsoleConfig): ConsoleAccess => {
  if (!config.enabled) return { _tag: "Off", why: "console.enabled is false" }
  const auth = config.auth
  // A proxy with no address trusts nobody: as if there were none.
  const proxy = config.proxy === undefined || config.proxy.from.length === 0
    ? undefined
    : {
      userHeader: config.proxy.userHeader.toLowerCase(),
      groupsHeader: (config.proxy.groupsHeader ?? "X-Forwarded-Groups").toLowerCase(),
      from: config.proxy.from.map(addressOf),
      roles: config.proxy.roles ?? {},
      defaultRole: defaultProxyRole(config.proxy.roles, config.proxy.defaultRole)
    }
  const users = auth?.users ?? []
  if (
    (auth !== undefined &&
      (auth.passwordHash !== undefined || auth.token !== undefined || users.some((u) => u.passwordHash !== undefined))) ||
    proxy !== undefined
  ) {
    return {
      _tag: "Login",
      auth: {
        user: auth?.user ?? "seller",
        passwordHash: auth?.passwordHash,
        token: auth?.token,
        users,
        sessionHours: auth?.sessionHours ?? 12
      },
      proxy
    }
  }
  if (isLoopbackHost(serverHost)) return { _tag: "Local" }
  return {
    _tag: "Off",
    why: `server.host ${serverHost} is not a loopback address and console.auth has no passwordHash, token or users: ` +
      'set one (README, "Console") to serve the console'
  }
}

/**
 * The role of the person a session is for, decided at each request from the configuration (a changed
 * role holds at the next click): on this machine without auth, admin; `console.auth.user` (password
 * or token), admin; a team member, their role; a person the trusted proxy names, by `proxy.roles`
 * (their name, or `groups` the proxy sends now), else its default role. Nobody else: viewer.
 */
export const roleOfPerson = (access: ConsoleAccess, user: string, groups: ReadonlyArray<string>): ConsoleRole => {
  if (access._tag !== "Login") return "admin"
  const auth = access.auth
  if (user === auth.user && (auth.passwordHash !== undefined || auth.token !== undefined)) return "admin"
  const member = (auth.users ?? []).find((u) => u.name === user)
  if (member !== undefined) return member.role
  return access.proxy === undefined ? "viewer" : proxyRoleOf(access.proxy, user, groups)
}

const digest = (value: string) => createHash("sha256").update(value).digest()

/** Compares two secrets in constant time whatever their lengths. */
export const sameSecret = (given: string, secret: Redacted.Redacted<string>) =>
  timingSafeEqual(digest(given), digest(Redacted.value(secret)))

const sign = (key: Buffer, value: string) => createHmac("sha256", key).update(value).digest("base64url")

export interface Session {
  readonly user: string
  readonly id: string
  readonly expiresAtMs: number
}

/** The cookie value of a session: its fields, then their HMAC. */
export const sessionCookieValue = (key: Buffer, session: Session) => {
  const body = Buffer.from(JSON.stringify([session.user, session.id, session.expiresAtMs])).toString("base64url")
  return `${body}.${sign(key, `session:${body}`)}`
}

/** The session a cookie value carries, if its signature holds and it has not expired at `nowMs`. */
export const sessionOfCookie = (key: Buffer, value: string, nowMs: number): Session | undefined => {
  const [body, signature] = value.split(".")
  if (body === undefined || signature === undefined) return undefined
  const expected = Buffer.from(sign(key, `session:${body}`))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const fields: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
    if (!Array.isArray(fields)) return undefined
    const [user, id, expiresAtMs] = fields as Array<unknown>
    if (typeof user !== "string" || typeof id !== "string" || typeof expiresAtMs !== "number") return undefined
    return expiresAtMs > nowMs ? { user, id, expiresAtMs } : undefined
  } catch {
    return undefined
  }
}

/** The CSRF token of a session: every form and every htmx request of the session carries it. */
export const csrfTokenOf = (key: Buffer, session: Session) => sign(key, `csrf:${session.id}`)

export const csrfMatches = (key: Buffer, session: Session, given: string | undefined) => {
  if (given === undefined) return false
  const expected = Buffer.from(csrfTokenOf(key, session))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** The key sessions are signed with: from the configured secret, or random for this process. */
export const sessionKeyOf = (secret: Redacted.Redacted<string> | undefined) =>
  secret === undefined ? randomBytes(32) : createHash("sha256").update(`podsync-console:${Redacted.value(secret)}`).digest()
