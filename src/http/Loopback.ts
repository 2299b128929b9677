import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"

/**
 * Operator endpoints answer callers on this machine only: the same server may
 * face the internet for webhooks.
 */
const isLoopback = (address: string) => address === "::1" || /^(::ffff:)?127\./.test(address)

export const fromLoopback = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => Option.match(request.remoteAddress, { onNone: () => false, onSome: isLoopback })
)

export const loopbackOnly = (what: string) =>
  HttpServerResponse.unsafeJson({ error: `only callers on this machine may use ${what}` }, { status: 403 })

export const stringParam = (name: string) =>
  Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
    const value = params[name]
    return typeof value === "string" && value !== "" ? value : undefined
  })
