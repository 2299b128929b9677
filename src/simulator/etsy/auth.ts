import { randomBytes } from "node:crypto"

/**
 * Etsy's two credentials (store-apis.md §3.1): the app's `x-api-key: <keystring>:<shared_secret>` on
 * every call (the bare keystring is refused since 2026-02-09), and an OAuth 2.0 bearer
 * `<user_id>.<token>` for scoped endpoints, obtained from `POST /v3/public/oauth/token` with
 * `grant_type=refresh_token`. Access tokens are short-lived. Refresh tokens rotate as Etsy's do
 * (store-apis.md §0): each works once and the answer carries its successor; rotation can be switched
 * off for a test that wants a refresh token to stay.
 */

export interface AuthSettings {
  readonly keystring: string
  readonly sharedSecret: string
  readonly userId: number
  readonly accessTokenTtlSeconds: number
  readonly rotateRefreshTokens: boolean
  readonly scopes: ReadonlyArray<string>
}

export interface Refusal {
  readonly status: number
  readonly body: Record<string, string>
}

interface AccessToken {
  readonly expiresAtMs: number
  readonly scopes: ReadonlyArray<string>
}

export type Grant =
  | { readonly ok: true; readonly body: { access_token: string; token_type: "Bearer"; expires_in: number; refresh_token: string } }
  | { readonly ok: false; readonly refusal: Refusal }

export class EtsyAuth {
  private accessTokens = new Map<string, AccessToken>()
  private refreshTokens = new Set<string>()

  constructor(
    readonly settings: AuthSettings,
    private readonly initialRefreshToken: string,
    private readonly now: () => number
  ) {
    this.refreshTokens.add(initialRefreshToken)
  }

  reset(): void {
    this.accessTokens = new Map()
    this.refreshTokens = new Set([this.initialRefreshToken])
  }

  /** Null when the key is right; otherwise Etsy's refusal. */
  checkApiKey(header: string | undefined): Refusal | null {
    if (header === undefined || header === "") {
      return { status: 403, body: { error: "Missing x-api-key header" } }
    }
    const separator = header.indexOf(":")
    const keystring = separator < 0 ? header : header.slice(0, separator)
    if (keystring !== this.settings.keystring) return { status: 403, body: { error: "Invalid API key" } }
    if (separator < 0) {
      return { status: 403, body: { error: "Shared secret is required: send x-api-key as <keystring>:<shared_secret>" } }
    }
    if (header.slice(separator + 1) !== this.settings.sharedSecret) return { status: 403, body: { error: "Invalid API key" } }
    return null
  }

  /** Null when the bearer is a live token carrying `scope`. */
  checkBearer(header: string | undefined, scope: string): Refusal | null {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? "")
    if (!match) return { status: 401, body: { error: "invalid_token", error_description: "Missing OAuth bearer token" } }
    const token = this.accessTokens.get(match[1]!)
    if (token === undefined) return { status: 401, body: { error: "invalid_token", error_description: "The access token is not valid" } }
    if (token.expiresAtMs <= this.now()) {
      return { status: 401, body: { error: "invalid_token", error_description: "The access token has expired" } }
    }
    if (!token.scopes.includes(scope)) {
      return { status: 403, body: { error: `Insufficient scope: this call needs ${scope}` } }
    }
    return null
  }

  private newToken(): string {
    return `${this.settings.userId}.${randomBytes(24).toString("base64url")}`
  }

  /** The token endpoint. `params` is the decoded form (or JSON) body. */
  grant(params: Record<string, string | undefined>): Grant {
    const refuse = (status: number, error: string, description: string): Grant => ({
      ok: false,
      refusal: { status, body: { error, error_description: description } }
    })
    if (params["grant_type"] !== "refresh_token") {
      return refuse(400, "unsupported_grant_type", "grant_type must be refresh_token (authorization_code is done in a browser)")
    }
    if (params["client_id"] === undefined || params["refresh_token"] === undefined) {
      return refuse(400, "invalid_request", "client_id and refresh_token are required")
    }
    if (params["client_id"] !== this.settings.keystring) return refuse(401, "invalid_client", "Unknown client_id")
    const presented = params["refresh_token"]
    if (!this.refreshTokens.has(presented)) return refuse(400, "invalid_grant", "The refresh token is not valid")
    let refreshToken = presented
    if (this.settings.rotateRefreshTokens) {
      this.refreshTokens.delete(presented)
      refreshToken = this.newToken()
      this.refreshTokens.add(refreshToken)
    }
    const accessToken = this.newToken()
    this.accessTokens.set(accessToken, {
      expiresAtMs: this.now() + this.settings.accessTokenTtlSeconds * 1000,
      scopes: this.settings.scopes
    })
    return {
      ok: true,
      body: {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: this.settings.accessTokenTtlSeconds,
        refresh_token: refreshToken
      }
    }
  }

  /** Admin: the seller authorises the app again (OAuth's consent screen): a new refresh token, the others kept. */
  authorizeAgain(): string {
    const refreshToken = this.newToken()
    this.refreshTokens.add(refreshToken)
    return refreshToken
  }

  /** Admin: every access token issued so far stops working (as after their hour is up). */
  expireAccessTokens(): number {
    const count = this.accessTokens.size
    this.accessTokens = new Map()
    return count
  }
}
