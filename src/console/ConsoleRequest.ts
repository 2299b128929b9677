import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Clock, Effect } from "effect"
import { isDryRun } from "../config/DryRun.js"
import { type ConsoleActionEntry, ConsoleActionsRepo } from "../repos/ConsoleActionsRepo.js"
import { ConsoleAuth } from "./ConsoleAuth.js"
import { admit, type Caller, htmlResponse, withSessionCookie } from "./ConsoleGuard.js"
import { html, plainPage, type Section } from "./Html.js"

/** What every console route reads of its request: the form, the query, the page's chrome, and GET and POST admission. */

export type Form = ReadonlyArray<readonly [string, string]>

export const formOf = Effect.flatMap(HttpServerRequest.HttpServerRequest, (r) => r.urlParamsBody).pipe(
  Effect.map((params): Form => params),
  Effect.orElseSucceed((): Form => [])
)

export const param = (form: Form, name: string) => form.find(([k]) => k === name)?.[1]

export const query = (name: string) =>
  Effect.map(HttpServerRequest.ParsedSearchParams, (p) => {
    const v = p[name]
    return typeof v === "string" && v !== "" ? v : undefined
  })

export const chrome = (caller: Caller, title: string, section: Section) =>
  Effect.zipWith(ConsoleAuth, isDryRun, (auth, dryRun) => ({
    title,
    section,
    user: caller.session.user,
    csrfToken: caller.csrfToken,
    loggedIn: auth.access._tag === "Login",
    ...(dryRun ? { dryRun } : {}),
    role: caller.role
  }))

/** Records what the caller did for the audit page (console_actions): who and with which role, what, when. */
export const recordActions = (caller: Caller, entries: ReadonlyArray<Omit<ConsoleActionEntry, "actor" | "role">>) =>
  Effect.flatMap(
    ConsoleActionsRepo,
    (repo) => repo.record(entries.map((entry) => ({ ...entry, actor: caller.session.user, role: caller.role })))
  )

/** What failed, in a line a seller can pass on: the error's kind and message, any credentials in an address cut out. */
export const failureInWords = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const tag = typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : undefined
  const text = error instanceof Error
    ? `${tag ?? error.name}: ${error.message}`
    : tag ?? (typeof error === "string" ? error : "an unknown error")
  return text.replace(/\/\/[^/@\s]*@/g, "//…@").slice(0, 500)
}

const failurePage = (method: string, path: string, what: string, at: string) =>
  plainPage(
    "Something failed",
    html`
        <h1>This page could not be shown</h1>
        <p class="flash refused" role="alert" data-testid="failure">${method} ${path} failed: ${what}</p>
        <p>Nothing was changed by showing it. The error is in podsync's log at error level (${at} UTC), with this address.
          Reload to try again; if it fails again, send that log line to whoever runs podsync.</p>
        <p><a href="/console">Back to the overview</a></p>
      `
  )

/**
 * Every console route, once: an unexpected failure (a defect, or an error the page did not handle) is
 * logged at error level with the request's method and path (never its cookies, query or body) and
 * answered with a page that says what failed, instead of an empty 500.
 */
const answeringFailures = <E, R>(
  respond: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.catchAllCause(
    respond,
    (cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const path = request.url.split("?")[0] ?? request.url
        const what = failureInWords(cause)
        const at = new Date(yield* Clock.currentTimeMillis).toISOString().replace("T", " ").slice(0, 19)
        yield* Effect.logError(`console: ${request.method} ${path} failed: ${what}`, cause).pipe(
          Effect.annotateLogs({ method: request.method, path })
        )
        return htmlResponse(failurePage(request.method, path, what, at), 500)
      })
  )

/** GET pages: admitted (a local caller gets a session cookie with the page), or turned away. */
export const getPage = <E, R>(render: (caller: Caller) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  answeringFailures(Effect.gen(function*() {
    const admission = yield* admit({ post: false })
    if (admission._tag === "Turned") return admission.response
    const response = yield* render(admission.caller)
    if (!admission.caller.fresh) return response
    const auth = yield* ConsoleAuth
    const request = yield* HttpServerRequest.HttpServerRequest
    return withSessionCookie(response, request, auth.cookieValue(admission.caller.session), admission.caller.session.expiresAtMs)
  }))

/** POST actions: admitted with the session's CSRF token (and same origin), or turned away before any work. */
export const postAction = <E, R>(
  act: (caller: Caller, form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  answeringFailures(Effect.gen(function*() {
    const form = yield* formOf
    const admission = yield* admit({ post: true, form })
    if (admission._tag === "Turned") return admission.response
    return yield* act(admission.caller, form)
  }))
