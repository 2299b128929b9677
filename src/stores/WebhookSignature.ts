/**
 * Pure pieces every store's webhook check uses: case-insensitive header
 * lookup, a constant-time comparison of an HMAC-SHA256 over the raw body
 * (Shopify and WooCommerce both sign `base64(HMAC_SHA256(rawBody, secret))`,
 * the JSON feed its hex form), the rotation's secrets, and reading the
 * signed body and its fields.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Redacted } from "effect"
import type { VerifiedWebhook, WebhookDelivery } from "../domain/StoreTypes.js"
import { type WebhookRejection, WebhookRejectedError } from "./StoreErrors.js"

// Lives with the delivery type, so the POD receiver can read headers without reaching into the stores.
export { headerValue } from "../domain/StoreTypes.js"

export const hmacSha256 = (secret: Redacted.Redacted<string>, body: Uint8Array): Buffer =>
  createHmac("sha256", Redacted.value(secret)).update(body).digest()

/**
 * True when `signatureBase64` is the HMAC of `body` under any of `secrets`.
 * Every secret is tried (no early exit) and compared with `timingSafeEqual`,
 * so the time taken says nothing about how close a forgery came.
 */
export const base64HmacMatches = (
  signatureBase64: string,
  body: Uint8Array,
  secrets: ReadonlyArray<Redacted.Redacted<string>>
): boolean => hmacMatches(Buffer.from(signatureBase64, "base64"), body, secrets)

/** `base64HmacMatches` for a signature sent as hex digits. */
export const hexHmacMatches = (hex: string, body: Uint8Array, secrets: ReadonlyArray<Redacted.Redacted<string>>): boolean =>
  hmacMatches(Buffer.from(hex, "hex"), body, secrets)

const hmacMatches = (given: Buffer, body: Uint8Array, secrets: ReadonlyArray<Redacted.Redacted<string>>): boolean => {
  let matched = false
  for (const secret of secrets) {
    const expected = hmacSha256(secret, body)
    const same = given.length === expected.length && timingSafeEqual(given, expected)
    matched = matched || same
  }
  return matched
}

/** The secrets a delivery may be signed with: the current one and, during a rotation, the previous one. */
export const signingSecrets = <S>(
  current: S,
  previous: S | undefined
): Array<S> => (previous === undefined ? [current] : [current, previous])

/** What a store's webhook check is given: the store, its secret and, during a rotation, the previous one. */
export interface WebhookSecrets {
  readonly storeKey: string
  readonly webhookSecret: Redacted.Redacted<string>
  readonly previousWebhookSecret?: Redacted.Redacted<string>
}

/** `signingSecrets` of a store's configured secrets. */
export const configuredSecrets = (secrets: WebhookSecrets): Array<Redacted.Redacted<string>> =>
  signingSecrets(secrets.webhookSecret, secrets.previousWebhookSecret)

/** Checks one delivery against a store's secrets: pure, no network, no clock. */
export type WebhookVerifier<Secrets> = (secrets: Secrets, delivery: WebhookDelivery) => Either.Either<VerifiedWebhook, WebhookRejectedError>

/** A rejection of a delivery to `storeKey`, as the verifiers answer it. */
export const rejecter = (storeKey: string) => (reason: WebhookRejection, detail: string): Either.Either<never, WebhookRejectedError> =>
  Either.left(new WebhookRejectedError({ storeKey, reason, detail }))

/** The signed body as JSON; a body that is not JSON is the sender's mistake, rejected as `malformed_body`. */
export const parseSignedJson = (storeKey: string, body: Uint8Array | string): Either.Either<unknown, WebhookRejectedError> => {
  try {
    return Either.right(JSON.parse(typeof body === "string" ? body : Buffer.from(body).toString("utf8")) as unknown)
  } catch {
    return rejecter(storeKey)("malformed_body", "the signed body is not JSON")
  }
}

/** A payload's field as text (a non-empty string, or a number written out); undefined otherwise. */
export const payloadText = (payload: unknown, name: string): string | undefined => {
  const value = typeof payload === "object" && payload !== null && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)[name]
    : undefined
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined
}
