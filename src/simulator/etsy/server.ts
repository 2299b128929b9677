import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { dropConnection, readBody, simulatorServer } from "../kit/http.js"
import { adminTarget, handleAdmin } from "./admin.js"
import {
  createReceiptShipment,
  getShopReceipt,
  getShopReceipts,
  shopView,
  updateShopReceipt,
  type ApiAnswer,
  type ApiContext
} from "./api.js"
import { shippingCarriers } from "./carriers.js"
import type { Operation } from "./faults.js"
import type { Quota } from "./quota.js"
import type { AppParts, SimShop, SimShops } from "./shops.js"

/**
 * The HTTP surface: Etsy's `/v3/application/shops/{shop_id}/receipts…` operations, getShop
 * (`/shops/{shop_id}`) and getShippingCarriers (`/shipping-carriers`), the OAuth token endpoint
 * `/v3/public/oauth/token`, and the `/__sim/` admin routes. A request to the API passes, in order: the
 * x-api-key check (403), injected faults drawn for its operation (a `429` fault answers here), the
 * quota (429: a private call counts against its seller's token, a public one against the app's key),
 * the bearer and its scope (401/403, private calls only), then the operation. Plain node:http so
 * faults can reset or drop the raw socket.
 */

export interface ServerConfig {
  readonly app: AppParts
  readonly shops: SimShops
  readonly maxBodyBytes: number
}

const receiptsPath = /^\/v3\/application\/shops\/([^/]+)\/receipts(?:\/([^/]+)(\/tracking)?)?\/?$/
const shopPath = /^\/v3\/application\/shops\/([^/]+)\/?$/
const carriersPath = /^\/v3\/application\/shipping-carriers\/?$/
const tokenPath = /^\/v3\/public\/oauth\/token\/?$/

/** Operations that need only the app's key (no OAuth token): counted against the key, not a seller's token. */
const publicOperations: ReadonlyArray<Operation> = ["getShop", "getShippingCarriers"]

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

type Body = { readonly kind: "json" | "form" | "empty"; readonly params: Record<string, unknown> } | { readonly error: string }

const decodeBody = (raw: string, contentType: string | undefined): Body => {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  if (raw.trim() === "") return { kind: "empty", params: {} }
  if (type === "application/x-www-form-urlencoded") {
    return { kind: "form", params: Object.fromEntries(new URLSearchParams(raw)) }
  }
  if (type === "application/json") {
    try {
      const parsed: unknown = JSON.parse(raw)
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        return { kind: "json", params: parsed as Record<string, unknown> }
      }
    } catch {
      // fall through
    }
    return { error: "The request body is not a JSON object" }
  }
  return { error: `Unsupported content type "${type}"` }
}

const operationOf = (method: string, receiptId: string | undefined, tracking: boolean): Operation | null => {
  if (receiptId === undefined) return method === "GET" ? "getShopReceipts" : null
  if (tracking) return method === "POST" ? "createReceiptShipment" : null
  if (method === "GET") return "getShopReceipt"
  if (method === "PUT") return "updateShopReceipt"
  return null
}

const handleToken = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const { faults } = config.app
  const { shop } = config.shops.primary
  const fired = faults.fire("oauthToken", (kind) => shop.countFault(kind))
  await fired.delay()
  if (fired.has("reset")) return dropConnection(res)
  if (fired.has("429")) return sendJson(res, 429, { error: "Too many requests" })
  const error5xx = fired.has("error5xx")
  if (error5xx) return sendJson(res, error5xx.status, { error: "Server error" })
  const raw = await readBody(req, config.maxBodyBytes)
  const body = decodeBody(raw ?? "", req.headers["content-type"])
  if ("error" in body) return sendJson(res, 400, { error: "invalid_request", error_description: body.error })
  const params = Object.fromEntries(Object.entries(body.params).map(([k, v]) => [k, typeof v === "string" ? v : undefined]))
  // A refresh token is `<user_id>.<…>`: the grant is that seller's (any other is refused by the first shop's).
  const seller = config.shops.byToken(params["refresh_token"]) ?? config.shops.primary
  const grant = seller.auth.grant(params)
  if (!grant.ok) {
    seller.shop.stats.tokenRefusals += 1
    return sendJson(res, grant.refusal.status, grant.refusal.body)
  }
  seller.shop.stats.tokenGrants += 1
  if (fired.has("commitThenDrop")) return dropConnection(res)
  sendJson(res, 200, grant.body, { "cache-control": "no-store" })
}

/** The private call's shop: the seller whose token it carries, else the shop it names (whose checks then refuse it). */
const sellerOf = (shops: SimShops, req: IncomingMessage, shopIdText: string): SimShop => {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1]
  return shops.byToken(bearer) ?? shops.byShopId(Number(shopIdText)) ?? shops.primary
}

