import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { handleAdmin, type AdminContext } from "./admin.js"
import { decodeBody, prepare, type EndpointConfig, type JsonObject } from "./endpoint.js"
import type { Faults } from "./faults.js"

/**
 * The HTTP surface: `POST /admin/api/<version>/graphql.json` (X-Shopify-Access-Token, faults, cost) and the
 * `/__sim/` admin routes. Plain node:http so that faults can reset or drop the raw socket.
 */

export interface ServerConfig {
  readonly accessToken: string
  readonly endpoint: EndpointConfig
  readonly admin: AdminContext
  readonly faults: Faults
  readonly maxBodyBytes: number
}

const graphqlPath = /^\/admin\/api\/(\d{4}-\d{2}|unstable)\/graphql\.json$/

const unauthorized = { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" }

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

const readBody = (req: IncomingMessage, limit: number): Promise<string | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) chunks.push(chunk)
    })
    req.on("end", () => resolve(size > limit ? null : Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const dropConnection = (res: ServerResponse): void => {
  res.socket?.resetAndDestroy?.()
  res.socket?.destroy()
}

const handleGraphql = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, version: string): Promise<void> => {
  const headers = { "X-Shopify-API-Version": version, "X-Request-Id": crypto.randomUUID() }
  const token = req.headers["x-shopify-access-token"]
  if (token !== config.accessToken) return sendJson(res, 401, unauthorized, headers)
  const stats = config.endpoint.state.stats
  stats.requests += 1
  const raw = await readBody(req, config.maxBodyBytes)
  if (raw === null) return sendJson(res, 413, { errors: "Request body too large" }, headers)
  const body = decodeBody(raw, req.headers["content-type"])
  if (typeof body === "string") return sendJson(res, 400, { errors: body }, headers)
  const prepared = prepare(config.endpoint, body)
  if (prepared.kind === "invalid") return sendJson(res, 200, prepared.answer, headers)
  const fired = config.faults.draw(prepared.rootFields)
  for (const f of fired) stats.faultsInjected[f.kind] = (stats.faultsInjected[f.kind] ?? 0) + 1
  const has = (kind: string) => fired.find((f) => f.kind === kind)
  const latency = has("latency")
  if (latency) await sleep(config.faults.latencyOf(latency))
  if (has("reset")) return dropConnection(res)
  const error5xx = has("error5xx")
  if (error5xx) {
    return sendJson(res, error5xx.status, { errors: error5xx.status === 503 ? "Service Unavailable" : "Internal Server Error" }, headers)
  }
  const answer: JsonObject = await prepared.run({ forceThrottle: has("throttle") !== undefined })
  const state = config.endpoint.state
  if (state.churnPerOrdersQuery > 0 && prepared.rootFields.includes("orders") && !("errors" in answer)) {
    state.churn(state.churnPerOrdersQuery)
  }
  if (has("commitThenDrop")) return dropConnection(res)
  sendJson(res, 200, answer, headers)
}

const handle = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const url = new URL(req.url ?? "/", "http://simulator")
  const method = req.method ?? "GET"
  if (url.pathname.startsWith("/__sim/") || url.pathname === "/__sim") {
    const raw = await readBody(req, config.maxBodyBytes)
    let parsed: unknown = {}
    if (raw !== null && raw.trim().length > 0) {
      try {
        parsed = JSON.parse(raw)
      } catch {
        return sendJson(res, 400, { error: "body must be JSON" })
      }
    }
    const answer = await handleAdmin(config.admin, method, url.pathname, parsed)
    return sendJson(res, answer.status, answer.body)
  }
  const match = graphqlPath.exec(url.pathname)
  if (match) {
    if (method !== "POST") return sendJson(res, 405, { errors: "Method Not Allowed" }, { Allow: "POST" })
    return handleGraphql(config, req, res, match[1]!)
  }
  sendJson(res, 404, { errors: "Not Found" })
}

export const makeServer = (config: ServerConfig): Server =>
  createServer((req, res) => {
    handle(config, req, res).catch((error: unknown) => {
      if (res.headersSent) return dropConnection(res)
      sendJson(res, 500, { errors: "Internal Server Error", detail: error instanceof Error ? error.message : String(error) })
    })
  })
