// The simulator's HTTP server: plain node:http (raw sockets are needed for resets
// and commit-then-drop). Pipeline per request: route → auth → rate limit →
// faults before → handler → faults after → answer.
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { createServer } from "node:http"
import { authenticateV3, type HeaderPair } from "./auth.js"
import { malformedText, withUnknownEnums } from "./faults.js"
import type { FaultBoard } from "./faults.js"
import type { SlidingWindowLimiter } from "./limiter.js"
import type { Route } from "./routes.js"
import { withSomeEnumNumbers } from "./protoJson.js"
import { matchRoute, routeKey } from "./routes.js"
import type { SimStats } from "./stats.js"
import type { Json, SimResponse } from "./wire.js"
import { envelopeError, errorBody, isRecord, tooManyRequests } from "./wire.js"

export interface Credentials {
  readonly clientKey: string
  readonly clientSecret: string
  /** The v3 header pairs accepted now (see auth.ts). */
  readonly headerPairs: () => ReadonlyArray<HeaderPair>
}

export interface ServerParts {
  readonly routes: ReadonlyArray<Route>
  readonly credentials: Credentials
  readonly stats: SimStats
  readonly faults: FaultBoard
  readonly limiter: () => SlidingWindowLimiter | null
  /** When set, some records' enums are written as numbers (chosen by this seed and the record id). */
  readonly enumNumbersSeed: number | null
}

const MAX_BODY_BYTES = 10 * 1024 * 1024
/** The real production base address ends in this path; accept it so a copied base URL works. */
const BASE_PREFIX = "/integration-handler"

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) reject(new Error("body too large"))
      else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const send = (res: ServerResponse, response: SimResponse, text?: string): void => {
  if (res.destroyed) return
  const payload = text ?? response.rawText?.text ?? JSON.stringify(response.body)
  res.writeHead(response.status, {
    "content-type": response.rawText?.contentType ?? "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    ...response.headers
  })
  res.end(payload)
}

const gatewayError = (status: number): SimResponse =>
  status === 500
    ? errorBody(500, "INTERNAL", "internal error")
    : {
      status,
      body: null,
      rawText: { contentType: "text/html", text: `<html><body><h1>${status}</h1>upstream unavailable</body></html>` }
    }

/** Who is calling, or why not: v3 reads headers, v2 reads `api_key`/`api_signature` in the body (any non-empty signature). */
const authenticate = (
  route: Route,
  req: IncomingMessage,
  body: unknown,
  query: URLSearchParams,
  credentials: Credentials
): { readonly key: string } | SimResponse => {
  if (route.auth === "v2") {
    const source = isRecord(body) ? (isRecord(body["credentials"]) ? body["credentials"] : body) : {}
    const key = source["api_key"] ?? query.get("api_key")
    const signature = source["api_signature"] ?? query.get("api_signature")
    if (typeof key !== "string" || key === "" || typeof signature !== "string" || signature === "") {
      return { status: 401, body: { status: "error", message: "missing api_key or api_signature" } }
    }
    return key === credentials.clientKey ? { key } : { status: 401, body: { status: "error", message: "invalid api_key" } }
  }
  return authenticateV3(req.headers, credentials.headerPairs(), credentials)
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const handleRequest = async (parts: ServerParts, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const url = new URL(req.url ?? "/", "http://simulator")
  let path = url.pathname.startsWith(`${BASE_PREFIX}/`) ? url.pathname.slice(BASE_PREFIX.length) : url.pathname
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1)
  const method = req.method ?? "GET"
  const text = await readBody(req)
  const match = matchRoute(parts.routes, method, path)
  if (match.kind !== "found") {
    return send(
      res,
      match.kind === "wrongMethod"
        ? errorBody(405, "METHOD_NOT_ALLOWED", `${method} is not allowed on ${match.pattern}`)
        : errorBody(404, "NOT_FOUND", `no operation at ${method} ${path}`)
    )
  }
  const { route, params } = match
  let body: unknown = undefined
  let bodyIsJson = true
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text)
    } catch {
      bodyIsJson = false
    }
  }
  if (route.auth === "admin") {
    const answer = bodyIsJson
      ? await route.handle({ params, query: url.searchParams, body })
      : errorBody(400, "INVALID_ARGUMENT", "body is not JSON")
    return send(res, answer)
  }
  const key = routeKey(route)
  const { stats } = parts
  stats.arrival(key)
  const answer = (response: SimResponse, rendered?: string): void => {
    stats.answered(response.status)
    send(res, response, rendered)
  }
  const who = authenticate(route, req, body, url.searchParams, parts.credentials)
  if ("status" in who) return answer(who)
  stats.countedArrival(who.key)
  const decision = parts.limiter()?.arrive(who.key)
  if (decision !== undefined && !decision.allowed) return answer(tooManyRequests(decision.retryAfterSeconds))
  const plan = parts.faults.plan(key)
  if (plan.delayMs > 0) await sleep(plan.delayMs)
  switch (plan.pre?.kind) {
    case "reset":
      stats.dropped()
      req.socket.resetAndDestroy()
      return
    case "error5xx":
      return answer(gatewayError(plan.pre.status))
    case "rateLimit429":
      return answer(tooManyRequests(plan.pre.retryAfterSeconds))
    case "envelopeError":
      return answer(envelopeError("internal error, please try again later"))
    default:
      break
  }
  if (!bodyIsJson) {
    return answer(errorBody(400, "INVALID_ARGUMENT", "request body is not valid JSON", [{ field: "body", issue: "invalid JSON" }]))
  }
  let response = await route.handle({ params, query: url.searchParams, body })
  if (plan.post.includes("commitThenDrop")) {
    stats.dropped()
    req.socket.destroy()
    return
  }
  if (parts.enumNumbersSeed !== null && route.auth === "v3" && response.status === 200) {
    response = { ...response, body: withSomeEnumNumbers(response.body, parts.enumNumbersSeed) }
  }
  if (plan.post.includes("unknownEnum")) response = { ...response, body: withUnknownEnums(response.body as Json) }
  if (plan.post.includes("malformed")) return answer(response, malformedText(JSON.stringify(response.body)))
  answer(response)
}

export const createSimServer = (parts: ServerParts): Server =>
  createServer((req, res) => {
    handleRequest(parts, req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        send(res, errorBody(500, "INTERNAL", error instanceof Error ? error.message : "internal error"))
      }
    })
  })