const handleApi = async (
  config: ServerConfig,
  req: IncomingMessage,
  res: ServerResponse,
  operation: Operation,
  shopIdText: string | undefined,
  receiptId: string | undefined
): Promise<void> => {
  const { faults, switches, appQuota } = config.app
  const isPublic = publicOperations.includes(operation)
  // Public calls are counted with the first shop's (the app's own) statistics.
  const seller = isPublic ? config.shops.primary : sellerOf(config.shops, req, shopIdText ?? "")
  const { shop, auth } = seller
  const keyRefusal = auth.checkApiKey(typeof req.headers["x-api-key"] === "string" ? req.headers["x-api-key"] : undefined)
  if (keyRefusal) {
    shop.stats.forbidden += 1
    return sendJson(res, keyRefusal.status, keyRefusal.body)
  }
  const quota: Quota = isPublic ? appQuota : seller.quota
  const fired = faults.fire(operation, (kind) => shop.countFault(kind))
  if (fired.has("429")) {
    shop.stats.throttled += 1
    return sendJson(
      res,
      429,
      { error: `Too many requests: more than ${quota.settings.perSecond} per second` },
      quota.rejectionHeaders("second")
    )
  }
  const admission = quota.admit()
  if (!admission.ok) {
    shop.stats.throttled += 1
    return sendJson(res, 429, { error: admission.message }, admission.headers)
  }
  shop.countRequest(operation)
  const headers = admission.headers
  await fired.delay()
  if (fired.has("reset")) return dropConnection(res)
  const error5xx = fired.has("error5xx")
  if (error5xx) return sendJson(res, error5xx.status, { error: "Internal server error" }, headers)
  if (operation === "getShippingCarriers") {
    const answer = shippingCarriers(new URL(req.url ?? "/", "http://simulator").searchParams.get("origin_country_iso"))
    return sendJson(res, answer.status, answer.body, headers)
  }
  if (shopIdText === undefined || !/^\d+$/.test(shopIdText)) return sendJson(res, 400, { error: "shop_id must be an integer" }, headers)
  if (operation === "getShop") {
    const named = config.shops.byShopId(Number(shopIdText))
    if (named === undefined) return sendJson(res, 404, { error: `Shop with shop_id ${shopIdText} not found` }, headers)
    return sendJson(res, 200, shopView({ shop: named.shop, shopId: named.shopId, shopCountry: named.country, views: switches }), headers)
  }
  const write = operation === "createReceiptShipment" || operation === "updateShopReceipt"
  const bearerRefusal = auth.checkBearer(req.headers.authorization, write ? "transactions_w" : "transactions_r")
  if (bearerRefusal) {
    if (bearerRefusal.status === 401) shop.stats.unauthorized += 1
    else shop.stats.forbidden += 1
    return sendJson(res, bearerRefusal.status, bearerRefusal.body, headers)
  }
  if (Number(shopIdText) !== seller.shopId) {
    return sendJson(res, 403, { error: `The authenticated user does not own shop ${shopIdText}` }, headers)
  }
  if (receiptId !== undefined && !/^\d+$/.test(receiptId)) return sendJson(res, 400, { error: "receipt_id must be an integer" }, headers)
  const ctx: ApiContext = { shop, shopId: seller.shopId, shopCountry: seller.country, views: switches }
  let answer: ApiAnswer
  if (operation === "getShopReceipts") {
    answer = getShopReceipts(ctx, new URL(req.url ?? "/", "http://simulator").searchParams)
  } else if (operation === "getShopReceipt") {
    answer = getShopReceipt(ctx, receiptId!)
  } else {
    const raw = await readBody(req, config.maxBodyBytes)
    if (raw === null) return sendJson(res, 413, { error: "Request body too large" }, headers)
    const body = decodeBody(raw, req.headers["content-type"])
    if ("error" in body) return sendJson(res, 400, { error: body.error }, headers)
    if ((body.kind === "json" && !switches.acceptJson) || (body.kind === "form" && !switches.acceptForm)) {
      return sendJson(res, 415, { error: `This endpoint does not accept a ${body.kind} body` }, headers)
    }
    answer = operation === "createReceiptShipment"
      ? createReceiptShipment(ctx, receiptId!, body.params)
      : updateShopReceipt(ctx, receiptId!, body.params)
  }
  if (operation === "getShopReceipts" && answer.status === 200 && shop.churnPerListQuery > 0) shop.churn(shop.churnPerListQuery)
  if (fired.has("commitThenDrop")) return dropConnection(res)
  sendJson(res, answer.status, answer.body, headers)
}

const handle = async (config: ServerConfig, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
  const method = req.method ?? "GET"
  if (tokenPath.test(url.pathname)) {
    if (method !== "POST") return sendJson(res, 405, { error: "Method Not Allowed" }, { allow: "POST" })
    return handleToken(config, req, res)
  }
  const match = receiptsPath.exec(url.pathname)
  if (match) {
    const operation = operationOf(method, match[2], match[3] !== undefined)
    if (operation === null) return sendJson(res, 405, { error: "Method Not Allowed" })
    return handleApi(config, req, res, operation, match[1]!, match[2])
  }
  const shop = shopPath.exec(url.pathname)
  if (shop) {
    if (method !== "GET") return sendJson(res, 405, { error: "Method Not Allowed" })
    return handleApi(config, req, res, "getShop", shop[1]!, undefined)
  }
  if (carriersPath.test(url.pathname)) {
    if (method !== "GET") return sendJson(res, 405, { error: "Method Not Allowed" })
    return handleApi(config, req, res, "getShippingCarriers", undefined, undefined)
  }
  sendJson(res, 404, { error: "Not Found" })
}

/** The 500 answer. */
const failure = (res: ServerResponse, detail: string): void => sendJson(res, 500, { error: "Internal server error", detail })

export const makeServer = (config: ServerConfig): Server =>
  simulatorServer(config, {
    admin: (c, method, path, body) => {
      const target = adminTarget(c.app, c.shops, path)
      return target === undefined
        ? Promise.resolve({ status: 404, body: { error: `no shop ${path.split("/")[3] ?? ""} in this simulator` } })
        : handleAdmin(target.ctx, method, target.path, body)
    },
    serve: handle,
    sendJson,
    failure
  })
