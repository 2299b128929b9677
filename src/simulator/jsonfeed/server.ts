/**
 * The HTTP surface: the contract's endpoints below `basePath` (bearer token,
 * rate limit, faults) and the `/__sim/` admin routes. Plain node:http, so a
 * fault can drop the raw socket.
 */
import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { bump } from "../kit/stats.js"
import { dropConnection, readBody, simulatorServer } from "../kit/http.js"
import { type AdminContext, handleAdmin } from "./admin.js"
import { type ApiContext, handleApi, routeOf } from "./api.js"
import type { Faults } from "./faults.js"
import type { SlidingWindowLimiter } from "./limiter.js"
import { wireError } from "./wire.js"

export interface ServerConfig {
  readonly basePath: string
  readonly token: string
  readonly api: ApiContext
  readonly admin: AdminContext
  readonly faults: Faults
  readonly limiter: SlidingWindowLimiter
  readonly maxBodyBytes: number
}

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "X-Request-Id": randomUUID(),
    ...headers
  })
  res.end(text)
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

const handleContract = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
  const method = req.method ?? "GET"
  const route = routeOf(method, url.pathname.slice(config.basePath.length))
  if (route === null) return sendJson(res, 404, wireError("not_found", `no endpoint ${method} ${url.pathname}`))
  if (route === "method_not_allowed") return sendJson(res, 405, wireError("invalid_request", `${method} is not allowed here`))

  const authorization = header(req, "authorization")
  if (authorization !== `Bearer ${config.token}`) {
    return sendJson(res, 401, wireError("unauthorized", "send Authorization: Bearer <token>"), { "WWW-Authenticate": "Bearer" })
  }
  const stats = config.api.state.stats
  const admission = config.limiter.admit()
  if (!admission.ok) {
    stats.rateLimited += 1
    return sendJson(res, 429, wireError("rate_limited", "too many requests"), { "Retry-After": String(admission.retryAfterSeconds) })
  }
  stats.requests += 1
  stats.requestsByOperation[route.operation] = (stats.requestsByOperation[route.operation] ?? 0) + 1
  const rawBody = await readBody(req, config.maxBodyBytes)
  if (rawBody === null) return sendJson(res, 413, wireError("invalid_request", "the body is too large"))

  const fired = config.faults.fire(route.operation, (kind) => bump(stats.faultsInjected, kind))
  const limited = fired.has("rateLimit")
  if (limited) {
    return sendJson(res, 429, wireError("rate_limited", "too many requests"), { "Retry-After": String(limited.retryAfterSeconds) })
  }
  if (fired.has("reset")) return dropConnection(res)
  const error5xx = fired.has("error5xx")
  if (error5xx) return sendJson(res, error5xx.status, wireError("internal_error", "the storefront failed; nothing was done"))
  const pause = () => fired.delay()

  const answer = await handleApi(config.api, {
    route,
    query: url.searchParams,
    idempotencyKey: header(req, "idempotency-key"),
    rawBody,
    pause
  })
  if (fired.has("commitThenDrop")) return dropConnection(res)
  sendJson(res, answer.status, answer.body, answer.headers)
}

const handle = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
  if (url.pathname === config.basePath || url.pathname.startsWith(`${config.basePath}/`)) {
    return handleContract(config, req, res, url)
  }
  sendJson(res, 404, wireError("not_found", `no endpoint ${url.pathname}`))
}

/** The 500 answer. */
const failure = (res: ServerResponse, message: string): void => sendJson(res, 500, wireError("internal_error", message))

export const makeServer = (config: ServerConfig): Server =>
  simulatorServer(config, { admin: (c, method, path, body) => handleAdmin(c.admin, method, path, body), serve: handle, sendJson, failure })
