import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { bump } from "../kit/stats.js"
import { dropConnection, readBody, simulatorServer } from "../kit/http.js"
import { handleAdmin, type AdminContext } from "./admin.js"
import { decodeBody, prepare, type EndpointConfig, type JsonObject } from "./endpoint.js"
import type { Grant } from "./access.js"
import type { Faults } from "./faults.js"
import { type AppTokens, tokenParams } from "./tokens.js"

/**
 * The HTTP surface: `POST /admin/api/<version>/graphql.json` (X-Shopify-Access-Token, faults, cost) and the
 * `/__sim/` admin routes. Plain node:http so that faults can reset or drop the raw socket.
 */

export interface ServerConfig {
  /** What a request's `X-Shopify-Access-Token` is granted; null: not a token of this shop (401). */
  readonly authorize: (token: string | undefined) => Grant | null
  readonly endpoint: EndpointConfig
  readonly admin: AdminContext
  readonly faults: Faults
  readonly maxBodyBytes: number
  /** A Dev Dashboard app's token endpoint (`/admin/oauth/access_token`); absent: a legacy custom app's static token only. */
  readonly appTokens?: AppTokens
}

const graphqlPath = /^\/admin\/api\/(\d{4}-\d{2}|unstable)\/graphql\.json$/

const unauthorized = { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" }

/**
 * A frozen shop (its bill unpaid) answers 402, a locked one 423, with the error as a string (not a
 * GraphQL error list). Shopify does not publish the exact words; these are the ones seen in the wild.
 */
const unavailableShop = {
  frozen: { status: 402, body: { errors: "Unavailable Shop" } },
  locked: { status: 423, body: { errors: "Locked" } }
}

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

const handleGraphql = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, version: string): Promise<void> => {
  const headers = { "X-Shopify-API-Version": version, "X-Request-Id": crypto.randomUUID() }
  const token = req.headers["x-shopify-access-token"]
  const grant = config.authorize(typeof token === "string" ? token : undefined)
  if (grant === null) {
    config.endpoint.state.stats.unauthorized += 1
    return sendJson(res, 401, unauthorized, headers)
  }
  const standing = config.endpoint.state.shop.standing
  if (standing !== "active") return sendJson(res, unavailableShop[standing].status, unavailableShop[standing].body, headers)
  const stats = config.endpoint.state.stats
  stats.requests += 1
  const raw = await readBody(req, config.maxBodyBytes)
  if (raw === null) return sendJson(res, 413, { errors: "Request body too large" }, headers)
  const body = decodeBody(raw, req.headers["content-type"])
  if (typeof body === "string") return sendJson(res, 400, { errors: body }, headers)
  const prepared = prepare(config.endpoint, body)
  if (prepared.kind === "invalid") return sendJson(res, 200, prepared.answer, headers)
  const fired = config.faults.fire(prepared.rootFields, (kind) => bump(stats.faultsInjected, kind))
  await fired.delay()
  if (fired.has("reset")) return dropConnection(res)
  const error5xx = fired.has("error5xx")
  if (error5xx) {
    return sendJson(res, error5xx.status, { errors: error5xx.status === 503 ? "Service Unavailable" : "Internal Server Error" }, headers)
  }
  const answer: JsonObject = await prepared.run({ forceThrottle: fired.has("throttle") !== undefined, grant })
  const state = config.endpoint.state
  if (state.churnPerOrdersQuery > 0 && prepared.rootFields.includes("orders") && !("errors" in answer)) {
    state.churn(state.churnPerOrdersQuery)
  }
  if (fired.has("commitThenDrop")) return dropConnection(res)
  sendJson(res, 200, answer, headers)
}

const handleTokenRequest = async (appTokens: AppTokens, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const raw = await readBody(req, 64 * 1024)
  if (raw === null) return sendJson(res, 413, { errors: "Request body too large" })
  const answer = appTokens.grant(tokenParams(raw, req.headers["content-type"]))
  sendJson(res, answer.status, answer.body)
}

const handle = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
  const method = req.method ?? "GET"
  if (url.pathname === "/admin/oauth/access_token" && config.appTokens !== undefined) {
    if (method !== "POST") return sendJson(res, 405, { errors: "Method Not Allowed" }, { Allow: "POST" })
    return handleTokenRequest(config.appTokens, req, res)
  }
  const match = graphqlPath.exec(url.pathname)
  if (match) {
    if (method !== "POST") return sendJson(res, 405, { errors: "Method Not Allowed" }, { Allow: "POST" })
    return handleGraphql(config, req, res, match[1]!)
  }
  sendJson(res, 404, { errors: "Not Found" })
}

/** The 500 answer. */
const failure = (res: ServerResponse, detail: string): void => sendJson(res, 500, { errors: "Internal Server Error", detail })

export const makeServer = (config: ServerConfig): Server =>
  simulatorServer(config, { admin: (c, method, path, body) => handleAdmin(c.admin, method, path, body), serve: handle, sendJson, failure })
