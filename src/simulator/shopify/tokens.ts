import { randomBytes } from "node:crypto"
import type { Grant } from "./access.js"
import type { ShopState } from "./store.js"

/**
 * A Dev Dashboard app's tokens (store-apis.md §0): `POST /admin/oauth/access_token` with
 * `grant_type=client_credentials`, `client_id`, `client_secret` (form or JSON) answers
 * `{access_token: "shpat_…", scope, expires_in}`. Each token carries the app's scopes as they are at
 * the grant (`POST /__sim/shop {scopes}` changes them for the next token) and lives
 * `lifetimeSeconds` (Shopify: 86399); after that a request with it gets Shopify's 401. Tokens issued
 * earlier stay good until their own expiry, as Shopify's do. A wrong client id or secret is refused
 * 400 `invalid_client` (OAuth 2.0's answer; Shopify does not publish its words).
 */

export interface ClientCredentialsApp {
  readonly clientId: string
  readonly clientSecret: string
  readonly lifetimeSeconds: number
}

export interface TokenAnswer {
  readonly status: number
  readonly body: Record<string, unknown>
}

interface IssuedToken {
  readonly expiresAtMs: number
  readonly scopes: ReadonlySet<string>
}

export class AppTokens {
  private issued = new Map<string, IssuedToken>()

  constructor(
    readonly app: ClientCredentialsApp,
    private readonly state: ShopState
  ) {}

  reset(): void {
    this.issued = new Map()
  }

  /** The token endpoint; `params` is the decoded form (or JSON) body. */
  grant(params: Readonly<Record<string, unknown>>): TokenAnswer {
    const stats = this.state.stats
    const refuse = (error: string, description: string): TokenAnswer => {
      stats.tokenRefusals += 1
      return { status: 400, body: { error, error_description: description } }
    }
    if (params["grant_type"] !== "client_credentials") {
      return refuse("unsupported_grant_type", "The authorization grant type is not supported by the authorization server.")
    }
    if (params["client_id"] !== this.app.clientId || params["client_secret"] !== this.app.clientSecret) {
      return refuse(
        "invalid_client",
        "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method."
      )
    }
    const token = `shpat_${randomBytes(16).toString("hex")}`
    const scopes = new Set(this.state.shop.scopes)
    this.issued.set(token, { expiresAtMs: this.state.now() + this.app.lifetimeSeconds * 1000, scopes })
    stats.tokenGrants += 1
    return { status: 200, body: { access_token: token, scope: [...scopes].join(","), expires_in: this.app.lifetimeSeconds } }
  }

  /** What a request's token is granted; null when it is unknown or expired (Shopify's 401). */
  readonly authorize = (token: string | undefined): Grant | null => {
    const issued = token === undefined ? undefined : this.issued.get(token)
    if (issued === undefined) return null
    if (issued.expiresAtMs <= this.state.now()) {
      this.issued.delete(token!)
      return null
    }
    return { scopes: issued.scopes }
  }

  /** Admin: every token issued so far stops working (as after its lifetime). */
  expireAll(): number {
    const count = this.issued.size
    this.issued = new Map()
    return count
  }
}

/** The body of a token request: form-encoded (Shopify's documented form) or JSON (what Shopify's own library sends). */
export const tokenParams = (raw: string, contentType: string | undefined): Record<string, unknown> => {
  if ((contentType ?? "").includes("application/json")) {
    try {
      const parsed: unknown = JSON.parse(raw)
      return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {}
    } catch {
      return {}
    }
  }
  return Object.fromEntries(new URLSearchParams(raw))
}
