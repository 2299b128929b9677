import type { IncomingHttpHeaders } from "node:http"

/**
 * REST API key authentication (`WC_REST_Authentication`): consumer key and secret either as HTTP Basic
 * credentials or as `consumer_key`/`consumer_secret` query parameters (for servers that strip the
 * Authorization header). The simulator speaks plain HTTP and accepts Basic there; a real site accepts
 * Basic only over HTTPS (plain HTTP needs OAuth 1.0a signing).
 *
 * A host that strips the `Authorization` header (Apache with CGI/FastCGI, store-apis.md §0) leaves
 * WordPress no credentials: a request that sent them only as Basic gets 401 "Consumer key is missing.";
 * query-string credentials still work there.
 */

export type KeyPermissions = "read" | "write" | "read_write"

export interface ApiKey {
  readonly consumerKey: string
  readonly consumerSecret: string
  readonly permissions: KeyPermissions
}

/** What the request tries to do, for the "not allowed" message an unauthenticated request gets. */
export type Access = "list" | "view" | "create" | "edit" | "delete"

export interface WooErrorBody {
  readonly code: string
  readonly message: string
  readonly data: { readonly status: number }
}

export type AuthVerdict = { readonly ok: true } | { readonly ok: false; readonly status: number; readonly body: WooErrorBody }

const denied = (code: string, message: string, status = 401): AuthVerdict => ({
  ok: false,
  status,
  body: { code, message, data: { status } }
})

const anonymous: Record<Access, AuthVerdict> = {
  list: denied("woocommerce_rest_cannot_view", "Sorry, you cannot list resources."),
  view: denied("woocommerce_rest_cannot_view", "Sorry, you cannot view this resource."),
  create: denied("woocommerce_rest_cannot_create", "Sorry, you are not allowed to create resources."),
  edit: denied("woocommerce_rest_cannot_edit", "Sorry, you are not allowed to edit this resource."),
  delete: denied("woocommerce_rest_cannot_delete", "Sorry, you are not allowed to delete this resource.")
}

const basicCredentials = (headers: IncomingHttpHeaders): [string, string] | null => {
  const header = headers.authorization
  if (typeof header !== "string" || !/^basic /i.test(header)) return null
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon < 0 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)]
}

/** What a host that strips the header answers a request whose credentials were in it. */
const keyMissing = denied("woocommerce_rest_authentication_error", "Consumer key is missing.")

export const authenticate = (
  headers: IncomingHttpHeaders,
  params: URLSearchParams,
  key: ApiKey,
  access: Access,
  stripsAuthorization = false
): AuthVerdict => {
  const fromQuery = params.get("consumer_key") !== null ? [params.get("consumer_key") ?? "", params.get("consumer_secret") ?? ""] : null
  const basic = stripsAuthorization ? null : basicCredentials(headers)
  const given = fromQuery ?? basic
  if (given === null) return stripsAuthorization && headers.authorization !== undefined ? keyMissing : anonymous[access]
  const [consumerKey, consumerSecret] = given
  if (consumerKey !== key.consumerKey) return denied("woocommerce_rest_authentication_error", "Consumer key is invalid.")
  if (consumerSecret !== key.consumerSecret) return denied("woocommerce_rest_authentication_error", "Consumer secret is invalid.")
  const writing = access === "create" || access === "edit" || access === "delete"
  if (writing && key.permissions === "read") {
    return denied("woocommerce_rest_authentication_error", "The API key provided does not have write permissions.")
  }
  if (!writing && key.permissions === "write") {
    return denied("woocommerce_rest_authentication_error", "The API key provided does not have read permissions.")
  }
  return { ok: true }
}
