/**
 * OAuth access tokens for the Etsy API, from the seller's refresh token
 * (`POST /v3/public/oauth/token`, grant_type=refresh_token, client_id =
 * keystring). An access token is used until a minute before it expires, or
 * until Etsy answers 401 with it; then one caller refreshes while the others
 * wait for the result.
 *
 * When an answer carries a refresh token other than the one presented, the
 * newest is kept in memory from then on and `onRefreshTokenRotated` is told,
 * so the caller can persist it: the one in the config may no longer work.
 * Tokens never appear in errors or logs.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Duration, Effect, Either, Redacted, Ref, Schema } from "effect"
import { StoreAuthError, type StoreError, StoreResponseError, unavailableFor } from "../StoreErrors.js"
import { DEFAULT_REQUEST_TIMEOUT, type EtsyConnectorConfig, tokenUrl } from "./EtsyConfig.js"
import { EtsyErrorBody, EtsyTokenAnswer } from "./EtsySchemas.js"

/** Refresh this long before Etsy's expiry, so a token never dies in flight. */
export const EXPIRY_MARGIN_MS = 60_000
const OPERATION = "oauthToken"

interface AccessToken {
  readonly token: Redacted.Redacted<string>
  readonly expiresAtMillis: number
}

export interface EtsyTokens {
  /** A live access token (`<user_id>.<token>`), refreshed first when needed. */
  readonly accessToken: Effect.Effect<Redacted.Redacted<string>, StoreError>
  /** Etsy refused `token` (401): the next `accessToken` refreshes, unless another caller already did. */
  readonly invalidate: (token: Redacted.Redacted<string>) => Effect.Effect<void>
  /** The refresh token in use (the newest Etsy gave). */
  readonly refreshToken: Effect.Effect<Redacted.Redacted<string>>
}

const decodeAnswer = Schema.decodeUnknownEither(Schema.parseJson(EtsyTokenAnswer))
const decodeError = Schema.decodeUnknownEither(Schema.parseJson(EtsyErrorBody))

export const makeEtsyTokens = (config: EtsyConnectorConfig): Effect.Effect<EtsyTokens, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const { storeKey } = config
    const timeout = Duration.decode(config.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
    const access = yield* Ref.make<AccessToken | null>(null)
    const refresh = yield* Ref.make(config.refreshToken)
    const lock = yield* Effect.makeSemaphore(1)

    const unavailable = unavailableFor(storeKey, OPERATION, false)

    const grant: Effect.Effect<AccessToken, StoreError> = Effect.gen(function*() {
      const presented = yield* Ref.get(refresh)
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
        return yield* new StoreAuthError({ storeKey, operation: OPERATION, status })
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
      const now = yield* Clock.currentTimeMillis
      const next = answer.right.refresh_token
      if (next !== undefined && next !== Redacted.value(presented)) {
        const rotated = Redacted.make(next)
        yield* Ref.set(refresh, rotated)
        if (config.onRefreshTokenRotated !== undefined) yield* config.onRefreshTokenRotated(rotated)
      }
      return { token: Redacted.make(answer.right.access_token), expiresAtMillis: now + answer.right.expires_in * 1000 }
    })

    const accessToken = lock.withPermits(1)(
      Effect.gen(function*() {
        const current = yield* Ref.get(access)
        const now = yield* Clock.currentTimeMillis
        if (current !== null && now < current.expiresAtMillis - EXPIRY_MARGIN_MS) return current.token
        const fresh = yield* grant
        yield* Ref.set(access, fresh)
        return fresh.token
      })
    )

    const invalidate = (token: Redacted.Redacted<string>) =>
      Ref.update(access, (current) => current !== null && Redacted.value(current.token) === Redacted.value(token) ? null : current)

    return { accessToken, invalidate, refreshToken: Ref.get(refresh) }
  })
