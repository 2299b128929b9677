/**
 * OAuth access tokens for the Etsy API, from the seller's refresh token
 * (`POST /v3/public/oauth/token`, grant_type=refresh_token, client_id =
 * keystring). An access token is used until 80 % of its lifetime has passed,
 * or until Etsy answers 401 with it; then one caller renews it for everyone
 * (RenewingToken.ts: one fiber of this process, one replica on the database).
 *
 * Etsy issues a new refresh token at every refresh and refuses the old one
 * (store-apis.md §0): the newest is saved with the access token in the token
 * store, so replicas and a restart present it. The configured refresh token
 * only seeds the row; when the configuration names another one (the seller
 * authorised the app again), it wins over the stored one.
 * Tokens never appear in errors or logs.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Either, Redacted, Schema } from "effect"
import { tokenSeed } from "../../domain/StoreToken.js"
import { privateStoreTokenRow } from "../InMemoryStoreTokens.js"
import { type IssuedToken, makeRenewingToken } from "../RenewingToken.js"
import { StoreAuthError, type StoreError, StoreResponseError, unavailableFor } from "../StoreErrors.js"
import { DEFAULT_REQUEST_TIMEOUT, type EtsyConnectorConfig, tokenUrl } from "./EtsyConfig.js"
import { EtsyErrorBody, EtsyTokenAnswer } from "./EtsySchemas.js"

const OPERATION = "oauthToken"

/** Why a check without the daemon's database does not refresh (and so does not verify the refresh token). */
export const NOWHERE_TO_KEEP = "the refresh token is not tried here: Etsy answers a refresh with a new refresh token and refuses " +
  "the one presented from then on, and without the daemon's database nothing would keep the new one. The daemon tries it " +
  "at its first start and keeps the newest in its database; run check again after that"

export interface EtsyTokens {
  /** A live access token (`<user_id>.<token>`), renewed first when due. */
  readonly accessToken: Effect.Effect<Redacted.Redacted<string>, StoreError>
  /** Etsy refused `token` (401): the next `accessToken` renews, unless another caller already did. */
  readonly invalidate: (token: Redacted.Redacted<string>) => Effect.Effect<void>
  /** The refresh token the next renewal presents (the newest Etsy gave). */
  readonly refreshToken: Effect.Effect<Redacted.Redacted<string>, StoreError>
}

const decodeAnswer = Schema.decodeUnknownEither(Schema.parseJson(EtsyTokenAnswer))
const decodeError = Schema.decodeUnknownEither(Schema.parseJson(EtsyErrorBody))

/** One refresh: the answer's access token, its lifetime, and the refresh token to present next time. */
const refreshGrant = (
  config: EtsyConnectorConfig,
  presented: Redacted.Redacted<string>
): Effect.Effect<IssuedToken, StoreError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const { storeKey } = config
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const unavailable = unavailableFor(storeKey, OPERATION, false)
    const request = HttpClientRequest.post(tokenUrl(config)).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUrlParams({
        grant_type: "refresh_token",
        client_id: Redacted.value(config.keystring),
        refresh_token: Redacted.value(presented)
      })
    )
    const { status, body } = yield* client.execute(request).pipe(
      Effect.flatMap((response) => Effect.map(response.text, (body) => ({ status: response.status, body }))),
      Effect.mapError((error) => unavailable(`${error.reason} error while refreshing the access token`)),
      Effect.timeoutFail({ duration: timeout, onTimeout: () => unavailable(`no answer within ${Duration.format(timeout)}`) })
    )
    if (status >= 500 || status === 429) return yield* unavailable("the token endpoint is not answering", status)
    if (status !== 200) {
      // invalid_grant and friends: the refresh token no longer works; the seller must authorise the app again.
      const reason = Either.getOrUndefined(decodeError(body))
      yield* Effect.logWarning(`store ${storeKey}: Etsy refused the refresh token (${reason?.error ?? `HTTP ${status}`})`)
      return yield* new StoreAuthError({
        storeKey,
        operation: OPERATION,
        status,
        detail: "Etsy refused the refresh token: authorise the app again and put the new refresh token in the store's etsy.refreshToken"
      })
    }
    const answer = decodeAnswer(body)
    if (Either.isLeft(answer)) {
      // The body holds tokens: it is never kept in the error.
      return yield* new StoreResponseError({
        storeKey,
        operation: OPERATION,
        ambiguous: false,
        status,
        body: "(withheld: token answer)",
        detail: "the token answer is not {access_token, expires_in, refresh_token}"
      })
    }
    const next = answer.right.refresh_token
    return {
      accessToken: Redacted.make(answer.right.access_token),
      expiresInSeconds: answer.right.expires_in,
      refreshToken: next === undefined ? presented : Redacted.make(next)
    }
  })

export const makeEtsyTokens = (config: EtsyConnectorConfig): Effect.Effect<EtsyTokens, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<HttpClient.HttpClient>()
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const renewing = yield* makeRenewingToken({
      storeKey: config.storeKey,
      operation: OPERATION,
      // The configured refresh token seeds the row: a new one in the config starts a new line of tokens.
      seed: tokenSeed(["etsy", config.keystring, config.refreshToken]),
      row: config.tokens?.open(config.storeKey) ?? (yield* privateStoreTokenRow()),
      configuredRefreshToken: config.refreshToken,
      issue: (presented) =>
        config.refreshTokenKept === false
          ? Effect.fail(unavailableFor(config.storeKey, OPERATION, false)(NOWHERE_TO_KEEP))
          : Effect.provide(refreshGrant(config, presented ?? config.refreshToken), context),
      claimLease: Duration.sum(timeout, Duration.seconds(10))
    })
    return {
      accessToken: renewing.current,
      invalidate: renewing.invalidate,
      refreshToken: Effect.map(renewing.refreshToken, (token) => token ?? config.refreshToken)
    }
  })
