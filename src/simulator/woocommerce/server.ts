import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { bump } from "../kit/stats.js"
import { dropConnection, readBody, simulatorServer } from "../kit/http.js"
import { handleAdmin, type AdminContext } from "./admin.js"
import { noRoute, wooError, type ApiAnswer, type Route } from "./api.js"
import { authenticate, type ApiKey } from "./auth.js"
import { ordersRoute } from "./ordersApi.js"
import { trackingRoute } from "./trackingApi.js"
import { webhooksRoute } from "./webhooksApi.js"

/**
 * The HTTP surface: the WordPress REST API under `/wp-json/` (or `/?rest_route=` as on sites without
 * pretty permalinks) and the `/__sim/` admin routes. Plain node:http so that faults can reset or drop
 * the raw socket. Order of checks for an API request: host rate limit (429 before WordPress runs),
 * route (404 `rest_no_route`), API key (the `Authorization` header dropped first when the host strips
 * it), faults, then the handler.
 */

export interface ServerConfig {
  readonly ctx: AdminContext
  readonly key: ApiKey
  readonly maxBodyBytes: number
}

const restHeaders = (siteUrl: string): Record<string, string> => ({
  "Content-Type": "application/json; charset=UTF-8",
  "X-Robots-Tag": "noindex",
  "X-Content-Type-Options": "nosniff",
  "Access-Control-Expose-Headers": "X-WP-Total, X-WP-TotalPages, Link",
  Link: `<${siteUrl}/wp-json/>; rel="https://api.w.org/"`
})

const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string>): void => {
  res.writeHead(status, { ...headers, "Content-Length": Buffer.byteLength(body) })
  res.end(body)
}

const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = { "Content-Type": "application/json; charset=UTF-8" }
): void => send(res, status, JSON.stringify(body), headers)

/** What a host or WAF in front of WordPress answers: an HTML page, with Retry-After when it knows. */
const sendHostPage = (res: ServerResponse, status: number, title: string, retryAfter: number | null): void =>
  send(res, status, `<html><head><title>${status} ${title}</title></head><body><h1>${title}</h1></body></html>`, {
    "Content-Type": "text/html; charset=UTF-8",
    ...(retryAfter === null ? {} : { "Retry-After": String(retryAfter) })
  })

/** JSON or form body as WordPress reads it; a string is the error answer. */
const parseBody = (raw: string, contentType: string | undefined): Record<string, unknown> | string => {
  if (raw.trim() === "") return {}
  if ((contentType ?? "").includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(raw))
  try {
    const parsed: unknown = JSON.parse(raw)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    return "invalid"
  }
}

const matchRoute = (ctx: AdminContext, method: string, path: string): Route | null =>
  ordersRoute(ctx, method, path) ?? webhooksRoute(ctx, method, path) ?? trackingRoute(ctx, method, path)

const handleApi = async (
  config: ServerConfig,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  params: URLSearchParams
): Promise<void> => {
  const { ctx } = config
  const headers = restHeaders(ctx.view.siteUrl)
  const method = (req.method ?? "GET").toUpperCase()
  const stats = ctx.state.stats
  ctx.state.recordArrival()
  stats.requests += 1
  const retryAfter = ctx.limiter.admit(ctx.state.now())
  if (retryAfter !== null) {
    stats.rateLimited += 1
    return sendHostPage(res, 429, "Too Many Requests", retryAfter)
  }
  if (path === "/" || path === "") {
    const namespaces = ["wp/v2", "wc/v3", ...(ctx.state.shipmentTracking ? ["wc-shipment-tracking/v3"] : [])]
    return sendJson(res, 200, {
      name: "Acme Prints",
      url: ctx.view.siteUrl,
      home: (ctx.state.host.homeUrl ?? ctx.view.siteUrl).replace(/\/+$/, ""),
      gmt_offset: ctx.state.gmtOffsetHours,
      namespaces,
      authentication: [],
      routes: {}
    }, headers)
  }
  const route = matchRoute(ctx, method, path)
  const answerWith = (answer: ApiAnswer) => sendJson(res, answer.status, answer.body, { ...headers, ...answer.headers })
  if (route === null) return answerWith(noRoute())
  stats.requestsByOperation[route.operation] = (stats.requestsByOperation[route.operation] ?? 0) + 1
  if (route.public !== true) {
    const verdict = authenticate(req.headers, params, config.key, route.access, ctx.state.host.stripsAuthorization)
    if (!verdict.ok) {
      stats.authFailures += 1
      return sendJson(res, verdict.status, verdict.body, headers)
    }
  }
  const raw = await readBody(req, config.maxBodyBytes)
  if (raw === null) return answerWith(wooError(413, "rest_request_too_large", "Request body too large."))
  const body = parseBody(raw, req.headers["content-type"])
  if (body === "invalid") return answerWith(wooError(400, "rest_invalid_json", "Invalid JSON body passed."))

  const fired = ctx.faults.fire(route.operation, (kind) => bump(stats.faultsInjected, kind))
  await fired.delay()
  if (fired.has("reset")) return dropConnection(res)
  const throttled = fired.has("429")
  if (throttled) {
    stats.rateLimited += 1
    return sendHostPage(res, 429, "Too Many Requests", throttled.retryAfterSeconds)
  }
  const error5xx = fired.has("error5xx")
  if (error5xx) {
    if (error5xx.status === 500) {
      return answerWith(wooError(500, "internal_server_error", "<p>There has been a critical error on this website.</p>"))
    }
    return sendHostPage(
      res,
      error5xx.status,
      error5xx.status === 503 ? "Service Unavailable" : error5xx.status === 504 ? "Gateway Timeout" : "Bad Gateway",
      error5xx.retryAfterSeconds
    )
  }
  const answer = await route.handle({ method, params, body: body as Record<string, unknown> })
  if (fired.has("commitThenDrop")) return dropConnection(res)
  answerWith(answer)
}

const handle = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
  if (url.pathname === "/wp-json" || url.pathname.startsWith("/wp-json/")) {
    return handleApi(config, req, res, url.pathname.slice("/wp-json".length).replace(/\/+$/, ""), url.searchParams)
  }
  const restRoute = url.searchParams.get("rest_route")
  if ((url.pathname === "/" || url.pathname === "/index.php") && restRoute !== null) {
    return handleApi(config, req, res, restRoute.replace(/\/+$/, ""), url.searchParams)
  }
  sendHostPage(res, 404, "Not Found", null)
}

/** The 500 answer. */
const failure = (res: ServerResponse, message: string): void =>
  sendJson(res, 500, { code: "internal_server_error", message, data: { status: 500 } })

export const makeServer = (config: ServerConfig): Server =>
  simulatorServer(config, { admin: (c, method, path, body) => handleAdmin(c.ctx, method, path, body), serve: handle, sendJson, failure })
