import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { seenOrderOf } from "../pipeline/PersonActions.js"
import { AttentionRepo } from "../repos/AttentionRepo.js"
import { ConsoleActionsRepo } from "../repos/ConsoleActionsRepo.js"
import type { Session } from "./ConsoleAccess.js"
import { isLoopbackHost, proxyGroupsOf, proxyUserOf, roleOfPerson } from "./ConsoleAccess.js"
import { ConsoleAuth, SESSION_COOKIE } from "./ConsoleAuth.js"
import { type ConsoleRole, mayPost, POST_ROUTES, roleNeededFor } from "./ConsoleRoles.js"
import { roleRefusalPage } from "./Html.js"

/**
 * What every console request passes: the console is served at all, the caller has a session
 * (on a loopback host without auth, one is given to callers on this machine), a POST carries
 * the session's CSRF token and comes from the console's own origin, and the caller's role may send
 * it (ConsoleRoles: every POST route and the role it needs; a refusal is recorded for the audit page).
 */

/** No script or style from anywhere but the daemon, no framing, no inline code, forms only to itself. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'"
].join("; ")

export const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

export const htmlResponse = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: SECURITY_HEADERS })

const refusal = (status: number, message: string) =>
  HttpServerResponse.text(message, { status, contentType: "text/plain; charset=utf-8", headers: SECURITY_HEADERS })

export const notServed = refusal(404, "the console is not served (console.enabled, or console.auth on a host that is not loopback)")

/** Behind a TLS-terminating proxy the cookie is marked Secure. */
const cameOverHttps = (request: HttpServerRequest.HttpServerRequest) => request.headers["x-forwarded-proto"] === "https"

export const withSessionCookie = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest,
  value: string,
  expiresAtMs: number
) =>
  HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, value, {
    path: "/console",
    httpOnly: true,
    sameSite: "strict",
    secure: cameOverHttps(request),
    expires: new Date(expiresAtMs)
  })

const hostName = (host: string | undefined) => (host ?? "").replace(/:\d+$/, "")

/** A same-origin POST: browsers send Origin on every POST; one naming another host is a forgery. */
const sameOrigin = (request: HttpServerRequest.HttpServerRequest) => {
  const origin = request.headers["origin"]
  if (origin === undefined || origin === "null") return origin === undefined
  return URL.canParse(origin) && new URL(origin).host === (request.headers["host"] ?? "")
}

export interface Caller {
  readonly session: Session
  readonly csrfToken: string
  /** A session given now (loopback without auth): the response sets its cookie. */
  readonly fresh: boolean
  /** What the person may do, from the configuration at this request. */
  readonly role: ConsoleRole
}

export type Admission = { readonly _tag: "Admitted"; readonly caller: Caller } | {
  readonly _tag: "Turned"
  readonly response: HttpServerResponse.HttpServerResponse
}

