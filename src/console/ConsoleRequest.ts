import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { ConsoleAuth } from "./ConsoleAuth.js"
import { admit, type Caller, withSessionCookie } from "./ConsoleGuard.js"
import type { Section } from "./Html.js"

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
  Effect.map(ConsoleAuth, (auth) => ({
    title,
    section,
    user: caller.session.user,
    csrfToken: caller.csrfToken,
    loggedIn: auth.access._tag === "Login"
  }))

/** GET pages: admitted (a local caller gets a session cookie with the page), or turned away. */
export const getPage = <E, R>(render: (caller: Caller) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const admission = yield* admit({ post: false })
    if (admission._tag === "Turned") return admission.response
    const response = yield* render(admission.caller)
    if (!admission.caller.fresh) return response
    const auth = yield* ConsoleAuth
    const request = yield* HttpServerRequest.HttpServerRequest
    return withSessionCookie(response, request, auth.cookieValue(admission.caller.session), admission.caller.session.expiresAtMs)
  })

/** POST actions: admitted with the session's CSRF token (and same origin), or turned away before any work. */
export const postAction = <E, R>(
  act: (caller: Caller, form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.gen(function*() {
    const form = yield* formOf
    const admission = yield* admit({ post: true, form })
    if (admission._tag === "Turned") return admission.response
    return yield* act(admission.caller, form)
  })
