/**
 * Post/redirect/get for the console's forms: a POST does its work, puts what came of it in a
 * short-lived cookie and answers 303 to a GET page, which shows it once and clears it. A reload
 * of that page then asks nothing again, and the outcome survives the redirect on any replica
 * (it travels with the browser). The cookie is HttpOnly and SameSite=Strict on /console, so no
 * link from elsewhere can put words on a console page.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option, Schema } from "effect"
import { SECURITY_HEADERS } from "./ConsoleGuard.js"

const FLASH_COOKIE = "podsync_flash"
/** Long enough to follow the redirect, short enough that a flash never shows up on a later visit. */
const FLASH_SECONDS = 60
/** Browsers keep a cookie up to 4096 bytes with its name and attributes. */
export const FLASH_MAX_BYTES = 3600

export const encodeFlash = (value: unknown): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")

/** A 303 to `location` carrying `value` (already cut to fit FLASH_MAX_BYTES once encoded). */
export const redirectWithFlash = (location: string, value: unknown) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    HttpServerResponse.unsafeSetCookie(
      HttpServerResponse.redirect(location, { status: 303, headers: SECURITY_HEADERS }),
      FLASH_COOKIE,
      encodeFlash(value),
      {
        path: "/console",
        httpOnly: true,
        sameSite: "strict",
        secure: request.headers["x-forwarded-proto"] === "https",
        maxAge: `${FLASH_SECONDS} seconds`
      }
    ))

/** The flash the request carries, if it is one of `schema`'s shape. */
export const readFlash = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request): Option.Option<A> => {
    const raw = request.cookies[FLASH_COOKIE]
    if (raw === undefined || raw === "") return Option.none()
    try {
      return Schema.decodeUnknownOption(schema)(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")))
    } catch {
      return Option.none()
    }
  })

/** The page that showed a flash clears it: a reload shows the page without it. */
export const clearFlash = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.expireCookie(response, FLASH_COOKIE, { path: "/console" })

/** A message and whether it is good news: what most forms answer. */
export const Notice = Schema.Struct({ ok: Schema.Boolean, text: Schema.String })
export type Notice = typeof Notice.Type

/** Shortens a text so that a flash of it fits the cookie. */
export const fitText = (text: string, max = 1500) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** Renders a GET page with the flash its request carries (if any), and clears it. */
export const withFlash = <A, I, E, R>(
  schema: Schema.Schema<A, I>,
  render: (flash: Option.Option<A>) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(
    readFlash(schema),
    (flash) => Effect.map(render(flash), (response) => (Option.isSome(flash) ? clearFlash(response) : response))
  )

/** Keeps the first items of `items` that fit the cookie with `wrap` around them, saying how many were left out. */
export const fitItems = <T, W>(items: ReadonlyArray<T>, wrap: (kept: ReadonlyArray<T>, more: number) => W): W => {
  let kept = items.length
  while (kept > 0 && encodeFlash(wrap(items.slice(0, kept), items.length - kept)).length > FLASH_MAX_BYTES) kept--
  return wrap(items.slice(0, kept), items.length - kept)
}