/** Admits a request to a console page or action, or answers it (not served, log in, forbidden). */
export const admit = (options: { readonly post: boolean; readonly form?: ReadonlyArray<readonly [string, string]> }) =>
  Effect.gen(function*() {
    const auth = yield* ConsoleAuth
    const request = yield* HttpServerRequest.HttpServerRequest
    const turned = (response: HttpServerResponse.HttpServerResponse): Admission => ({ _tag: "Turned", response })
    if (auth.access._tag === "Off") return turned(notServed)
    let session = yield* auth.sessionOf(request.cookies[SESSION_COOKIE])
    let fresh = false
    const proxyUser = auth.access._tag === "Login"
      ? proxyUserOf(auth.access.proxy, Option.getOrUndefined(request.remoteAddress), request.headers)
      : undefined
    // Behind a trusted proxy the proxy says who this is: a session of someone else's is not theirs.
    if (proxyUser !== undefined && session?.user !== proxyUser) {
      if (options.post) return turned(refusal(403, "refused: this form is not one the console gave this session (log in again)"))
      session = yield* auth.proxySession(proxyUser)
      fresh = true
    }
    if (session === undefined) {
      if (auth.access._tag === "Local" && !options.post) {
        // Without auth only this machine is let in; the Host check stops a DNS-rebinding page.
        const local = Option.match(request.remoteAddress, { onNone: () => false, onSome: isLoopbackHost })
          || Option.exists(request.remoteAddress, (a) => a.startsWith("::ffff:127."))
        // A proxied request (forwarding headers) comes from elsewhere, whatever its socket says.
        const proxied = ["x-forwarded-for", "forwarded", "x-real-ip"].some((h) => request.headers[h] !== undefined)
        if (!local || proxied || !isLoopbackHost(hostName(request.headers["host"]))) {
          return turned(refusal(403, "without console.auth the console answers only on this machine, at a loopback address"))
        }
        session = yield* auth.localSession
        fresh = true
      } else if (options.post) {
        return turned(refusal(403, "not logged in: log in at /console/login"))
      } else {
        return turned(HttpServerResponse.redirect("/console/login", { status: 303, headers: SECURITY_HEADERS }))
      }
    }
    const groups = proxyUser !== undefined && auth.access._tag === "Login" && auth.access.proxy !== undefined
      ? proxyGroupsOf(auth.access.proxy, request.headers)
      : []
    const role = roleOfPerson(auth.access, session.user, groups)
    if (options.post) {
      const given = request.headers["x-csrf-token"] ?? options.form?.find(([k]) => k === "_csrf")?.[1]
      if (!sameOrigin(request) || !auth.csrfMatches(session, given)) {
        return turned(refusal(403, "refused: this form is not one the console gave this session (missing or wrong CSRF token)"))
      }
      const path = request.url.split("?")[0] ?? request.url
      if (!mayPost(role, path)) {
        const needed = roleNeededFor(path)
        yield* Effect.logWarning("console: action refused to the person's role").pipe(
          Effect.annotateLogs({ user: session.user, role, needed, path })
        )
        const summary = refusedSummary(path, needed, options.form ?? [])
        // A refused action on orders names each order it was for, as a done one does.
        const references = yield* referencesOf(path, options.form ?? [])
        yield* Effect.flatMap(ConsoleActionsRepo, (repo) =>
          repo.record(
            (references.length === 0 ? [null] : references).map((referenceId) => ({
              actor: session.user,
              role,
              kind: "refused",
              outcome: "refused" as const,
              summary,
              referenceId
            }))
          ))
        return turned(htmlResponse(roleRefusalPage({ user: session.user, role, needed, path }), 403))
      }
    }
    return { _tag: "Admitted", caller: { session, csrfToken: auth.csrfToken(session), fresh, role } } satisfies Admission
  })

/** The orders a queue form names (a row's button in `one`, the ticked rows in `sel`), by reference; at most 200. */
const referencesOf = (path: string, form: ReadonlyArray<readonly [string, string]>) => {
  if (path !== "/console/queue/act") return Effect.succeed([])
  const one = form.find(([k]) => k === "one")?.[1]
  const values = one !== undefined ? [one.split("|").slice(1).join("|")] : form.filter(([k]) => k === "sel").map(([, v]) => v)
  const ids = values.map(seenOrderOf).filter((s) => s !== undefined).map((s) => s.id).slice(0, 200)
  return Effect.map(Effect.flatMap(AttentionRepo, (repo) => repo.byIds(ids)), (orders) => orders.map((o) => o.referenceId))
}

/** What a refused person tried, for the audit page: the form's action, and its order or store when it names one. */
const refusedSummary = (path: string, needed: ConsoleRole, form: ReadonlyArray<readonly [string, string]>) => {
  const field = (name: string) => form.find(([k]) => k === name)?.[1]
  // The queue's forms name their action in `one` (a row's button) or `bulk`.
  const action = path === "/console/queue/act" ? field("one")?.split("|")[0] ?? field("bulk") : undefined
  const store = field("store")
  const what = [
    POST_ROUTES[path]?.what ?? `send ${path}`,
    action === undefined || action === "" ? undefined : `(${action.replaceAll("_", " ")})`,
    store === undefined || store === "" ? undefined : `for ${store}`
  ].filter((w) => w !== undefined).join(" ")
  return `tried to ${what}: refused, needs ${needed}`
}
