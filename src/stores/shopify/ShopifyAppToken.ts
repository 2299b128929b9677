/**
 * The token a Shopify request carries in `X-Shopify-Access-Token`.
 *
 * - A legacy custom app's static `accessToken` is used as it is.
 * - A Dev Dashboard app gets its tokens through the client credentials grant (store-apis.md §0):
 *   `POST https://{shop}/admin/oauth/access_token`, form body `grant_type=client_credentials`,
 *   `client_id`, `client_secret`; answer `{access_token, scope, expires_in}`. A token lasts about
 *   24 hours; it is renewed at 80 % of its lifetime, and once when Shopify answers 401 with it
 *   (RenewingToken.ts). The current token is shared by the replicas through the token store, so
 *   they ask Shopify for one token per lifetime between them, not one each.
 *
 * The client secret and the tokens never reach an error, a log line or a metric: errors name the
 * config keys to check, and the answer's body is withheld.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Either, Redacted, Schema } from "effect"
import { tokenSeed } from "../../domain/StoreToken.js"
import { privateStoreTokenRow } from "../InMemoryStoreTokens.js"
import { type IssuedToken, makeRenewingToken } from "../RenewingToken.js"
import { StoreAuthError, type StoreError, StoreResponseError, unavailableFor } from "../StoreErrors.js"
import { accessTokenUrl, DEFAULT_REQUEST_TIMEOUT, type ShopifyConnectorConfig } from "./ShopifyConfig.js"

export interface ShopifyAppToken {
  /** The token to send now. */
  readonly current: Effect.Effect<Redacted.Redacted<string>, StoreError>
  /** Shopify answered 401 with `token`: true when a new one is worth asking for (and it will be). */
  readonly refused: (token: Redacted.Redacted<string>) => Effect.Effect<boolean>
}

export const CLIENT_CREDENTIALS_OPERATION = "clientCredentialsGrant"

const GrantAnswer = Schema.Struct({
  access_token: Schema.String,
  scope: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number)
})
const GrantRefusal = Schema.Struct({ error: Schema.String })
const decodeAnswer = Schema.decodeUnknownEither(Schema.parseJson(GrantAnswer))
const decodeRefusal = Schema.decodeUnknownEither(Schema.parseJson(GrantRefusal))

/** What to do after Shopify refused the grant: the config keys to check, never their values. */
const refusedHint = (said: string | undefined) =>
  `Shopify refused the app's client credentials${said === undefined ? "" : ` (${said})`}: check the store's shopify.clientId ` +
  "and shopify.clientSecret against the app's Settings in the Dev Dashboard, and that the app is installed on this shop"

/** One client credentials grant. */
const clientCredentialsGrant = (
  config: ShopifyConnectorConfig & { readonly clientId: string; readonly clientSecret: Redacted.Redacted<string> }
): Effect.Effect<IssuedToken, StoreError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const { storeKey } = config
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const unavailable = unavailableFor(storeKey, CLIENT_CREDENTIALS_OPERATION, false)
    const request = HttpClientRequest.post(accessTokenUrl(config)).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUrlParams({
        grant_type: "client_credentials",
        client_id: config.clientId,
        client_secret: Redacted.value(config.clientSecret)
      })
    )
    const { status, body } = yield* client.execute(request).pipe(
      Effect.flatMap((response) => Effect.map(response.text, (body) => ({ status: response.status, body }))),
      Effect.mapError((error) => unavailable(`${error.reason} error while asking for an access token`)),
      Effect.timeoutFail({ duration: timeout, onTimeout: () => unavailable(`no answer within ${Duration.format(timeout)}`) })
    )
    if (status >= 500 || status === 429) return yield* unavailable("the token endpoint is not answering", status)
    if (status !== 200) {
      const said = Either.getOrUndefined(decodeRefusal(body))?.error
      return yield* new StoreAuthError({
        storeKey,
        operation: CLIENT_CREDENTIALS_OPERATION,
        status,
        detail: refusedHint(said ?? `HTTP ${status}`)
      })
    }
    const answer = decodeAnswer(body)
    if (Either.isLeft(answer)) {
      return yield* new StoreResponseError({
        storeKey,
        operation: CLIENT_CREDENTIALS_OPERATION,
        ambiguous: false,
        status,
        // The body holds a token: never kept.
        body: "(withheld: token answer)",
        detail: "the token answer is not {access_token, scope, expires_in}"
      })
    }
    const { access_token, expires_in } = answer.right
    return {
      accessToken: Redacted.make(access_token),
      ...(expires_in === undefined ? {} : { expiresInSeconds: expires_in })
    }
  })

export const makeShopifyAppToken = (config: ShopifyConnectorConfig): Effect.Effect<ShopifyAppToken, never, HttpClient.HttpClient> => {
  if (config.accessToken !== undefined) {
    const token = config.accessToken
    return Effect.succeed({ current: Effect.succeed(token), refused: () => Effect.succeed(false) })
  }
  const app = config
  return Effect.gen(function*() {
    const context = yield* Effect.context<HttpClient.HttpClient>()
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const renewing = yield* makeRenewingToken({
      storeKey: config.storeKey,
      operation: CLIENT_CREDENTIALS_OPERATION,
      // A new client secret (rotated in the Dev Dashboard) or another app: the stored token is not theirs.
      seed: tokenSeed(["shopify", config.shop, app.clientId, app.clientSecret]),
      row: config.tokens?.open(config.storeKey) ?? (yield* privateStoreTokenRow()),
      issue: () => Effect.provide(clientCredentialsGrant(app), context),
      claimLease: Duration.sum(timeout, Duration.seconds(10))
    })
    return {
      current: renewing.current,
      refused: (token) => Effect.as(renewing.invalidate(token), true)
    }
  })
}
